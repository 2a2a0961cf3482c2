"""A ladder folder's layout: the names of its parts, where its database is, and the sweep of
the scratch copies that submissions leave.

A ladder folder holds ``ladder.toml`` (marks the folder, holds the ladder's id, and names
the database when it is not the default), ``ladder.db`` (the SQLite default),
``bots/<name>/<hash12>/`` (the ladder's copy of every submitted version),
``matches/<round>-<a>-vs-<b>/`` (records and logs), ``smoke/`` (the smoke tests of
refused submissions), ``backups/`` (``ladder backup``), ``tmp/`` (scratch) and
``run.lock``. The database URL comes from the caller (``--db``/``PITCH_DB``), else from
``ladder.toml``, else it is the folder's SQLite file.

Reads files only: it opens no database.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from .database import database_url
from .errors import LadderError
from .scratch import sweep

LADDER_FILE = "ladder.toml"
BOTS_FOLDER = "bots"
SCRATCH_FOLDER = "tmp"
"""Submissions in progress: scratch copies (``scratch.scratch_folder``) and per-name locks."""
UPLOAD_PREFIX = "upload-"
"""A scratch folder of an upload being unpacked (``submissions.submit_upload``)."""
SUBMIT_PREFIX = "submit-"
"""A scratch folder of a submission being copied and smoke-tested (``versions.submit``)."""
SMOKE_FOLDER = "smoke"
"""Where a refused bot's smoke test stays: ``smoke/<name>-<hash12>/`` for one submitted on
the server's machine (``ladder submit``), ``smoke/submission-<id>/`` for an upload, which
belongs to that submission and its author (``submissions.submission_logs``)."""


def database_of(folder: Path, db: str | None) -> tuple[Path, str]:
    """The ladder's ``ladder.toml`` and its database URL (``db`` first, then the file's).

    Raises:
        LadderError: no ladder in ``folder``, or its ``ladder.toml`` is not TOML.
    """
    marker = folder / LADDER_FILE
    try:
        config = tomllib.loads(marker.read_text())
    except FileNotFoundError:
        raise LadderError(
            f"no ladder in {folder}: create one with `pitch ladder init --ladder {folder}`"
        ) from None
    except tomllib.TOMLDecodeError as error:
        raise LadderError(f"{marker}: not valid TOML ({error})") from None
    return marker, database_url(folder, db or config.get("database"))


def sweep_scratch(folder: Path) -> list[str]:
    """Remove the scratch folders that submissions left behind in the ladder ``folder`` (a
    killed process, or one interrupted while cleaning up); their names. A folder that a
    running submission holds is never touched, whoever runs it: see ``scratch``."""
    return sweep(folder / SCRATCH_FOLDER, (UPLOAD_PREFIX, SUBMIT_PREFIX))
