"""A database belongs to one ladder folder; ladders made before ids adopt one on upgrade."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import create_engine, text
from sqlmodel import Session, select

from pitch_ladder.database import SCHEMA_REVISION, alembic_config, database_url
from pitch_ladder.errors import LadderError
from pitch_ladder.ladder import LADDER_FILE, Ladder
from pitch_ladder.models import Bot, LadderIdentity
from pitch_testkit.ladder import cli_error


def _folder_id(folder: Path) -> str:
    return tomllib.loads((folder / LADDER_FILE).read_text())["id"]


def test_a_second_ladder_folder_on_the_same_database_is_refused(
    db_url: str, tmp_path: Path
) -> None:
    with Ladder.init(tmp_path / "first", db_url) as first:
        first_id = _folder_id(tmp_path / "first")
        with Session(first.engine) as session:
            assert session.exec(select(LadderIdentity.ladder_id)).all() == [first_id]
    with pytest.raises(LadderError, match="belongs to another ladder folder") as refused:
        Ladder.init(tmp_path / "second", db_url)
    assert first_id in str(refused.value) and "--db" in str(refused.value)
    with Ladder.open(tmp_path / "first", db_url):  # the owner still opens it
        pass


def test_the_refusal_is_one_line_from_the_command(tmp_path: Path) -> None:
    shared = f"sqlite:///{tmp_path / 'shared.db'}"
    with Ladder.init(tmp_path / "first", shared):
        pass
    message = cli_error("ladder", "init", "--ladder", tmp_path / "second", "--db", shared)
    assert "belongs to another ladder folder" in message and message.count("\n") == 1


def test_a_ladder_made_before_ids_is_upgraded_adopts_an_id_and_keeps_its_data(
    db_url: str, tmp_path: Path
) -> None:
    engine = create_engine(database_url(tmp_path, db_url))
    config = alembic_config()
    with engine.begin() as connection:  # the ladder as release 0001 left it
        config.attributes["connection"] = connection
        command.upgrade(config, "0001")
        connection.execute(
            text("INSERT INTO bot (name, active, created_at) VALUES ('old', true, :at)"),
            {"at": "2026-01-01 00:00:00"},
        )
    engine.dispose()
    folder = tmp_path / "old-ladder"
    folder.mkdir()
    (folder / LADDER_FILE).write_text('format = "pitch-ladder"\n')

    with Ladder.open(folder, db_url) as ladder:
        with ladder.engine.connect() as connection:
            revision = connection.execute(text("SELECT version_num FROM alembic_version"))
            assert revision.scalar() == SCHEMA_REVISION
        with Session(ladder.engine) as session:
            assert session.exec(select(Bot.name)).all() == ["old"]
            owner = session.exec(select(LadderIdentity.ladder_id)).one()
    assert _folder_id(folder) == owner
    with Ladder.open(folder, db_url):  # and opens again as its owner
        pass
