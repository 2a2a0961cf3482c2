"""Many rows into a table at once: PostgreSQL's ``COPY``, or multi-row inserts elsewhere.

A poll of a ladder run stores hundreds of games, each a ``game`` row, a ``game_record``
row and two ``rating_history`` rows. SQLAlchemy's multi-row inserts send each batch as one
long statement, which psycopg parses again for every batch (a statement that long is not
cached): on PostgreSQL that parse was the largest part of storing a game on the owner
(bench/RESULTS.md, cluster). ``COPY ... FROM STDIN`` sends the rows as data, in the
transaction of the session's connection, with no statement to parse. A table's rows go
in with their columns' Python values as psycopg adapts them: plain columns and bytes,
not the model's own types (``models.PackedRecord`` is given its bytes).

Imports nothing from the rest of the ladder.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, insert, text
from sqlalchemy.exc import DBAPIError
from sqlmodel import SQLModel


def insert_rows(
    connection: Connection, table: type[SQLModel], rows: Sequence[dict[str, Any]]
) -> None:
    """``rows`` (dicts by column, all with the same columns) into ``table``."""
    if not rows:
        return
    if connection.dialect.name != "postgresql":
        connection.execute(insert(table), list(rows))
        return
    columns = list(rows[0])
    _copy(connection, _name(table), columns, ([row[column] for column in columns] for row in rows))


def insert_numbered(
    connection: Connection, table: type[SQLModel], rows: Sequence[dict[str, Any]]
) -> list[int]:
    """``rows`` into ``table``, whose key ``id`` the database numbers; their ids, in order
    (ascending, as one insert of them would number them)."""
    if not rows:
        return []
    if connection.dialect.name != "postgresql":
        key = table.id  # type: ignore[attr-defined]
        returning = insert(table).returning(key, sort_by_parameter_order=True)
        return list(connection.execute(returning, list(rows)).scalars())
    ids = sorted(
        connection.execute(
            text(
                "SELECT nextval(pg_get_serial_sequence(:table, 'id')) FROM generate_series(1, :n)"
            ),
            {"table": _name(table), "n": len(rows)},
        ).scalars()
    )
    columns = ["id", *rows[0]]
    values = (
        [number, *(row[column] for column in columns[1:])]
        for number, row in zip(ids, rows, strict=True)
    )
    _copy(connection, _name(table), columns, values)
    return ids


def _name(table: type[SQLModel]) -> str:
    return str(table.__tablename__)


def _copy(connection: Connection, table: str, columns: list[str], rows: Any) -> None:
    """``COPY`` into ``table`` on the driver's connection (the session's transaction).

    Raises:
        DBAPIError: the database refused the rows or failed, as a statement's error would
            be raised (an ``IntegrityError`` for a duplicate, say).
    """
    driver = connection.connection.driver_connection
    assert driver is not None
    listed = ", ".join(f'"{column}"' for column in columns)
    statement = f"COPY {table} ({listed}) FROM STDIN"
    base = connection.dialect.loaded_dbapi.Error
    try:
        with driver.cursor() as cursor, cursor.copy(statement) as copy:
            for row in rows:
                copy.write_row(row)
    except base as error:
        raise DBAPIError.instance(statement, None, error, base) from error
