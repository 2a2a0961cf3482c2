"""Keeping the ratings current as games are stored: the tables the standings read.

Players are bot *versions*: a new version is a new player and starts afresh.

Sequential Elo (``ratings.elo_step``: initial 1500, K = 16) runs over every stored game
in one fixed order, ``GAME_ORDER``: round, then match id (matches are created in
round-robin order when a round is scheduled), then the game's id within its match
(``pair-00000-a`` before ``pair-00000-b``). The order does not depend on when a game
finished or was imported, so the same games always give the same ratings, however a run
was interrupted and resumed or however many workers played it.

Everything the standings show (``standings``) is kept in tables that storing a game
updates, in the same transaction (``rerate``), so that no read needs every game and
storing a game costs the same however long the history:

- ``rating_history``: each version's rating before and after each of its games;
- ``version_rating``: each version's current Elo, games, wins, losses and draws;
- ``pair_total``: the games between two versions, summed: all the fit reads.

When games are imported out of order (parallel matches finish in any order), the Elo
history is recomputed from the first new game on, starting from the ratings stored
before it: only the games after it are read, normally a few (matches are imported as
they finish, in about the order they were scheduled). ``rebuild`` recomputes all of it
from the games, as a repair (``pitch ladder rerate``).

The Bradley-Terry fit of all games (``ratings.fit_arrays_by_group`` of the pair totals)
is computed after the games change, started from the fit kept before (a step or two from
the new maximum), and kept (``fit_rating``, valid while ``fit_state`` names the newest
game): ``current_fit`` refits when it is stale, ``kept_fit`` answers the kept one at
once, stale or not, for readers that refit in the background. Each kept fit carries where
each line of the standings stands by it (``standings.placements``: ``fit_rating``'s
place, rank and group number), so that the standings are read a page at a time without
refitting (``standings.standings_page``). Storing games never refits (a refit costs
seconds at ten thousand bots): ``ladder run`` refits at its end, the web server in the
background when a reader finds the fit stale, and a bulk import should call
``current_fit`` once when it is done.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from itertools import chain
from typing import Any, NamedTuple

import numpy as np
from sqlalchemy import delete, func
from sqlalchemy.exc import DBAPIError
from sqlmodel import Session, SQLModel, col, select

from .bulk import insert_rows
from .database import driver_rows, select_columns
from .errors import LadderError
from .models import (
    FitRating,
    FitState,
    Game,
    PairTotal,
    RatingHistory,
    VersionRating,
    now,
)
from .partnerships import forget_team_ratings
from .ratings import INITIAL_RATING, Rating, elo_step, fit_arrays_by_group

GAME_ORDER = "round, match id, game id"
_CHUNK = 1000  # ids per ... IN (...), well under every database's parameter limit
FIT_ROW = 1
"""The id of the one ``fit_state`` row."""


class GameRow(NamedTuple):
    """A stored game as the ratings read it: its place in ``GAME_ORDER`` and its result."""

    id: int
    """``game.id``."""
    round: int
    match_id: int
    game_id: str
    """The game's id within its match, e.g. ``pair-00003-b``."""
    a_version: int
    b_version: int
    a_score: float
    """1 win, 0.5 draw, 0 loss, from the side of A's version."""

    @property
    def order(self) -> tuple[int, int, str]:
        """Its key in ``GAME_ORDER`` (game ids compared here, not by a database collation)."""
        return self.round, self.match_id, self.game_id


_GAME_COLUMNS = (
    Game.id,
    Game.round,
    Game.match_id,
    Game.game_id,
    Game.a_version_id,
    Game.b_version_id,
    Game.a_score,
)


def _same_bot_games() -> Any:
    """The games Elo and the fit rate: same-bot teams only (a bot that partners itself),
    the ratings of the bots themselves. Team matches are the team model's
    (``partnerships``)."""
    return select_columns(*_GAME_COLUMNS).where(col(Game.a_partner_version_id).is_(None))


def _chunks(values: Iterable[int]) -> Iterator[list[int]]:
    listed = list(values)
    for start in range(0, len(listed), _CHUNK):
        yield listed[start : start + _CHUNK]


