"""Query plans for the index tests: the statements a block of code runs, and the growing
tables that the database's own plan of one of them reads whole (``EXPLAIN QUERY PLAN`` on
SQLite, ``EXPLAIN`` on PostgreSQL)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Engine, event

GROWING = ("game", "game_record", "match", "rating_history")
"""Tables that grow with the games and matches: never read whole by a hot query. (The
bots, their versions and ratings, the pair totals and the kept fit grow with the bots.)"""


@contextmanager
def statements_run(engine: Engine) -> Iterator[list[tuple[str, Any]]]:
    """The statements run meanwhile that read rows (with their parameters)."""
    seen: list[tuple[str, Any]] = []

    def note(_conn, _cursor, statement: str, parameters: Any, _context, many: bool) -> None:
        if not many and statement.lstrip().split()[0].upper() in ("SELECT", "UPDATE", "DELETE"):
            seen.append((statement, parameters))

    event.listen(engine, "before_cursor_execute", note)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", note)


def full_scans(engine: Engine, statement: str, parameters: Any) -> tuple[list[str], str]:
    """The growing tables that the plan of ``statement`` reads whole, and the plan."""
    with engine.connect() as connection:
        if connection.dialect.name == "sqlite":
            plan = [
                row[-1]
                for row in connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}", parameters)
            ]
            pattern = re.compile(rf"^SCAN (?:TABLE )?({'|'.join(GROWING)})(?:_\d+)?\b")
            return [m[1] for line in plan if (m := pattern.match(line))], "\n".join(plan)
        # PostgreSQL would rather read a small table whole: ask it for the plan it would
        # choose were every table large.
        connection.exec_driver_sql("SET enable_seqscan = off")
        plan = [row[0] for row in connection.exec_driver_sql(f"EXPLAIN {statement}", parameters)]
        connection.rollback()
    return _postgres_full_scans(plan), "\n".join(plan)


def _postgres_full_scans(plan: list[str]) -> list[str]:
    """Growing tables read by a sequential scan or by an index scan with no condition."""
    node = re.compile(
        rf"(Seq Scan|Index Scan|Index Only Scan)(?: Backward)?(?: using \S+)? on "
        rf"({'|'.join(GROWING)})\b"
    )
    scans = []
    for number, line in enumerate(plan):
        found = node.search(line)
        if not found:
            continue
        details = []
        for below in plan[number + 1 :]:
            if "->" in below:
                break
            details.append(below)
        if found[1] == "Seq Scan" or not any("Index Cond" in detail for detail in details):
            scans.append(found[2])
    return scans
