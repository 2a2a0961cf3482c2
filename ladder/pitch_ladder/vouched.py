"""Records the owner wrote from results a worker verified, held until the importer takes them.

A cluster worker replays each game it plays (``verify.refusal``) and hands back the
record's bytes with their sha256 digest; the owner checks the digest and the schedule's
fields, writes the record into the match folder and vouches for it here: its path, the
digest of the bytes it wrote and the record itself. The importer, finding that file, reads
its bytes once more: if their digest is the vouched one, it stores the vouched record
without replaying it again; if not (the folder is anyone's to write), the file is
checked as any other. An entry lives from its pair's arrival to the importer's next poll,
so the table stays as small as the games in flight.

Imports nothing from the rest of the ladder, and no Dask.
"""

from __future__ import annotations

import hashlib
import os
import threading
from concurrent.futures import Executor
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Vouched:
    """A record file as the owner wrote it."""

    digest: str
    """sha256 of the file's bytes, hex."""
    record: dict[str, Any]
    finished_at: datetime


class VouchedRecords:
    """The vouched records by path; shared by the threads that write records and the
    importer."""

    def __init__(self) -> None:
        self._by_path: dict[str, Vouched] = {}
        self._lock = threading.Lock()

    def vouch(self, path: Path, data: bytes, record: dict[str, Any], at: datetime) -> None:
        """``record`` was written to ``path`` as ``data``."""
        vouched = Vouched(hashlib.sha256(data).hexdigest(), record, at)
        with self._lock:
            self._by_path[os.path.abspath(path)] = vouched

    def take(self, path: Path, data: bytes) -> Vouched | None:
        """The vouched record of ``path`` if ``data`` (its bytes now) is what was written,
        else ``None``; either way ``path`` is forgotten."""
        with self._lock:
            vouched = self._by_path.pop(os.path.abspath(path), None)
        if vouched is None or hashlib.sha256(data).hexdigest() != vouched.digest:
            return None
        return vouched

    def __len__(self) -> int:
        return len(self._by_path)


def vouched_records(executor: Executor) -> VouchedRecords | None:
    """The records ``executor`` vouches for (a cluster's), or ``None`` (a local pool's:
    its records come from processes that run bots, and are checked in full)."""
    found = getattr(executor, "vouched", None)
    return found if isinstance(found, VouchedRecords) else None