def rerate(session: Session, new_games: Collection[int]) -> None:
    """Bring the ratings up to date with ``new_games`` (``game.id``s), just stored.

    Call in the transaction that stores them, after a flush. Adds their results to their
    versions' and pairs' totals, and recomputes the Elo history from the first of them in
    ``GAME_ORDER`` on. Costs what the new games touch, not the length of the history.

    Raises:
        LadderError: a version that played before has no ``version_rating`` row (the
            derived tables were damaged: ``rebuild`` repairs them).
    """
    new = [
        GameRow(*row)
        for chunk in _chunks(new_games)
        for row in session.exec(_same_bot_games().where(col(Game.id).in_(chunk)))
    ]
    if not new:
        return
    results, pairs = _totals(new)
    _add_results(session, results)
    _add_pairs(session, pairs)
    first = min(new, key=lambda row: row.order)
    _replay_tail(session, _tail(session, first), {row.id for row in new})


def _tail(session: Session, first: GameRow) -> list[GameRow]:
    """The stored games from ``first`` on, in ``GAME_ORDER``: ranges of one index.

    Later rounds are read only if there are any (the newest round is one step down the
    index): a range that is empty is not left to the database's statistics, which after
    a bulk import can make PostgreSQL read the whole table to find nothing.
    """
    queries = [
        _same_bot_games().where(Game.round == first.round, col(Game.match_id) >= first.match_id)
    ]
    if session.exec(select(func.max(Game.round))).one() != first.round:
        queries.append(_same_bot_games().where(col(Game.round) > first.round))
    rows = [GameRow(*row) for query in queries for row in session.exec(query)]
    return sorted((row for row in rows if row.order >= first.order), key=lambda row: row.order)


def _replay_tail(session: Session, tail: list[GameRow], new: set[int]) -> None:
    """Replace the Elo history of the games of ``tail`` (the last games in ``GAME_ORDER``,
    ``new`` ones without history yet), starting from the ratings before the first.

    The new rows are written in ``GAME_ORDER``, after every row kept: a version's rows
    by id are its games in that order (``browse.rating_history`` reads them so)."""
    position = {row.id: i for i, row in enumerate(tail)}
    start: dict[int, tuple[int, float]] = {}  # version: (position of its first row, before)
    for chunk in _chunks(row.id for row in tail if row.id not in new):
        in_chunk = col(RatingHistory.game_id).in_(chunk)
        for version, game, before in session.exec(
            select(
                RatingHistory.version_id, RatingHistory.game_id, RatingHistory.rating_before
            ).where(in_chunk)
        ):
            if version not in start or position[game] < start[version][0]:
                start[version] = (position[game], before)
        session.exec(delete(RatingHistory).where(in_chunk))
    versions = {version for row in tail for version in (row.a_version, row.b_version)}
    stored = _version_ratings(session, versions)
    if missing := versions - stored.keys():
        raise LadderError(
            f"the ratings of versions {sorted(missing)} are missing (damaged ratings tables): "
            "`pitch ladder rerate` recomputes them from the games"
        )
    elo = {
        version: start[version][1] if version in start else stored[version].elo
        for version in versions
    }
    _insert(session, RatingHistory, _replay(tail, elo))
    for version in versions:
        stored[version].elo = elo[version]


def _replay(rows: Iterable[GameRow], elo: dict[int, float]) -> list[dict[str, Any]]:
    """Play ``rows`` (in ``GAME_ORDER``) into ``elo`` in place; their Elo history rows."""
    history = []
    for row in rows:
        a, b = row.a_version, row.b_version
        before_a, before_b = elo.get(a, INITIAL_RATING), elo.get(b, INITIAL_RATING)
        elo[a], elo[b] = elo_step(before_a, before_b, row.a_score)
        history += [
            {"version_id": a, "game_id": row.id, "rating": elo[a], "rating_before": before_a},
            {"version_id": b, "game_id": row.id, "rating": elo[b], "rating_before": before_b},
        ]
    return history


_Results = dict[int, list[int]]
"""Version: games, wins, losses, draws."""
_Pairs = dict[tuple[int, int], list[float]]
"""(lower version, higher version): games, the lower one's points."""


def _totals(rows: Iterable[GameRow]) -> tuple[_Results, _Pairs]:
    results: _Results = {}
    pairs: _Pairs = {}
    for row in rows:
        for version, score in ((row.a_version, row.a_score), (row.b_version, 1.0 - row.a_score)):
            counts = results.setdefault(version, [0, 0, 0, 0])
            counts[0] += 1
            counts[{1.0: 1, 0.0: 2}.get(score, 3)] += 1
        low, high = sorted((row.a_version, row.b_version))
        points = row.a_score if low == row.a_version else 1.0 - row.a_score
        pair = pairs.setdefault((low, high), [0, 0.0])
        pair[0] += 1
        pair[1] += points
    return results, pairs


