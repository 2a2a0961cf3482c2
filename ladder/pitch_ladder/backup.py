"""Backups of a ladder's SQLite database: ``pitch ladder backup`` and ``restore``.

A backup is made with SQLite's online backup API, so it is a consistent copy even while
a run is writing. A restore puts a backup in the database's place and keeps the database
it replaces beside it (``ladder.db.replaced-<time>``), so it loses nothing. Games played
after the backup are still in their match folders, and their matches are pending in the
restored database: the next ``ladder run`` imports their records (checked like any
other) instead of playing them again. Bots submitted after the backup must be submitted
again.

PostgreSQL has its own tools (``pg_dump``, ``pg_restore``); the ladder refuses it here.

Imports only the database helpers and errors from the rest of the ladder.
"""

from __future__ import annotations

import sqlite3
import time
from contextlib import closing
from pathlib import Path

from .database import existing_file_uri, sqlite_path, sqlite_problem
from .errors import LadderError

POSTGRES_REFUSAL = (
    "backup and restore are for the SQLite database; back up PostgreSQL with pg_dump "
    "and restore it with pg_restore (or psql)"
)


def database_file(url: str) -> Path:
    """The SQLite file of the ladder's database URL.

    Raises:
        LadderError: the database is not an SQLite file.
    """
    path = sqlite_path(url)
    if path is None:
        raise LadderError(POSTGRES_REFUSAL)
    return path


def backup(database: Path, out: Path) -> None:
    """Copy the SQLite database ``database`` to ``out``, a new single-file database.

    Raises:
        LadderError: ``out`` exists already.
    """
    if out.exists():
        raise LadderError(f"{out} already exists: choose another --out")
    out.parent.mkdir(parents=True, exist_ok=True)
    scratch = out.with_name(f".{out.name}.partial")
    scratch.unlink(missing_ok=True)
    _copy(database, scratch)
    scratch.replace(out)


def check_backup(path: Path, ladder_id: str | None) -> None:
    """Check that ``path`` is a backup of this ladder's database.

    Raises:
        LadderError: it is missing, not an SQLite database, not a ladder's, or another
            ladder's (``ladder_id`` is the folder's id, when it has one).
    """
    problem = sqlite_problem(path)
    if problem:
        raise LadderError(f"the backup {path} {problem}")
    try:
        with closing(sqlite3.connect(existing_file_uri(path), uri=True)) as connection:
            owner = connection.execute("SELECT ladder_id FROM ladder_identity").fetchone()
    except sqlite3.OperationalError:  # no such table: a ladder from before ladder ids
        owner = None
    except sqlite3.DatabaseError as error:
        raise LadderError(f"the backup {path} is damaged ({error})") from None
    if ladder_id and owner and owner[0] != ladder_id:
        raise LadderError(
            f"the backup {path} is of another ladder (ladder {owner[0]}), not of this folder's"
        )


def restore(database: Path, source: Path) -> Path | None:
    """Put the backup ``source`` in the place of ``database``.

    Returns where the replaced database is kept (None if there was none). Run it under
    the run lock, and check the backup first (``check_backup``).
    """
    scratch = database.with_name(f"{database.name}.restoring")
    scratch.unlink(missing_ok=True)
    _copy(source, scratch)
    kept = None
    if database.exists():
        kept = database.with_name(f"{database.name}.replaced-{time.strftime('%Y%m%d-%H%M%S')}")
        database.replace(kept)
        wal = database.with_name(f"{database.name}-wal")  # committed writes not yet merged
        if wal.exists():
            wal.replace(kept.with_name(f"{kept.name}-wal"))
    database.with_name(f"{database.name}-shm").unlink(missing_ok=True)  # an index, rebuilt
    scratch.replace(database)
    return kept


def _copy(source: Path, target: Path) -> None:
    """SQLite's online backup of ``source`` into the new file ``target``, in one file."""
    with (
        closing(sqlite3.connect(existing_file_uri(source), uri=True)) as reader,
        closing(sqlite3.connect(target)) as writer,
    ):
        reader.backup(writer)
        writer.execute("PRAGMA journal_mode=DELETE")  # no -wal file beside the copy
