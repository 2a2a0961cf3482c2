"""Ratings from the stored games: kept up to date as games are stored, read by the standings.

Players are bot *versions*: a new version is a new player and starts afresh.

Sequential Elo (``ratings.elo_step``: initial 1500, K = 16) runs over every stored game
in one fixed order, ``GAME_ORDER``: round, then match id (matches are created in
round-robin order when a round is scheduled), then the game's id within its match
(``pair-00000-a`` before ``pair-00000-b``). The order does not depend on when a game
finished or was imported, so the same games always give the same ratings, however a run
was interrupted and resumed or however many workers played it.

Everything the standings show is kept in tables that storing a game updates, in the same
transaction (``rerate``), so that no read needs every game and storing a game costs the
same however long the history:

- ``rating_history``: each version's rating before and after each of its games;
- ``version_rating``: each version's current Elo, games, wins, losses and draws;
- ``pair_total``: the games between two versions, summed: all the fit reads.

When games are imported out of order (parallel matches finish in any order), the Elo
history is recomputed from the first new game on, starting from the ratings stored
before it: only the games after it are read, normally a few (matches are imported as
they finish, in about the order they were scheduled). ``rebuild`` recomputes all of it
from the games, as a repair (``pitch ladder rerate``).

The standings rank by the Bradley-Terry maximum-likelihood fit of all games
(``ratings.fit_arrays_by_group`` of the pair totals), which ignores their order, so two
bots with the same results always get the same rating and the same rank; the sequential
Elo is shown beside it. The fit is computed on the first read after the games change and
kept (``fit_rating``, valid while ``fit_state`` names the newest game). Bots whose results
do not connect (groups that never met, directly or through other bots,
``ratings.connected_groups``) have no common scale: each group is fitted and ranked on
its own, and each line says which group it is in.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import chain, groupby
from typing import Any, NamedTuple

import numpy as np
from sqlalchemy import delete, func, insert
from sqlalchemy.exc import DBAPIError
from sqlmodel import Session, col, select

from pitch_referee.team_ratings import TeamRating

from .errors import LadderError
from .models import (
    Bot,
    BotVersion,
    FitRating,
    FitState,
    Game,
    PairTotal,
    RatingHistory,
    VersionRating,
    now,
)
from .partnerships import forget_team_ratings, team_ratings
from .ratings import INITIAL_RATING, Rating, elo_step, fit_arrays_by_group

GAME_ORDER = "round, match id, game id"
_CHUNK = 1000  # ids per ... IN (...), well under every database's parameter limit
FIT_ROW = 1
"""The id of the one ``fit_state`` row."""

RATING_TIE = 1e-6
"""Fitted ratings closer than this many Elo points are a tie: one rank, listed by name.

Two bots with the same results get the same rating up to rounding (far below this), and
the fit converges far closer than this.
"""


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
    return select(*_GAME_COLUMNS).where(col(Game.a_partner_version_id).is_(None))


class LatestVersion(NamedTuple):
    """A bot and its latest version."""

    bot: Bot
    version: BotVersion


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
        session.exec(delete(RatingHistory).where(in_chunk))  # type: ignore[call-overload]
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


def _insert(session: Session, table: type, rows: list[dict[str, Any]]) -> None:
    """Many rows at once, without making an object of each."""
    step = 10 * _CHUNK
    for start in range(0, len(rows), step):
        session.connection().execute(insert(table), rows[start : start + step])


def rebuild(session: Session) -> int:
    """Recompute every derived table from the games: a repair, costing a replay of all.

    The Elo history, each version's Elo and results, the pair totals, and the fit (on the
    next read). Call in a transaction of its own; commits nothing. Returns the games read.
    """
    for table in (RatingHistory, VersionRating, PairTotal, FitRating, FitState):
        session.exec(delete(table))  # type: ignore[call-overload]
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
class Standing:
    """One line of the standings table."""

    rank: int | None
    """Rank within the line's group by the fit (1 is the best; tied ratings share a rank,
    listed by name); ``None`` before any game."""
    group: int | None
    """Which group of bots whose results connect (``ratings.connected_groups``) the version
    is in: 1 is the group with the most bots shown; ``None`` before any game. Ratings are
    comparable only within a group."""
    bot: str
    version: str
    """The manifest's version and the first 8 digits of the content hash."""
    fit: Rating | None
    """Bradley-Terry rating within the group, with its 95% interval (``None`` before any
    game): the ranking."""
    elo: float
    """Sequential Elo after the version's last game (``INITIAL_RATING`` before any)."""
    games: int
    wins: int
    losses: int
    draws: int
    team: TeamRating | None = None
    """The team model's rating from the version's team matches (``partnerships``), with
    its games; ``None`` when it has played none. Elo, the fit and the counts above are
    of its same-bot games."""

    @property
    def score(self) -> float | None:
        """Points per game (a draw is half a point), or ``None`` before any game."""
        return (self.wins + self.draws / 2) / self.games if self.games else None


