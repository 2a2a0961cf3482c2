"""Records the owner wrote from results a worker verified, held until the importer takes them.

A cluster worker replays each game it plays (``verify.refusal``) and hands back the
record's bytes with their sha256 digest and the game's outcome; the owner checks the
digest and the schedule's fields, writes the bytes into the match folder and vouches for
them here: the file's path, the bytes themselves (gzip-compressed, as they travelled),
the file's status as written (inode, size, modification time) and the game's outcome.
The importer, finding that file, stores the vouched bytes with the vouched outcome: it
neither reads the file, nor hashes, parses, replays or compresses the record.

Why that is safe (the database is the ladder's word; the match folder is anyone's to
write):

- This table lives in the owner's memory, and only the owner fills it, only with bytes
  that, uncompressed, hash to the digest of the record a worker verified (workers run
  the project's code), and whose schedule fields (pair, seed, first dealer, bots) the
  owner checked. So what the importer stores from it is a verified record, whatever the
  file holds since: a file changed behind the owner's back can never put an unverified
  record in the database.
- The file is the archive, and what a resumed match or a restored backup goes by, so the
  database should hold what the file holds. An entry is used only while the file is the
  one the owner wrote (the same inode, size and modification time, one ``stat``); a file
  replaced or rewritten since is checked in full as any file in a match folder, and
  refused if it fails. A forger who rewrites a file in place with the same size and sets
  its time back makes the file differ from the database, never the database wrong.
- The status is taken before the file takes its name (``write_record_bytes``' hook), so
  the importer never finds a file the owner wrote without its entry.

An entry lives from its task's arrival to the importer's next poll, so the table holds
the records of the games in flight: about 500 at 1,000 games a second and a poll every
0.5 s (1.5 MB of 3 KB compressed records).

Imports nothing from the rest of the ladder, and no Dask.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import Executor
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from pitch_referee.match import GameOutcome

Stamp = tuple[int, int, int]
"""A file's inode, size and modification time (ns): what tells that it was not replaced
or rewritten."""


def stamp_of(status: os.stat_result) -> Stamp:
    return status.st_ino, status.st_size, status.st_mtime_ns


@dataclass(frozen=True)
class Vouched:
    """A record file as the owner wrote it."""

    packed: bytes
    """The file's bytes gzip-compressed (``models.packed``), as they travelled from the
    worker that verified them; the owner checked them."""
    written: Stamp
    """The file's status right after writing."""
    outcome: GameOutcome
    """The game's outcome and termination, as its worker read them from the record."""
    finished_at: datetime

    def unchanged(self, path: Path) -> bool:
        """Whether the file at ``path`` is still the one written (one ``stat``)."""
        try:
            return stamp_of(os.stat(path)) == self.written
        except OSError:
            return False


class VouchedRecords:
    """The vouched records by path; shared by the threads that write records and the
    importer."""

    def __init__(self) -> None:
        self._by_path: dict[str, Vouched] = {}
        self._lock = threading.Lock()

    def vouch(
        self,
        path: Path,
        packed: bytes,
        outcome: GameOutcome,
        at: datetime,
        written: os.stat_result,
    ) -> None:
        """The record of ``outcome`` is written to ``path`` as ``packed`` uncompressed (or
        as it is, a compressed file); ``written`` is the file's status once written
        (``write_record_bytes`` tells it)."""
        vouched = Vouched(packed, stamp_of(written), outcome, at)
        with self._lock:
            self._by_path[os.path.abspath(path)] = vouched

    def take(self, path: Path) -> Vouched | None:
        """The vouched record of ``path`` if the file there is still the one written, else
        ``None``; either way ``path`` is forgotten."""
        with self._lock:
            vouched = self._by_path.pop(os.path.abspath(path), None)
        if vouched is None or not vouched.unchanged(path):
            return None
        return vouched

    def __len__(self) -> int:
        return len(self._by_path)


def vouched_records(executor: Executor) -> VouchedRecords | None:
    """The records ``executor`` vouches for (a cluster's), or ``None`` (a local pool's:
    its records come from processes that run bots, and are checked in full)."""
    found = getattr(executor, "vouched", None)
    return found if isinstance(found, VouchedRecords) else None
