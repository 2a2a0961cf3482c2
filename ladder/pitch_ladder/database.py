"""The ladder's database: which URL, the engine, and a schema brought up to date.

An SQLite file in the ladder folder by default, in WAL mode (readers never block the
writer) with a busy timeout (a second writer waits instead of failing); PostgreSQL when
given a URL. Alembic migrations run before every command, so a ladder made by an older
release is upgraded in place and keeps its data.

Imports only the models from the rest of the ladder.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Engine, create_engine, event, inspect, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, OperationalError

from .errors import LadderError

if TYPE_CHECKING:
    from alembic.config import Config

SQLITE_FILE = "ladder.db"
BUSY_TIMEOUT_MS = 30_000
"""How long a writer waits for another one to finish before SQLite gives up."""
MIGRATIONS = Path(__file__).with_name("migrations")
SCHEMA_REVISION = "0003"
"""The newest migration (a test checks it is Alembic's head): a database at it is not
upgraded, and then Alembic, slow to import, is not even loaded."""
_MIGRATION_LOCK = 0x70697463  # any constant: serializes concurrent upgrades on PostgreSQL


def database_url(folder: Path, db: str | None) -> str:
    """The SQLAlchemy URL for ``db``, or the ladder folder's SQLite file when ``db`` is empty.

    ``postgresql://`` (and ``postgres://``) URLs get the psycopg driver.

    Raises:
        LadderError: ``db`` is not a database URL.
    """
    if not db:
        return f"sqlite:///{(folder / SQLITE_FILE).resolve()}"
    try:
        url = make_url(db)
    except ArgumentError:
        raise LadderError(f"--db {db!r}: not a database URL; {_URL_HINT}") from None
    if url.drivername in ("postgresql", "postgres"):
        url = url.set(drivername="postgresql+psycopg")
    return url.render_as_string(hide_password=False)


_URL_HINT = "use sqlite:///PATH or postgresql://USER@HOST:PORT/DATABASE"


def shown_url(url: str) -> str:
    """The URL with any password masked, for messages."""
    return make_url(url).render_as_string(hide_password=True)


def open_database(url: str) -> Engine:
    """An engine for ``url`` whose schema is at the latest migration.

    Raises:
        LadderError: the URL names an unknown driver, or the database cannot be reached.
    """
    try:
        engine = _create_engine(url)
    except (ArgumentError, ImportError) as error:
        raise LadderError(f"database {shown_url(url)}: {error}; {_URL_HINT}") from None
    try:
        migrate(engine)
    except OperationalError as error:
        engine.dispose()
        reason = str(error.orig).strip().splitlines()[0] if error.orig else str(error)
        raise LadderError(
            f"cannot reach the database {shown_url(url)} ({reason}): check that the server "
            "runs and that --db (or PITCH_DB) names it"
        ) from None
    return engine


def _create_engine(url: str) -> Engine:
    if make_url(url).get_backend_name() != "sqlite":
        return create_engine(url, pool_pre_ping=True)
    engine = create_engine(url, connect_args={"timeout": BUSY_TIMEOUT_MS / 1000})
    event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def _sqlite_pragmas(connection: Any, _record: Any) -> None:
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA synchronous=NORMAL")  # with WAL: safe against a killed process
    cursor.close()


def alembic_config() -> Config:
    """Alembic's configuration for the ladder's migrations (no ``alembic.ini`` needed)."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


def migrate(engine: Engine) -> None:
    """Bring the schema to the latest migration, in one transaction.

    A process killed halfway through an upgrade thus leaves the schema as it was, and two
    processes upgrading at once take turns (an advisory lock on PostgreSQL; on SQLite a
    write transaction taken at once, since Python's sqlite3 would otherwise run each
    ``CREATE TABLE`` in a transaction of its own).
    """
    with engine.begin() as connection:
        if _revision(connection) == SCHEMA_REVISION:
            return
    from alembic import command

    config = alembic_config()
    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            connection.execute(text(f"SELECT pg_advisory_xact_lock({_MIGRATION_LOCK})"))
        elif connection.dialect.name == "sqlite":
            connection.exec_driver_sql("BEGIN IMMEDIATE")
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


def _revision(connection: Connection) -> str | None:
    if not inspect(connection).has_table("alembic_version"):
        return None
    return connection.execute(text("SELECT version_num FROM alembic_version")).scalar()