def version_label(version: BotVersion) -> str:
    """``1.0 (3fa2c1d4)``: the manifest's version and the start of the content hash."""
    return label_of(version.manifest_version, version.content_hash)


def label_of(manifest_version: str, content_hash: str) -> str:
    """``version_label`` from the two columns, for queries that read only those."""
    return f"{manifest_version} ({content_hash[:8]})"


def latest_versions(session: Session, include_retired: bool = False) -> list[LatestVersion]:
    """Each bot with its latest version, by name; retired bots only if asked."""
    latest = (
        select(BotVersion.bot_id, func.max(BotVersion.id).label("id"))
        .group_by(col(BotVersion.bot_id))
        .subquery()
    )
    query = (
        select(Bot, BotVersion)
        .join(latest, col(Bot.id) == latest.c.bot_id)
        .join(BotVersion, col(BotVersion.id) == latest.c.id)
        .order_by(col(Bot.name))
    )
    if not include_retired:
        query = query.where(col(Bot.active))
    return [LatestVersion(bot, version) for bot, version in session.exec(query).all()]


class LatestRow(NamedTuple):
    """A bot and its latest version with its results, as plain columns (``latest_rows``)."""

    bot_id: int
    name: str
    active: bool
    version_id: int
    manifest_version: str
    content_hash: str
    folder: str
    elo: float | None
    """``None``: the version has not played (no ``version_rating`` row)."""
    games: int | None
    wins: int | None
    losses: int | None
    draws: int | None

    @property
    def label(self) -> str:
        """``version_label``."""
        return label_of(self.manifest_version, self.content_hash)


def latest_rows(session: Session, include_retired: bool = False) -> list[LatestRow]:
    """``latest_versions`` with each version's results, as columns in one query: a
    thousand bots read without making an object of each row (a third of the time)."""
    latest = (
        select(BotVersion.bot_id, func.max(BotVersion.id).label("id"))
        .group_by(col(BotVersion.bot_id))
        .subquery()
    )
    query = (
        select(
            Bot.id,
            Bot.name,
            Bot.active,
            BotVersion.id,
            BotVersion.manifest_version,
            BotVersion.content_hash,
            BotVersion.folder,
            VersionRating.elo,
            VersionRating.games,
            VersionRating.wins,
            VersionRating.losses,
            VersionRating.draws,
        )
        .join(latest, col(Bot.id) == latest.c.bot_id)
        .join(BotVersion, col(BotVersion.id) == latest.c.id)
        .outerjoin(VersionRating, col(VersionRating.version_id) == col(BotVersion.id))
        .order_by(col(Bot.name))
    )
    if not include_retired:
        query = query.where(col(Bot.active))
    return [LatestRow(*row) for row in session.exec(query).all()]


@dataclass(frozen=True)
class Fit:
    """The Bradley-Terry fit of every stored game, by version id (``current_fit``)."""

    ratings: dict[int, Rating]
    groups: list[list[int]]
    """``ratings.connected_groups`` of the versions: largest first."""


def current_fit(session: Session) -> Fit:
    """The fit of the games stored now: the one kept, or (after a change) a new one, kept.

    The newest game id is read first and the pair totals after it: a game stored in
    between is then in the fit but not in its mark, which costs one more fit, never a
    stale one. Keeping the fit is best effort: when another command wrote it first, or
    the database refuses the write (busy, read-only), the fit is returned all the same.
    """
    through = session.exec(select(func.max(Game.id))).one()
    state = session.get(FitState, FIT_ROW)
    if state is not None and state.through_game_id == through:
        return _kept_fit(session)
    values = _pair_totals(session)
    fitted = fit_arrays_by_group(
        values[:, 0].astype(np.int64), values[:, 1].astype(np.int64), values[:, 2], values[:, 3]
    )
    fit = Fit(fitted.ratings, fitted.groups)
    _keep_fit(session, fit, through)
    return fit


def kept_fit(session: Session) -> tuple[Fit, bool] | None:
    """The fit kept in the database, and whether it is of the games stored now; ``None``
    when none is kept. For readers that would rather show the last fit at once than wait
    for a new one (the web's standings, while a background refit runs)."""
    state = session.get(FitState, FIT_ROW)
    if state is None:
        return None
    through = session.exec(select(func.max(Game.id))).one()
    return _kept_fit(session), state.through_game_id == through


