"""Which ladder folder a database belongs to, so that two folders never share one.

A ladder is a folder and a database together: the folder holds the bots' copies and the
records that the database points to, and its run lock is what keeps two runs apart. Two
folders on one database (easy to do by mistake with ``--db``) would each schedule and
rate games for bots that the other cannot find, with no lock between them. So a ladder
has an id, written in its ``ladder.toml`` and in its database's one ``ladder_identity``
row, and a folder whose id is not its database's is refused. The same row keeps the
ladder's deal secret, the key of its match seeds.

Imports only the models and errors from the rest of the ladder.
"""

from __future__ import annotations

import json
import os
import tomllib
import uuid
from pathlib import Path

from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from .errors import LadderError
from .models import LadderIdentity

OWNER_ROW = 1


def new_ladder_id() -> str:
    return str(uuid.uuid4())


def claim_database(engine: Engine, marker: Path, shown_url: str) -> None:
    """Check that the database belongs to the folder of ``marker`` (its ``ladder.toml``).

    A database that belongs to no ladder yet is claimed. A ladder made before ladders
    had ids gets one, in the database and in ``marker``.

    Raises:
        LadderError: the database belongs to another ladder folder.
    """
    folder_id = tomllib.loads(marker.read_text()).get("id")
    owner = _owner(engine) or _claim(engine, folder_id or new_ladder_id())
    if folder_id is None:
        _write_id(marker, owner)
    elif folder_id != owner:
        raise LadderError(
            f"the database {shown_url} belongs to another ladder folder (ladder {owner}); "
            "give each ladder its own database with --db or PITCH_DB"
        )


def deal_secret(session: Session) -> str:
    """The ladder's secret for its match seeds (``schedule.match_seed``).

    Raises:
        LadderError: the database belongs to no ladder yet (``claim_database`` first).
    """
    row = session.get(LadderIdentity, OWNER_ROW)
    if row is None:
        raise LadderError("the database belongs to no ladder yet: it has no deal secret")
    return row.deal_secret


def _owner(engine: Engine) -> str | None:
    with Session(engine) as session:
        row = session.exec(select(LadderIdentity)).first()
        return row.ladder_id if row else None


def _claim(engine: Engine, ladder_id: str) -> str:
    """Make ``ladder_id`` the owner; if another command claimed it first, that one's id."""
    try:
        with Session(engine) as session:
            session.add(LadderIdentity.model_validate({"id": OWNER_ROW, "ladder_id": ladder_id}))
            session.commit()
    except IntegrityError:
        return _owner(engine) or ladder_id
    return ladder_id


def _write_id(marker: Path, ladder_id: str) -> None:
    """Add the id to ``ladder.toml`` atomically (two commands would write the same one)."""
    text = marker.read_text()
    scratch = marker.with_name(f".{marker.name}.{os.getpid()}")
    scratch.write_text(f"{text.rstrip()}\nid = {json.dumps(ladder_id)}\n")
    scratch.replace(marker)
