"""The hot queries find their rows by index on both databases: the database's own query
plans (``EXPLAIN QUERY PLAN`` on SQLite, ``EXPLAIN`` on PostgreSQL) of every statement
that the standings, the games pages, a game, the bots, the pending matches and storing a
game run, none of which may read a whole table that grows with the games."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ladder_testkit import add_match, game_row, ladder_with, store_games
from sqlalchemy import Engine, event
from sqlmodel import Session

from pitch_ladder import pending
from pitch_ladder.game_query import GameQuery
from pitch_ladder.schedule_writer import schedule_rounds

GROWING = ("game", "game_record", "match", "rating_history")
"""Tables that grow with the games and matches: never read whole by a hot query. (The
bots, their versions and ratings, the pair totals and the kept fit grow with the bots.)"""


@contextmanager
def _statements(engine: Engine) -> Iterator[list[tuple[str, Any]]]:
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


TEAM_GAMES = "ix_game_partnered_round_match_id"
"""The partial index of the team matches' games: the team model's refit reads it whole,
and nothing else (``partnerships``; ``bench/scale.py`` measures it)."""


def _full_scans(engine: Engine, statement: str, parameters: Any) -> tuple[list[str], str]:
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


def test_the_hot_queries_never_read_the_games_or_matches_whole(db_url: str, tmp_path: Path) -> None:
    ladder, v = ladder_with(db_url, tmp_path, ["alpha", "beta", "gamma"])
    with Session(ladder.engine) as session:
        matches = [
            add_match(session, 1, v[a], v[b]) for a, b in [("alpha", "beta"), ("beta", "gamma")]
        ]
        store_games(
            session,
            [
                game_row(session, match, f"pair-{n:05d}-{side}", 1.0)
                for match in matches
                for n in range(3)
                for side in "ab"
            ],
        )
    schedule_rounds(ladder.engine, 1, 2, {})  # pending matches for the scheduler's queries
    ladder.standings()

    def store() -> None:
        with Session(ladder.engine) as session:
            store_games(session, [game_row(session, matches[0], "pair-00000-c", 0.5)])

    hot: dict[str, Callable[[], Any]] = {
        "standings (kept fit)": ladder.standings,
        "storing a game": store,
        "standings (a new fit)": ladder.standings,
        "games page": ladder.games,
        "games page before a game": lambda: ladder.games(GameQuery(before=4)),
        "games page with an offset": lambda: ladder.games(GameQuery(limit=2, offset=2)),
        "games of a bot": lambda: ladder.games(GameQuery(bot="beta")),
        "a game": lambda: ladder.game(3),
        "bots": ladder.bots,
        "pending matches": lambda: (
            pending.PendingMatches(ladder.engine).totals(ladder.folder),
            list(pending.PendingMatches(ladder.engine)),
        ),
        "pending rounds": lambda: pending.pending_rounds(ladder.engine),
        "retiring a bot": lambda: ladder.retire("gamma"),
    }
    uses = {  # an index that the plans must name: a range of the key would also pass
        "storing a game": "ix_game_round_match_id",  # the games after the new one
        "games of a bot": "ix_game_b_version_id_id",
        "pending matches": "ix_match_status_round_id",
    }
    checked = 0
    for name, call in hot.items():
        with _statements(ladder.engine) as statements:
            call()
        assert statements, name
        plans = []
        for statement, parameters in statements:
            scans, plan = _full_scans(ladder.engine, statement, parameters)
            if TEAM_GAMES in plan:  # the team model rates them all again after a change
                scans = [table for table in scans if table != "game"]
            assert not scans, f"{name} reads {scans} whole:\n{statement}\n{plan}"
            plans.append(plan)
            checked += 1
        assert uses.get(name, "") in "\n".join(plans), (name, plans)
    assert checked >= 20
    # The check itself sees a whole-table read, on this database too.
    scans, plan = _full_scans(ladder.engine, "SELECT id FROM game WHERE termination = 'x'", {})
    assert scans == ["game"], plan
    ladder.close()