def _version_ratings(session: Session, versions: Collection[int]) -> dict[int, VersionRating]:
    return {
        row.version_id: row
        for chunk in _chunks(versions)
        for row in session.exec(
            select(VersionRating).where(col(VersionRating.version_id).in_(chunk))
        )
    }


def _add_results(session: Session, results: _Results) -> None:
    stored = _version_ratings(session, results)
    for version, (games, wins, losses, draws) in results.items():
        row = stored.get(version)
        if row is None:
            row = VersionRating.model_validate(
                {
                    "version_id": version,
                    "elo": INITIAL_RATING,
                    "games": 0,
                    "wins": 0,
                    "losses": 0,
                    "draws": 0,
                }
            )
            session.add(row)
        row.games += games
        row.wins += wins
        row.losses += losses
        row.draws += draws


def _add_pairs(session: Session, pairs: _Pairs) -> None:
    for (low, high), (games, points) in pairs.items():
        row = session.get(PairTotal, (low, high))
        if row is None:
            row = PairTotal.model_validate(
                {"a_version_id": low, "b_version_id": high, "games": 0, "a_points": 0.0}
            )
            session.add(row)
        row.games += int(games)
        row.a_points += points


def _insert(session: Session, table: type[SQLModel], rows: list[dict[str, Any]]) -> None:
    """Many rows at once, without making an object of each (``bulk``: ``COPY`` on
    PostgreSQL)."""
    step = 10 * _CHUNK
    for start in range(0, len(rows), step):
        insert_rows(session.connection(), table, rows[start : start + step])


def rebuild(session: Session) -> int:
    """Recompute every derived table from the games: a repair, costing a replay of all.

    The Elo history, each version's Elo and results, the pair totals, and the fit (on the
    next read). Call in a transaction of its own; commits nothing. Returns the games read.
    """
    for table in (RatingHistory, VersionRating, PairTotal, FitRating, FitState):
        session.exec(delete(table))
    forget_team_ratings(session)
    rows = sorted(
        (GameRow(*row) for row in session.exec(_same_bot_games())),
        key=lambda row: row.order,
    )
    elo: dict[int, float] = {}
    _insert(session, RatingHistory, _replay(rows, elo))
    results, pairs = _totals(rows)
    _insert(
        session,
        VersionRating,
        [
            {"version_id": v, "elo": elo[v], "games": g, "wins": w, "losses": lo, "draws": d}
            for v, (g, w, lo, d) in results.items()
        ],
    )
    _insert(
        session,
        PairTotal,
        [
            {"a_version_id": low, "b_version_id": high, "games": g, "a_points": points}
            for (low, high), (g, points) in pairs.items()
        ],
    )
    return len(rows)


@dataclass(frozen=True)
class Fit:
    """The Bradley-Terry fit of every stored game, by version id (``current_fit``)."""

    ratings: dict[int, Rating]
    groups: list[list[int]]
    """``ratings.connected_groups`` of the versions: largest first."""


def current_fit(session: Session) -> Fit:
    """The fit of the games stored now: the one kept, or (after a change) a new one, kept.

    A new fit starts from the kept one's ratings, which new games move little: a step or
    two of the fit instead of a handful. The newest game id is read first and the pair
    totals after it: a game stored in between is then in the fit but not in its mark,
    which costs one more fit, never a stale one. Keeping the fit is best effort: when
    another command wrote it first, or the database refuses the write (busy, read-only),
    the fit is returned all the same.
    """
    through = session.exec(select(func.max(Game.id))).one()
    state = session.get(FitState, FIT_ROW)
    if state is not None and state.through_game_id == through:
        return _kept_fit(session)
    start = dict(session.exec(select(FitRating.version_id, FitRating.rating)).all())
    values = _pair_totals(session)
    fitted = fit_arrays_by_group(
        values[:, 0].astype(np.int64),
        values[:, 1].astype(np.int64),
        values[:, 2],
        values[:, 3],
        start=start,
    )
    fit = Fit(fitted.ratings, fitted.groups)
    _keep_fit(session, fit, through)
    return fit


