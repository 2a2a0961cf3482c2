"""The ladder database: URLs, SQLite settings, migrations against the models, errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, create_engine, event, inspect, text
from sqlmodel import SQLModel

from pitch_ladder import models
from pitch_ladder.database import (
    SCHEMA_REVISION,
    alembic_config,
    database_url,
    migrate,
    open_database,
)
from pitch_ladder.errors import LadderError


def test_urls_default_to_the_folder_file_and_postgres_gets_psycopg(tmp_path: Path) -> None:
    assert database_url(tmp_path, None) == f"sqlite:///{tmp_path.resolve()}/ladder.db"
    assert database_url(tmp_path, "postgresql://u@h:5432/d") == "postgresql+psycopg://u@h:5432/d"
    assert database_url(tmp_path, "postgres://u@h/d") == "postgresql+psycopg://u@h/d"
    assert database_url(tmp_path, "sqlite:////x/y.db") == "sqlite:////x/y.db"
    with pytest.raises(LadderError, match="not a database URL"):
        database_url(tmp_path, "no url")


def test_alembic_upgrade_head_on_an_empty_database_gives_the_models_tables(db_url: str) -> None:
    engine = create_engine(database_url(Path("."), db_url))
    config = alembic_config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")
    with engine.connect() as connection:
        differences = compare_metadata(MigrationContext.configure(connection), SQLModel.metadata)
        tables = set(inspect(connection).get_table_names())
    assert differences == []
    assert tables == {*SQLModel.metadata.tables, "alembic_version"}
    engine.dispose()


def test_upgrading_a_0002_ladder_gives_it_a_deal_secret_and_64_bit_seeds(db_url: str) -> None:
    engine = create_engine(database_url(Path("."), db_url))
    config = alembic_config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0002")
        connection.execute(
            text("INSERT INTO ladder_identity (id, ladder_id, created_at) VALUES (1, 'x', :now)"),
            {"now": models.now()},
        )
        _insert_a_match(connection, seed=2**31 - 1)
    migrate(engine)  # as the next command does
    with engine.begin() as connection:
        secret = connection.execute(text("SELECT deal_secret FROM ladder_identity")).scalar_one()
        connection.execute(text("UPDATE match SET seed = :seed"), {"seed": 2**63 - 1})
        seed = connection.execute(text("SELECT seed FROM match")).scalar_one()
        differences = compare_metadata(MigrationContext.configure(connection), SQLModel.metadata)
    assert len(secret) == 64 and int(secret, 16) > 0
    assert seed == 2**63 - 1
    assert differences == []
    engine.dispose()


def _insert_a_match(connection: Connection, seed: int) -> None:
    """Two bots, their versions and one match (with a game) between them."""
    now = {"now": models.now()}
    for number, name in ((1, "a"), (2, "b")):
        connection.execute(
            text("INSERT INTO bot (id, name, active, created_at) VALUES (:id, :name, true, :now)"),
            {"id": number, "name": name, **now},
        )
        connection.execute(
            text(
                "INSERT INTO bot_version (id, bot_id, content_hash, folder, manifest_name, "
                "manifest_version, command, description, author, submitted_at) "
                "VALUES (:id, :id, 'h', 'bots/x/h', :name, '1', '[]', '', '', :now)"
            ),
            {"id": number, "name": name, **now},
        )
    connection.execute(
        text(
            "INSERT INTO match (id, round, a_version_id, b_version_id, seed, games_planned, "
            "settings, folder, status, created_at) "
            "VALUES (1, 1, 1, 2, :seed, 2, '{}', 'matches/1', 'pending', :now)"
        ),
        {"seed": seed, **now},
    )
    connection.execute(
        text(
            "INSERT INTO game (match_id, game_id, a_team, a_score, b_score, a_points, "
            "b_points, faults, termination, record_path, record, finished_at) "
            "VALUES (1, 'g', 0, 1, 0, 5, 0, 0, 'target', 'r.json', '{}', :now)"
        ),
        now,
    )


def test_the_schema_revision_constant_is_alembics_head() -> None:
    assert ScriptDirectory.from_config(alembic_config()).get_current_head() == SCHEMA_REVISION


def test_open_database_migrates_once_and_keeps_data(db_url: str) -> None:
    url = database_url(Path("."), db_url)
    engine = open_database(url, create=True)  # ladder init
    with engine.begin() as connection:
        connection.execute(
            text("INSERT INTO bot (name, active, created_at) VALUES ('kept', true, :now)"),
            {"now": models.now()},
        )
    engine.dispose()
    engine = open_database(url)  # the next command upgrades again: a no-op at head
    with engine.connect() as connection:
        assert connection.execute(text("SELECT name FROM bot")).scalars().all() == ["kept"]
    engine.dispose()


def test_a_migration_that_fails_halfway_leaves_no_table_behind(db_url: str) -> None:
    url = database_url(Path("."), db_url)
    engine = create_engine(url)
    created: list[str] = []

    @event.listens_for(engine, "before_cursor_execute")
    def fail_at_the_third_table(_conn, _cursor, statement: str, *_args) -> None:
        if statement.lstrip().upper().startswith("CREATE TABLE"):
            created.append(statement)
            if len(created) == 3:
                raise RuntimeError("killed halfway through the migration")

    with pytest.raises(RuntimeError, match="halfway"):
        migrate(engine)
    with engine.connect() as connection:
        assert inspect(connection).get_table_names() == []
    engine.dispose()
    engine = open_database(url, create=True)  # ladder init again migrates from scratch
    with engine.connect() as connection:
        assert set(inspect(connection).get_table_names()) == {
            *SQLModel.metadata.tables,
            "alembic_version",
        }
    engine.dispose()


def test_sqlite_uses_wal_and_a_busy_timeout(tmp_path: Path) -> None:
    engine = open_database(database_url(tmp_path, None), create=True)
    with engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar() == 30_000
        assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    engine.dispose()


def test_an_unreachable_database_is_one_clear_line() -> None:
    url = database_url(Path("."), "postgresql://nobody:secret@127.0.0.1:1/none")
    with pytest.raises(LadderError) as caught:
        open_database(url)
    message = str(caught.value)
    assert "cannot reach the database postgresql+psycopg://nobody:***@127.0.0.1:1/none" in message
    assert "--db (or PITCH_DB)" in message and "secret" not in message
    assert "\n" not in message
