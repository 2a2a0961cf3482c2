"""Many rows at once (``bulk``): ``COPY`` on PostgreSQL, multi-row inserts on SQLite; the
same rows, the same ids and the same errors on both."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from pitch_ladder.bulk import insert_numbered, insert_rows
from pitch_ladder.ladder import Ladder
from pitch_ladder.models import Bot, now


def test_numbered_rows_go_in_with_ascending_ids_and_a_duplicate_is_an_integrity_error(
    db_url: str, tmp_path: Path
) -> None:
    with Ladder.init(tmp_path / "ladder", db_url) as ladder:
        rows = [{"name": f"bot-{n}", "active": n % 2 == 0, "created_at": now()} for n in range(5)]
        with ladder.engine.begin() as connection:
            ids = insert_numbered(connection, Bot, rows[:3])
            insert_rows(connection, Bot, rows[3:])
        assert ids == sorted(ids) and len(set(ids)) == 3
        with Session(ladder.engine) as session:
            query = select(Bot.id, Bot.name, Bot.active).order_by(col(Bot.id))
            stored = session.exec(query).all()
        assert [(name, active) for _, name, active in stored] == [
            (row["name"], row["active"]) for row in rows
        ]
        assert [number for number, _, _ in stored][:3] == ids
        with pytest.raises(IntegrityError), ladder.engine.begin() as connection:
            insert_rows(connection, Bot, rows[:1])  # the name is taken
