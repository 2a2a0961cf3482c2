"""The ladder's database: which URL, the engine, and a schema brought up to date.

An SQLite file in the ladder folder by default, in WAL mode (readers never block the
writer) with a busy timeout (a second writer waits instead of failing); PostgreSQL when
given a URL. A database behind the newest migration is upgraded in place (Alembic, loaded
only then) when a command opens it, so a ladder made by an older release keeps its data.

Only ``ladder init`` creates a database. Every other command opens an existing one, and
refuses a database that is missing, empty or not a ladder's with a message that says
how to restore it: an empty database in its place would lose track of every bot and
game in the folder. SQLite would create the file on connect, so those connections open
it read-write only (``mode=rw``), and ``watch`` notices a file deleted under a run.

Imports nothing else of the ladder but its errors.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import URL, Connection, Engine, create_engine, event, inspect, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DatabaseError, DBAPIError, OperationalError
from sqlmodel.sql.expression import Select

from .errors import LadderError

if TYPE_CHECKING:
    from alembic.config import Config
    from sqlalchemy.sql.expression import ClauseElement
    from sqlmodel import Session

SQLITE_FILE = "ladder.db"
BUSY_TIMEOUT_MS = 30_000
"""How long a writer waits for another one to finish before SQLite gives up."""
MIGRATIONS = Path(__file__).with_name("migrations")
SCHEMA_REVISION = "0013"
"""The newest migration (a test checks it is Alembic's head): a database at it is not
upgraded, and then Alembic, slow to import, is not even loaded."""
_MIGRATION_LOCK = 0x70697463  # any constant: serializes concurrent upgrades on PostgreSQL
SQLITE_HEADER = b"SQLite format 3\x00"
"""The first 16 bytes of every SQLite database file."""
MISSING, EMPTY, NO_LADDER = "is missing", "is empty (0 bytes)", "holds no ladder tables"
"""The problems of a database that ``create`` may fix: there is no ladder to lose."""
RESTORE_HINT = (
    "nothing was changed: restore the database from a backup with `pitch ladder restore "
    "FILE` (backups come from `pitch ladder backup`), or start a new ladder in another "
    "folder with `pitch ladder init`"
)
_POSTGRES_HINT = (
    "nothing was changed: restore it from your backup (pg_dump), or create a ladder there "
    "with `pitch ladder init` in a new folder"
)


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


def sqlite_path(url: str | URL) -> Path | None:
    """The file of an SQLite URL; None for other databases (and in-memory SQLite)."""
    url = make_url(url)
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        return None
    return Path(url.database)


def sqlite_problem(path: Path) -> str | None:
    """What makes ``path`` unusable as an existing ladder database, or None.

    Reads the file without changing it. Only the header and the table list are read: a
    file damaged further in fails on a later query (``open_database`` says so too).
    """
    try:
        with path.open("rb") as file:
            header = file.read(len(SQLITE_HEADER))
    except FileNotFoundError:
        return MISSING
    if not header:
        return EMPTY
    if header != SQLITE_HEADER:
        return "is not an SQLite database (it is damaged, or another kind of file)"
    try:
        uri = f"{path.resolve().as_uri()}?mode=ro"
        with closing(sqlite3.connect(uri, uri=True)) as connection:
            tables = connection.execute("SELECT name FROM sqlite_master").fetchall()
    except sqlite3.DatabaseError as error:
        return f"is damaged ({error})"
    return None if ("alembic_version",) in tables else NO_LADDER


def existing_file_uri(path: Path) -> str:
    """An SQLite URI that opens ``path`` read-write only if it exists (never creates it)."""
    return f"{path.resolve().as_uri()}?mode=rw"


def open_database(url: str, *, create: bool = False) -> Engine:
    """An engine for ``url`` whose schema is at the latest migration.

    Args:
        create: make the database (and its schema) if there is none; only ``ladder init``.

    Raises:
        LadderError: the URL names an unknown driver, the database cannot be reached, or
            (unless ``create``) it is missing, empty, damaged or holds no ladder.
    """
    path = sqlite_path(url)
    where = f"the ladder database {path}" if path else f"the database {shown_url(url)}"
    hint = RESTORE_HINT if path else _POSTGRES_HINT
    problem = sqlite_problem(path) if path else None
    if problem and not (create and problem in (MISSING, EMPTY, NO_LADDER)):
        raise LadderError(f"{where} {problem}; {hint}")
    try:
        engine = _create_engine(url, create)
    except (ArgumentError, ImportError) as error:
        raise LadderError(f"database {shown_url(url)}: {error}; {_URL_HINT}") from None
    try:
        if not create and not path:
            _check_is_ladder(engine, where, hint)
        migrate(engine)
    except OperationalError as error:
        engine.dispose()
        raise LadderError(
            f"cannot reach the database {shown_url(url)} ({_reason(error)}): check that the "
            "server runs and that --db (or PITCH_DB) names it"
        ) from None
    except DatabaseError as error:  # SQLite: "database disk image is malformed", ...
        engine.dispose()
        raise LadderError(f"{where} is damaged ({_reason(error)}); {hint}") from None
    except BaseException:
        engine.dispose()
        raise
    return engine


def failed_mid_run(error: DBAPIError, when: str) -> LadderError:
    """The one line for a database that failed ``when`` (``while storing games``...) in a
    run: what was stored stays, the records stay in their folders, and the next run goes
    on from there."""
    return LadderError(
        f"the database failed {when} ({_reason(error)}), so nothing more is stored (the "
        "records stay in the match folders): check it, then run again"
    )


def _reason(error: DBAPIError) -> str:
    return str(error.orig).strip().splitlines()[0] if error.orig else str(error)


def _check_is_ladder(engine: Engine, where: str, hint: str) -> None:
    """A server database (SQLite files are checked by ``sqlite_problem``)."""
    with engine.connect() as connection:
        if _revision(connection) is None:
            raise LadderError(f"{where} {NO_LADDER}; {hint}")


def watch(engine: Engine) -> Callable[[], None]:
    """A check for a long command to call before each write: is its database still there?

    A deleted (or replaced) SQLite file stays readable and writable through the
    connections already open, so a run would go on storing games into a file nobody will
    see again. The check compares the file now at the path with the one opened (device
    and inode). PostgreSQL needs none: a dropped database fails the next write.

    The returned function raises ``LadderError`` when the file changed.
    """
    path = sqlite_path(engine.url)
    if path is None:
        return lambda: None
    opened = _identity(path)

    def check() -> None:
        if _identity(path) != opened:
            raise LadderError(
                f"the ladder database {path} was deleted or replaced while this command ran, "
                "so nothing more is stored (the records stay in the match folders); restore "
                "it with `pitch ladder restore FILE`, then run again"
            )

    return check


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        status = path.stat()
    except FileNotFoundError:
        return None
    return status.st_dev, status.st_ino


def _create_engine(url: str, create: bool) -> Engine:
    if make_url(url).get_backend_name() != "sqlite":
        return create_engine(url, pool_pre_ping=True)
    engine = create_engine(url, connect_args={"timeout": BUSY_TIMEOUT_MS / 1000})
    if not create and sqlite_path(url):
        event.listen(engine, "do_connect", _without_creating)
    event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def _without_creating(_dialect: Any, _record: Any, cargs: list[Any], cparams: dict) -> None:
    """Open the SQLite file read-write only: a file gone meanwhile fails, not reappears."""
    cargs[0] = existing_file_uri(Path(cargs[0]))
    cparams["uri"] = True


def _sqlite_pragmas(connection: Any, _record: Any) -> None:
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA synchronous=NORMAL")  # with WAL: safe against a killed process
    cursor.close()


def driver_rows(session: Session, query: ClauseElement | str) -> list[tuple[Any, ...]]:
    """The rows of ``query`` in the session's transaction, through the driver's own
    cursor, as the driver gives them (SQLite's booleans are 0 and 1): a third of the time
    of SQLAlchemy's result rows, for reads of every row of a table (the fit's pair totals,
    the standings' ten thousand bots). A statement is compiled with its values inline."""
    if not isinstance(query, str):
        dialect = session.get_bind().dialect
        query = str(query.compile(dialect=dialect, compile_kwargs={"literal_binds": True}))
    driver = session.connection().connection.driver_connection
    assert driver is not None  # a connection in use holds its driver's
    cursor = driver.cursor()
    try:
        cursor.execute(query)
        return cursor.fetchall()
    finally:
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


def select_columns(*columns: Any) -> Select[*tuple[Any, ...]]:
    """``sqlmodel.select`` of more than four columns, typed: sqlmodel types a row's
    columns one by one in overloads that stop at four, so these rows are tuples of Any
    (``select`` builds this same statement for two columns or more)."""
    return Select(*columns)