def _pair_totals(session: Session) -> np.ndarray:
    """Every row of ``pair_total`` (a, b, games, a's points) as an array, through the
    driver's own cursor: a third of the time of result rows at half a million pairs."""
    cursor = session.connection().connection.driver_connection.cursor()
    try:
        cursor.execute(
            f"SELECT a_version_id, b_version_id, games, a_points FROM {PairTotal.__tablename__}"
        )
        rows = cursor.fetchall()
    finally:
        cursor.close()
    values = np.fromiter(chain.from_iterable(rows), dtype=float, count=4 * len(rows))
    return values.reshape(-1, 4)


def _kept_fit(session: Session) -> Fit:
    ratings, groups = {}, {}
    for version, rating, lower, upper, games, group in session.exec(
        select(
            FitRating.version_id,
            FitRating.rating,
            FitRating.lower,
            FitRating.upper,
            FitRating.games,
            FitRating.group_index,
        )
    ):
        ratings[version] = Rating(rating, lower, upper, games)
        groups.setdefault(group, []).append(version)
    return Fit(dict(sorted(ratings.items())), [sorted(groups[i]) for i in sorted(groups)])


def _keep_fit(session: Session, fit: Fit, through: int | None) -> None:
    group_of = {version: i for i, group in enumerate(fit.groups) for version in group}
    rows = [
        {
            "version_id": version,
            "rating": rating.rating,
            "lower": rating.lower,
            "upper": rating.upper,
            "games": rating.games,
            "group_index": group_of[version],
        }
        for version, rating in fit.ratings.items()
    ]
    try:
        session.exec(delete(FitRating))  # type: ignore[call-overload]
        _insert(session, FitRating, rows)
        state = session.get(FitState, FIT_ROW) or FitState.model_validate({"id": FIT_ROW})
        state.through_game_id, state.fitted_at = through, now()
        session.add(state)
        session.commit()
    except DBAPIError:
        session.rollback()


def standings(
    session: Session, include_retired: bool = False, fit: Fit | None = None
) -> list[Standing]:
    """The latest version of each bot, ranked within its group by the Bradley-Terry fit.

    Every stored game counts, old versions' and retired bots' included: they rate their
    opponents, and they can connect two bots that never met. Lines come group by group
    (group 1 first), each ranked by fitted rating (``RATING_TIE``: equal ratings share a
    rank and are listed by name), then the versions without games, by name.

    Reads the bots, their latest versions and their ratings' rows, never the games (but
    to fit them again after a change: ``current_fit``, unless ``fit`` is given).
    """
    fit = fit or current_fit(session)
    teams = team_ratings(session)
    shown = latest_rows(session, include_retired)
    groups = _number_groups(fit.groups, {row.version_id: row.name for row in shown})
    lines = [
        Standing(
            rank=None,
            group=groups.get(row.version_id),
            bot=row.name,
            version=row.label,
            fit=fit.ratings.get(row.version_id),
            elo=INITIAL_RATING if row.elo is None else row.elo,
            games=row.games or 0,
            wins=row.wins or 0,
            losses=row.losses or 0,
            draws=row.draws or 0,
            team=teams.get(row.version_id),
        )
        for row in shown
    ]
    return _ranked(lines)


def _number_groups(groups: Sequence[list[int]], names: Mapping[int, str]) -> dict[int, int]:
    """Group numbers of the shown versions (``names``: version id to bot name).

    Only groups with a shown version are numbered: the most shown versions first, equal
    counts in the order of their first bot names.
    """
    shown = [sorted(names[key] for key in group if key in names) for group in groups]
    order = sorted(
        (i for i, group in enumerate(shown) if group), key=lambda i: (-len(shown[i]), shown[i])
    )
    number = {i: n for n, i in enumerate(order, start=1)}
    return {key: number[i] for i, group in enumerate(groups) for key in group if key in names}


def _ranked(lines: list[Standing]) -> list[Standing]:
    """Lines by group, ranked within it by fitted rating; then the lines without games."""
    rated = sorted(
        (line for line in lines if line.fit is not None and line.group is not None),
        key=lambda line: (line.group, -_rating(line)),
    )
    ranked = []
    for _group, members in groupby(rated, key=lambda line: line.group):
        ties: list[list[Standing]] = []
        for line in members:
            if ties and _rating(ties[-1][0]) - _rating(line) <= RATING_TIE:
                ties[-1].append(line)
            else:
                ties.append([line])
        rank = 1
        for tie in ties:
            ranked += [replace(line, rank=rank) for line in sorted(tie, key=lambda x: x.bot)]
            rank += len(tie)
    unrated = [line for line in lines if line.fit is None or line.group is None]
    return ranked + sorted(unrated, key=lambda line: line.bot)


def _rating(line: Standing) -> float:
    assert line.fit is not None
    return line.fit.rating
