"""Writing a run's schedule: one ``match`` row per lineup and round, in one transaction.

The rows go to the database driver in bulk (``COPY`` on PostgreSQL, batched inserts on
SQLite), in round-robin order: the ids follow it, and Elo replays in it. The pending
pager (``pending``) reads them back; the runner (``runner``) plays them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine, func, inspect
from sqlmodel import Session, select

from .errors import LadderError
from .models import Match, now
from .ownership import deal_secret
from .schedule import (
    Lineup,
    lineup_folder,
    lineup_seed,
    match_seeds,
    match_settings,
    partnership_round,
    planned_games,
    round_robin,
)
from .standings import latest_versions


def schedule_rounds(
    engine: Engine,
    rounds: int,
    games_per_match: int,
    rules: dict[str, Any],
    partnerships: bool = False,
) -> None:
    """Create the matches of ``rounds`` new rounds between the active bots' latest versions.

    One transaction, the rows handed to the database driver in bulk (``COPY`` on
    PostgreSQL), in round-robin order: the ids follow it, and Elo replays in it. With
    ``partnerships``, each round also has the team matches of the mixed-partnership
    format (``schedule.partnership_round``), after its round robin.

    Raises:
        LadderError: fewer than two active bots, or fewer than four with ``partnerships``.
        ValueError: a bad rule or game count.
    """
    with Session(engine) as session:
        latest = _active_latest(session)
        names = list(latest)
        lineups: list[Lineup] = [*round_robin(names)]
        if partnerships:
            if len(names) < 4:
                raise LadderError(
                    f"the mixed-partnership format needs four active bots, the ladder has "
                    f"{len(names)}: submit more, or run without --partnerships"
                )
            lineups += partnership_round(names)
        _write_rounds(session, latest, [lineups] * rounds, games_per_match, rules)
        session.commit()


def schedule_round(
    engine: Engine,
    lineups: Sequence[Lineup],
    games_per_match: int,
    rules: dict[str, Any],
    *,
    timing_grid_ms: int = 0,
) -> int:
    """Create one new round of the matches ``lineups`` (pairs of bot names, A first, and
    team lineups; each at most once) between the bots' latest versions, as the service's
    scheduler chooses them; its number. ``timing_grid_ms``: ``MatchSettings``'.

    Raises:
        LadderError: fewer than two active bots.
        ValueError: a bad rule or game count, or a lineup twice (one folder per lineup and
            round).
    """
    if not lineups or len(set(lineups)) != len(lineups):
        raise ValueError("a round has at least one match, and each lineup at most once")
    with Session(engine) as session:
        latest = _active_latest(session)
        number = _write_rounds(
            session, latest, [list(lineups)], games_per_match, rules, timing_grid_ms
        )
        session.commit()
        return number


def _active_latest(session: Session) -> dict[str, int]:
    """The active bots' latest version ids, by name.

    Raises:
        LadderError: fewer than two active bots.
    """
    latest = {bot.name: version.id for bot, version in latest_versions(session)}
    if len(latest) < 2:
        raise LadderError(
            f"the ladder has {len(latest)} active bot(s): submit at least two "
            "with `pitch ladder submit DIR`"
        )
    return latest  # type: ignore[return-value]


def _write_rounds(
    session: Session,
    latest: dict[str, int],
    rounds: list[list[Lineup]],
    games_per_match: int,
    rules: dict[str, Any],
    timing_grid_ms: int = 0,
) -> int:
    """Write ``rounds`` (each a list of pairs and team lineups) as the next rounds; the
    first one's number.

    Every match has the same settings but for its seed, so they are made and checked once
    (``match_settings``) and written as JSON once, each match's seed put in the text.
    """
    first = (session.exec(select(func.max(Match.round))).one() or 0) + 1
    secret = deal_secret(session)
    template = match_settings(secret, first, "a", "b", games_per_match, rules, timing_grid_ms)
    planned, seed_of = planned_games(template), match_seeds(secret)
    text, mark = json.dumps({**template, "seed": _SEED}), json.dumps(_SEED)

    def rows() -> Iterator[tuple[Any, ...]]:
        for number, lineups in enumerate(rounds, start=first):
            for lineup in lineups:
                a, a_partner, b, b_partner = _seats(lineup)
                seed = lineup_seed(seed_of, number, lineup)
                yield (
                    number,
                    latest[a],
                    latest[b],
                    latest[a_partner] if a_partner else None,
                    latest[b_partner] if b_partner else None,
                    seed,
                    planned,
                    text.replace(mark, str(seed)),  # json.dumps of match_settings with this seed
                    lineup_folder(number, lineup),
                )

    _insert_matches(session.connection(), rows(), now())
    return first


def _seats(lineup: Lineup) -> tuple[str, str | None, str, str | None]:
    """Bot A, its partner, bot B, its partner (``None``: the bot partners itself)."""
    if len(lineup) == 2:
        return lineup[0], None, lineup[1], None
    return lineup


_SEED = "<seed>"
"""Where each match's seed goes in the settings' JSON text."""
_MATCH_COLUMNS = (
    "round",
    "a_version_id",
    "b_version_id",
    "a_partner_version_id",
    "b_partner_version_id",
    "seed",
    "games_planned",
    "settings",
    "folder",
    "status",
    "created_at",
)
_INSERT_ROWS = 5000


def _insert_matches(connection: Connection, rows: Iterable[tuple[Any, ...]], at: datetime) -> None:
    """Pending match rows (``_MATCH_COLUMNS`` but the last two; settings as JSON text),
    straight to the driver: SQLAlchemy's processing of each value would cost more than
    the database's work."""
    columns = ", ".join(_MATCH_COLUMNS)
    if connection.dialect.name == "postgresql":
        driver = connection.connection.driver_connection
        assert driver is not None  # a connection in use holds its driver's
        cursor = driver.cursor()  # psycopg, this transaction
        with cursor.copy(f'COPY "match" ({columns}) FROM STDIN') as copy:
            for row in rows:
                copy.write_row((*row, "pending", at))
        return
    dialect = connection.dialect
    stamp = inspect(Match).columns["created_at"].type.dialect_impl(dialect).bind_processor(dialect)
    created = stamp(at) if stamp else at  # SQLite keeps times as SQLAlchemy writes them
    marks = ", ".join("?" * len(_MATCH_COLUMNS))
    for chunk in _chunks(((*row, "pending", created) for row in rows), _INSERT_ROWS):
        connection.exec_driver_sql(f'INSERT INTO "match" ({columns}) VALUES ({marks})', chunk)


def _chunks(rows: Iterable[Any], size: int) -> Iterator[list[Any]]:
    chunk = []
    for row in rows:
        chunk.append(row)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk
