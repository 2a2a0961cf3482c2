"""Migration 0006 on a ladder with bots: they all go to the author ``local``, on SQLite and
PostgreSQL, and the authors made afterwards get ids of their own."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, inspect, text
from sqlmodel import Session, SQLModel, select

from pitch_ladder import models
from pitch_ladder.authors import LOCAL_AUTHOR, add_author, authenticate
from pitch_ladder.database import alembic_config, database_url, migrate
from pitch_ladder.models import LOCAL_AUTHOR_ID, Author, Bot


def _ladder_at_0005_with_bots(url: str, names: list[str]) -> None:
    engine = create_engine(url)
    config = alembic_config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0005")
        for name in names:
            connection.execute(
                text("INSERT INTO bot (name, active, created_at) VALUES (:name, true, :now)"),
                {"name": name, "now": models.now()},
            )
            connection.execute(
                text(
                    "INSERT INTO bot_version (bot_id, content_hash, folder, manifest_name, "
                    "manifest_version, command, description, author, submitted_at) "
                    "SELECT id, 'h', 'f', name, '1', '[]', '', 'someone', :now FROM bot "
                    "WHERE name = :name"
                ),
                {"name": name, "now": models.now()},
            )
    engine.dispose()


def test_upgrading_gives_every_existing_bot_to_the_local_author(db_url: str) -> None:
    url = database_url(Path("."), db_url)
    _ladder_at_0005_with_bots(url, ["greedy", "random"])
    engine = create_engine(url)
    migrate(engine)  # as the next command does
    with Session(engine) as session:
        owners = session.exec(select(Bot.name, Bot.author_id).order_by(Bot.name)).all()
        local = session.get_one(Author, LOCAL_AUTHOR_ID)
        assert owners == [("greedy", LOCAL_AUTHOR_ID), ("random", LOCAL_AUTHOR_ID)]
        assert (local.name, local.admin) == (LOCAL_AUTHOR, False)
        issued = add_author(session, "alice")  # a fresh id: PostgreSQL's sequence is past 1
        assert authenticate(session, issued.token).id == LOCAL_AUTHOR_ID + 1
    with engine.connect() as connection:
        assert compare_metadata(MigrationContext.configure(connection), SQLModel.metadata) == []
    engine.dispose()


def test_downgrading_to_0005_removes_authors_and_keeps_the_bots(db_url: str) -> None:
    url = database_url(Path("."), db_url)
    _ladder_at_0005_with_bots(url, ["greedy"])
    engine = create_engine(url)
    migrate(engine)
    config = alembic_config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0005")
    with engine.connect() as connection:
        tables = set(inspect(connection).get_table_names())
        columns = {column["name"] for column in inspect(connection).get_columns("bot")}
        names = connection.execute(text("SELECT name FROM bot")).scalars().all()
    assert not tables & {"author", "author_token"}
    assert "author_id" not in columns and names == ["greedy"]
    engine.dispose()
