"""Records the owner wrote from results a worker verified, held until the importer takes them.

A cluster worker replays each game it plays (``verify.refusal``) and hands back the
record's bytes with their sha256 digest and the game's outcome; the owner checks the
digest and the schedule's fields, writes the bytes into the match folder and vouches for
them here: the file's path, its digest and the game's outcome. The importer, finding that
file, reads its bytes once: if their digest is the vouched one, it stores them with the
vouched outcome, without parsing or replaying the record; if not (the folder is anyone's
to write), the file is checked as any other. An entry lives from its pair's arrival to
the importer's next poll, so the table stays as small as the games in flight.

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

from pitch_referee.match import GameOutcome


@dataclass(frozen=True)
class Vouched:
    """A record file as the owner wrote it."""

    digest: str
    """sha256 of the file's bytes, hex."""
    outcome: GameOutcome
    """The game's outcome and termination, as its worker read them from the record."""
    finished_at: datetime


class VouchedRecords:
    """The vouched records by path; shared by the threads that write records and the
    importer."""

    def __init__(self) -> None:
        self._by_path: dict[str, Vouched] = {}
        self._lock = threading.Lock()

    def vouch(self, path: Path, digest: str, outcome: GameOutcome, at: datetime) -> None:
        """The record of ``outcome`` is written to ``path`` as bytes of sha256 ``digest``."""
        vouched = Vouched(digest, outcome, at)
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