def kept_fit(session: Session) -> tuple[Fit, bool] | None:
    """The fit kept in the database, and whether it is of the games stored now; ``None``
    when none is kept. For readers that would rather show the last fit at once than wait
    for a new one (the web's standings, while a background refit runs: ``KeptFit``)."""
    return KeptFit()(session)


class KeptFit:
    """``kept_fit`` for a server's readers: the fit's rows are read again only when a new
    fit has been kept (``fit_state`` changed), so that a read after new games costs two
    small queries, not the fit of every version."""

    def __init__(self) -> None:
        self._read: tuple[tuple[int | None, datetime], Fit] | None = None

    def __call__(self, session: Session) -> tuple[Fit, bool] | None:
        """``kept_fit(session)``, from memory while the kept fit is the one read last."""
        state = session.get(FitState, FIT_ROW)
        if state is None:
            return None
        through = session.exec(select(func.max(Game.id))).one()
        mark = (state.through_game_id, state.fitted_at)
        read = self._read
        if read is None or read[0] != mark:
            read = self._read = (mark, _kept_fit(session))  # one assignment: thread safe
        return read[1], state.through_game_id == through


def _pair_totals(session: Session) -> np.ndarray:
    """Every row of ``pair_total`` (a, b, games, a's points) as an array.

    PostgreSQL sends each column as one string of bytes, read as an array without a Python
    object a value (half the time of the rows at ten thousand bots); SQLite's rows are
    read by the driver.
    """
    if session.get_bind().dialect.name == "postgresql":
        columns = driver_rows(
            session,
            "SELECT string_agg(int4send(a_version_id), ''), string_agg(int4send(b_version_id), "
            "''), string_agg(int4send(games), ''), string_agg(float8send(a_points), '') "
            f"FROM {PairTotal.__tablename__}",
        )[0]
        if columns[0] is None:  # no rows
            return np.empty((0, 4))
        return np.column_stack(
            [np.frombuffer(column, ">i4") for column in columns[:3]]
            + [np.frombuffer(columns[3], ">f8")]
        ).astype(float)
    rows = driver_rows(
        session,
        f"SELECT a_version_id, b_version_id, games, a_points FROM {PairTotal.__tablename__}",
    )
    values = np.fromiter(chain.from_iterable(rows), dtype=float, count=4 * len(rows))
    return values.reshape(-1, 4)


def _kept_fit(session: Session) -> Fit:
    ratings: dict[int, Rating] = {}
    groups: dict[int, list[int]] = {}
    for version, rating, lower, upper, games, group in driver_rows(
        session,
        "SELECT version_id, rating, lower, upper, games, group_index "
        f"FROM {FitRating.__tablename__}",
    ):
        ratings[version] = Rating(rating, lower, upper, games)
        groups.setdefault(group, []).append(version)
    return Fit(dict(sorted(ratings.items())), [sorted(groups[i]) for i in sorted(groups)])


def _keep_fit(session: Session, fit: Fit, through: int | None) -> None:
    """Keep ``fit`` with where each line of the standings stands by it (``placements``)."""
    from .standings import placements  # which imports this module

    group_of = {version: i for i, group in enumerate(fit.groups) for version in group}
    placed = placements(session, fit)
    rows = [
        (
            version,
            rating.rating,
            rating.lower,
            rating.upper,
            rating.games,
            group_of[version],
            *placed.get(version, (None, None, None)),
        )
        for version, rating in fit.ratings.items()
    ]
    refused: tuple[type[Exception], ...] = (
        DBAPIError,
        session.get_bind().dialect.loaded_dbapi.Error,
    )
    try:
        session.exec(delete(FitRating))
        _write_fit_rows(session, rows)
        state = session.get(FitState, FIT_ROW) or FitState.model_validate({"id": FIT_ROW})
        state.through_game_id, state.fitted_at = through, now()
        session.add(state)
        session.commit()
    except refused:
        session.rollback()


_FIT_COLUMNS = (
    "version_id",
    "rating",
    "lower",
    "upper",
    "games",
    "group_index",
    "place",
    "rank",
    "group_number",
)
"""The columns of ``fit_rating`` that ``_keep_fit`` writes, in its rows' order."""


def _write_fit_rows(session: Session, rows: list[tuple[Any, ...]]) -> None:
    """``rows`` into ``fit_rating`` (``_insert``: by ``COPY`` on PostgreSQL, a tenth of the
    time of inserting ten thousand rows)."""
    _insert(session, FitRating, [dict(zip(_FIT_COLUMNS, row, strict=True)) for row in rows])
