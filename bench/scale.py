"""What the ladder's reads, a stored game and the start of a run cost as the ladder grows.

Run by hand (never by the tests)::

    uv run python bench/scale.py                          # 10/1,000 and 100/100,000, SQLite
    uv run python bench/scale.py --sizes 1000x1000000 --db sqlite,postgresql \\
        --postgres postgresql://USER@HOST:PORT/DATABASE
    uv run python bench/scale.py --sizes '' --standings 1000x1000000,10000x10000000 \\
        --db sqlite,postgresql

Results go in ``bench/RESULTS.md`` under "## scale".

Each size is a synthetic ladder of N bots (one version each) and G games, built with bulk
inserts through the ladder's own tables: one round robin scheduled by the ladder's own
``schedule_rounds`` (so the match rows are the real ones), G games spread evenly over its
matches, each a result drawn from fixed bot strengths and the record of a real one-hand
game (2.7 KB), then the ladder's own repair (``Ladder.rerate``) fills the rating tables.
Then, through the ``Ladder`` methods the commands call (median of ``--repeats``):

- standings: the first read after the games changed (it fits them) and a read after it
  (the kept fit);
- a games page: the newest 50; a page deep in the history (``before`` the middle game);
  a bot's newest 50;
- a game, its record included; the bots list;
- storing a game: one more game and its ratings, as a poll of ``ladder run`` stores it;
- the start of a run: ``Ladder.run`` until its first match is handed to the executor (a
  new round robin is scheduled first: N (N - 1) / 2 match rows).

With ``--standings BOTSxGAMES`` (e.g. ``10000x10000000``), the standings at a size no
round robin reaches, as a scheduler plays them: each bot against its ``--neighbours``
nearest in strength on each side and ``--spread`` bots at even steps down the field
(placement), the games of each pair summed. Only the tables the standings read are built
(``pair_total``, ``version_rating``: storing ten million records is not what is measured),
plus one match whose games are stored as a poll stores them. Then:

- the fit alone, on the pair totals in memory (at most 2,000 bots, also the dense Newton
  solve it replaced, ``pitch_testkit.dense_bradley_terry``, for the ratio);
- a cold refit: ``current_fit`` with no fit kept (read the totals, fit, keep the fit);
- the web's page of the standings (``PAGE`` lines, the API's default) with the kept fit, at
  the top and in the middle, and every line at once (``Ladder.standings``, the read before
  pages), then the page's first read after a new game (the kept fit, stale, while a refit
  starts in the background: the read the target is about);
- the refit after new games (``current_fit``, started from the kept fit), as the
  background one and ``pitch ladder standings`` run it.

PostgreSQL ladders are built in a schema of their own, dropped afterwards.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import random
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future
from pathlib import Path
from typing import Any
from urllib.parse import quote

import numpy as np
from sqlalchemy import create_engine, func, insert, text, update
from sqlmodel import Session, col, select

from pitch_ladder.database import database_url
from pitch_ladder.errors import LadderError
from pitch_ladder.game_query import GameQuery
from pitch_ladder.ladder import Ladder
from pitch_ladder.models import (
    Bot,
    BotVersion,
    Game,
    GameRecord,
    Match,
    PairTotal,
    VersionRating,
    now,
)
from pitch_ladder.rating_tables import _pair_totals, current_fit, rerate
from pitch_ladder.ratings import _tabulate, fit_arrays_by_group
from pitch_ladder.schedule_writer import schedule_rounds
from pitch_sdk.bots import GreedyBot
from pitch_sdk.options import RuleOptions
from pitch_sdk.selfplay import play_game
from pitch_testkit.dense_bradley_terry import dense_fit  # the reference
from pitch_web.routes.api import PAGE
from pitch_web.source import LadderSource

RULES = {"hand_cap": 1}
CHUNK = 20_000
DEFAULT_SIZES = "10x1000,100x100000"
DENSE_UP_TO = 2000
"""The dense Newton solve is timed up to this many bots (its cost grows with their cube)."""


def record() -> dict[str, Any]:
    """A real one-hand game's record, as JSON: what every synthetic game stores."""
    bots = [GreedyBot(seat) for seat in range(4)]
    return play_game(bots, 7, RuleOptions.from_dict(RULES)).to_json()


def build(ladder: Ladder, bots: int, games: int, seed: int = 1) -> dict[str, float]:
    """Fill ``ladder`` with ``bots`` bots and ``games`` games; the seconds each step took."""
    rng = random.Random(seed)
    took: dict[str, float] = {}
    started = time.perf_counter()
    engine = ladder.engine
    with Session(engine) as session:
        _add_bots(session, bots)
        session.commit()
    pairs = bots * (bots - 1) // 2
    per_match = math.ceil(games / pairs)
    schedule_rounds(engine, 1, per_match + per_match % 2, RULES)
    took["schedule"] = time.perf_counter() - started

    started = time.perf_counter()
    strength = {n: rng.gauss(0.0, 200.0) for n in range(1, bots + 1)}  # by version id
    text_record = record()
    with Session(engine) as session:
        matches = session.exec(
            select(
                Match.id, Match.round, Match.a_version_id, Match.b_version_id, Match.folder
            ).order_by(col(Match.id))
        ).all()
        rows = _games(matches, games, strength, rng)
        number = 0
        for chunk in _chunked(rows):
            first = number + 1
            for row in chunk:
                number += 1
                row["id"] = number
            session.connection().execute(insert(Game), chunk)
            session.connection().execute(
                insert(GameRecord),
                [{"game_id": n, "record": text_record} for n in range(first, number + 1)],
            )
        session.exec(update(Match).values(status="finished", finished_at=now()))
        if engine.dialect.name == "postgresql":  # ids were given: move the sequence past them
            session.connection().execute(
                text("SELECT setval(pg_get_serial_sequence('game', 'id'), :last)"),
                {"last": number},
            )
        session.commit()
    took["games"] = time.perf_counter() - started
    started = time.perf_counter()
    assert ladder.rerate() == games
    took["rerate"] = time.perf_counter() - started
    if engine.dialect.name == "postgresql":  # as autovacuum soon would after a bulk import
        with engine.connect() as connection:
            connection.execution_options(isolation_level="AUTOCOMMIT").exec_driver_sql("ANALYZE")
    return took


def _games(
    matches: list[Any], games: int, strength: dict[int, float], rng: random.Random
) -> Iterator[dict[str, Any]]:
    """``games`` game rows spread evenly over ``matches`` (the first ones get one more)."""
    base, extra = divmod(games, len(matches))
    stamp = now()
    for index, (match_id, round_number, a, b, folder) in enumerate(matches):
        p = 1.0 / (1.0 + 10.0 ** ((strength[b] - strength[a]) / 400.0))
        for k in range(base + (index < extra)):
            roll = rng.random()
            score = 0.5 if roll < 0.03 else 1.0 if roll < 0.03 + 0.97 * p else 0.0
            game_id = f"pair-{k // 2:05d}-{'ab'[k % 2]}"
            a_points = rng.randint(0, 13)
            yield {
                "match_id": match_id,
                "round": round_number,
                "a_version_id": a,
                "b_version_id": b,
                "game_id": game_id,
                "a_team": k % 2,
                "a_score": score,
                "b_score": 1.0 - score,
                "a_points": a_points,
                "b_points": 13 - a_points,
                "faults": 0,
                "termination": "hand_cap",
                "record_path": f"{folder}/games/{game_id}.json",
                "finished_at": stamp,
            }


def _chunked(rows: Iterator[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    chunk: list[dict[str, Any]] = []
    for row in rows:
        chunk.append(row)
        if len(chunk) == CHUNK:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def timed(call: Callable[[], Any], repeats: int) -> float:
    """The median seconds of ``repeats`` calls."""
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


class _FirstMatch(Executor):
    """Notes when the first match is handed over, then refuses it (the run stops there)."""

    def __init__(self) -> None:
        self.at: float | None = None

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        self.at = time.perf_counter()
        raise RuntimeError("the benchmark stops at the first match")


def store_one(ladder: Ladder) -> None:
    """One more game of the newest match, stored with its ratings as a poll stores it."""
    with Session(ladder.engine) as session:
        match = session.exec(select(Match).order_by(col(Match.id).desc()).limit(1)).first()
        assert match is not None and match.id is not None
        count = session.exec(select(func.count()).where(Game.match_id == match.id)).one()
        game = Game.model_validate(
            {
                "match_id": match.id,
                "round": match.round,
                "a_version_id": match.a_version_id,
                "b_version_id": match.b_version_id,
                "game_id": f"pair-{50_000 + count:05d}-a",
                "a_team": 0,
                "a_score": 1.0,
                "b_score": 0.0,
                "a_points": 7,
                "b_points": 6,
                "faults": 0,
                "termination": "hand_cap",
                "record_path": "x.json",
                "finished_at": now(),
            }
        )
        session.add(game)
        session.flush()
        assert game.id is not None
        session.add(GameRecord.model_validate({"game_id": game.id, "record": {}}))
        rerate(session, {game.id})
        session.commit()


def measure(ladder: Ladder, repeats: int) -> dict[str, float]:
    """Seconds per read (medians), storing a game, and the start of a run."""
    results: dict[str, float] = {}
    started = time.perf_counter()
    ladder.standings()
    results["standings, first read (fit)"] = time.perf_counter() - started
    results["standings, kept fit"] = timed(ladder.standings, repeats)
    newest = ladder.games(GameQuery(limit=1))[0].id
    middle = newest // 2
    results["games page (newest 50)"] = timed(ladder.games, repeats)
    results["games page, deep (before the middle game)"] = timed(
        lambda: ladder.games(GameQuery(before=middle)), repeats
    )
    results["games page of a bot"] = timed(lambda: ladder.games(GameQuery(bot="bot00001")), repeats)
    results["a game (with its record)"] = timed(lambda: ladder.game(middle), repeats)
    results["bots"] = timed(ladder.bots, repeats)
    results["storing a game (and its ratings)"] = timed(lambda: store_one(ladder), repeats)
    stopper = _FirstMatch()
    started = time.perf_counter()
    with contextlib.suppress(LadderError):  # the executor refuses the first match
        ladder.run(1, 2, RULES, executor=stopper, trust_bots=True)
    assert stopper.at is not None, "the run never handed out a match"
    results["start of a run (to the first match)"] = stopper.at - started
    return results


def _postgres_schema(url: str, folder: Path) -> tuple[str, Callable[[], None]]:
    """A fresh schema on ``url``: the URL that selects it, and a function that drops it."""
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    admin = create_engine(database_url(folder, url))
    with admin.begin() as connection:
        connection.execute(text(f"CREATE SCHEMA {schema}"))

    def drop() -> None:
        with admin.begin() as connection:
            connection.execute(text(f"DROP SCHEMA {schema} CASCADE"))
        admin.dispose()

    separator = "&" if "?" in url else "?"
    return f"{url}{separator}options={quote(f'-csearch_path={schema}')}", drop


def run_size(
    kind: str, bots: int, games: int, repeats: int, postgres: str | None, scratch: Path
) -> dict[str, float]:
    folder = scratch / f"{kind}-{bots}-{games}"
    drop: Callable[[], None] = lambda: None  # noqa: E731
    url = None
    if kind == "postgresql":
        if not postgres:
            raise SystemExit("--postgres URL (or PITCH_TEST_POSTGRES_URL) is needed")
        url, drop = _postgres_schema(postgres, scratch)
    try:
        with Ladder.init(folder, url) as ladder:
            took = build(ladder, bots, games)
            print(f"  built in {json.dumps({k: round(v, 1) for k, v in took.items()})} s")
            results = measure(ladder, repeats)
    finally:
        drop()
    return {**{f"build: {k}": v for k, v in took.items()}, **results}


def _add_bots(session: Session, bots: int) -> None:
    names = [f"bot{n:05d}" for n in range(bots)]
    session.connection().execute(
        insert(Bot), [{"name": name, "active": True, "created_at": now()} for name in names]
    )
    ids = dict(session.exec(select(Bot.name, Bot.id)).all())
    session.connection().execute(
        insert(BotVersion),
        [
            {
                "bot_id": ids[name],
                "content_hash": f"{n:064x}",
                "folder": f"bots/{name}/{n:012x}",
                "manifest_name": name,
                "manifest_version": "1",
                "command": ["python", "bot.py"],
                "description": "",
                "author": "",
                "submitted_at": now(),
            }
            for n, name in enumerate(names)
        ],
    )


def scheduler_pairs(
    bots: int, games: int, neighbours: int, spread: int, seed: int = 1
) -> tuple[np.ndarray, ...]:
    """Pair totals as a scheduler leaves them (version ids 1..bots, strongest first): each
    bot against its ``neighbours`` nearest on each side and ``spread`` bots at even steps
    down the field, ``games`` in all spread evenly, results drawn from the strengths."""
    rng = np.random.default_rng(seed)
    strength = np.sort(rng.normal(0.0, 200.0, bots))[::-1]
    index = np.arange(bots)
    a = np.concatenate([index[: bots - d] for d in range(1, neighbours + 1)] + [index] * spread)
    b = np.concatenate(
        [index[d:] for d in range(1, neighbours + 1)]
        + [(index + (s + 1) * bots // (spread + 1)) % bots for s in range(spread)]
    )
    low, high = np.minimum(a, b), np.maximum(a, b)
    keys = np.unique(low * bots + high)
    a, b = keys // bots, keys % bots
    played = rng.multinomial(games - len(a), np.full(len(a), 1.0 / len(a))) + 1
    p = 1.0 / (1.0 + 10.0 ** ((strength[b] - strength[a]) / 400.0))
    draws = rng.binomial(played, 0.03)
    wins = rng.binomial(played - draws, p)
    return a + 1, b + 1, played, wins + 0.5 * draws


def build_standings(
    ladder: Ladder, bots: int, games: int, neighbours: int, spread: int
) -> dict[str, float]:
    """The tables the standings read, for ``scheduler_pairs``; one match to store games in."""
    started = time.perf_counter()
    a, b, played, points = scheduler_pairs(bots, games, neighbours, spread)
    with Session(ladder.engine) as session:
        _add_bots(session, bots)
        rows = [
            {"a_version_id": x, "b_version_id": y, "games": n, "a_points": pts}
            for x, y, n, pts in zip(
                a.tolist(), b.tolist(), played.tolist(), points.tolist(), strict=True
            )
        ]
        for start in range(0, len(rows), CHUNK):
            session.connection().execute(insert(PairTotal), rows[start : start + CHUNK])
        size = bots + 1
        counts = np.bincount(a, played, size) + np.bincount(b, played, size)
        scored = np.bincount(a, points, size) + np.bincount(b, played - points, size)
        session.connection().execute(
            insert(VersionRating),
            [
                {
                    "version_id": v,
                    "elo": 1500.0,
                    "games": int(counts[v]),
                    "wins": int(scored[v]),
                    "losses": int(counts[v] - scored[v]),
                    "draws": 0,
                }
                for v in range(1, size)
            ],
        )
        session.add(
            Match.model_validate(
                {
                    "round": 1,
                    "a_version_id": 1,
                    "b_version_id": 2,
                    "seed": 1,
                    "games_planned": 2,
                    "settings": RULES,
                    "folder": "matches/r0001-bot00000-vs-bot00001",
                }
            )
        )
        session.commit()
    if ladder.engine.dialect.name == "postgresql":
        with ladder.engine.connect() as connection:
            connection.execution_options(isolation_level="AUTOCOMMIT").exec_driver_sql("ANALYZE")
    return {"pairs": float(len(a)), "tables": time.perf_counter() - started}


def measure_standings(ladder: Ladder, url: str | None, repeats: int) -> dict[str, float]:
    """Seconds of the fit, the refits and the web's reads (see the module's docstring); the
    ones the targets are about also in CPU seconds of this process, which a loaded machine
    stretches less than the wall clock."""
    results: dict[str, float] = {}
    with Session(ladder.engine) as session:
        values = _pair_totals(session)
    arrays = (values[:, 0].astype(np.int64), values[:, 1].astype(np.int64), *values[:, 2:].T)
    bots = len(np.unique(values[:, :2]))
    _clocked(results, "fit alone, sparse (the pair totals in memory)", fit_arrays_by_group, *arrays)
    if bots <= DENSE_UP_TO:
        _clocked(results, "fit alone, dense Newton (before)", dense_fit, _tabulate(*arrays))
    with Session(ladder.engine) as session:
        _clocked(results, "refit, cold (no fit kept): current_fit", current_fit, session)
    source = LadderSource(ladder.folder, url)
    top, deep = (lambda: source.standings(0, PAGE)), (lambda: source.standings(bots // 2, PAGE))
    try:
        top()
        results["web standings page, kept fit"] = timed(top, repeats)
        results["web standings page in the middle, kept fit"] = timed(deep, repeats)
        results["every line (Ladder.standings, kept fit: the read before pages)"] = timed(
            ladder.standings, repeats
        )
        store_one(ladder)
        page = _clocked(results, "web standings page, first read after a new game", top)
        assert page.total == bots and page.stale and len(page.lines) == PAGE
        source.refit.join(timeout=600)
    finally:
        source.close()
    refits = []
    for _ in range(repeats):
        store_one(ladder)
        with Session(ladder.engine) as session:
            clock = time.perf_counter(), time.process_time()
            current_fit(session)
            refits.append((time.perf_counter() - clock[0], time.process_time() - clock[1]))
    name = "refit after a new game (from the kept fit): current_fit"
    results[name] = statistics.median(wall for wall, _ in refits)
    results[f"{name}, CPU"] = statistics.median(cpu for _, cpu in refits)
    return results


def _clocked(results: dict[str, float], name: str, call: Callable[..., Any], *args: Any) -> Any:
    """``call(*args)``, its wall-clock and CPU seconds noted in ``results``."""
    clock = time.perf_counter(), time.process_time()
    value = call(*args)
    results[name] = time.perf_counter() - clock[0]
    results[f"{name}, CPU"] = time.process_time() - clock[1]
    return value


def run_standings(
    kind: str, bots: int, games: int, args: argparse.Namespace, scratch: Path
) -> dict[str, float]:
    folder = scratch / f"standings-{kind}-{bots}-{games}"
    drop: Callable[[], None] = lambda: None  # noqa: E731
    url = None
    if kind == "postgresql":
        if not args.postgres:
            raise SystemExit("--postgres URL (or PITCH_TEST_POSTGRES_URL) is needed")
        url, drop = _postgres_schema(args.postgres, scratch)
    try:
        with Ladder.init(folder, url) as ladder:
            took = build_standings(ladder, bots, games, args.neighbours, args.spread)
            print(f"  built: {int(took['pairs'])} pairs in {took['tables']:.1f} s", flush=True)
            results = measure_standings(ladder, url, args.repeats)
            print(f"  load average: {os.getloadavg()[0]:.1f}", flush=True)
            return results
    finally:
        drop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=DEFAULT_SIZES, help="BOTSxGAMES,... ")
    parser.add_argument("--db", default="sqlite", help="sqlite, postgresql or both, by commas")
    parser.add_argument("--postgres", default=os.environ.get("PITCH_TEST_POSTGRES_URL"))
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--scratch", type=Path, default=None, help="Where SQLite ladders go.")
    parser.add_argument("--standings", default="", help="BOTSxGAMES,... with sparse pairings")
    parser.add_argument("--neighbours", type=int, default=20, help="Nearest opponents a side.")
    parser.add_argument("--spread", type=int, default=8, help="Placement opponents a bot.")
    args = parser.parse_args()
    table: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="pitch-scale-", dir=args.scratch) as scratch:
        for kind in args.db.split(","):
            for bots, games in _sizes(args.sizes):
                print(f"{kind}: {bots} bots, {games} games", flush=True)
                column = f"{kind} {bots}/{games}"
                table[column] = run_size(
                    kind, bots, games, args.repeats, args.postgres, Path(scratch)
                )
                _print(table[column])
            for bots, games in _sizes(args.standings):
                print(f"{kind}: standings of {bots} bots, {games} games", flush=True)
                column = f"{kind} {bots}/{games} sparse"
                table[column] = run_standings(kind, bots, games, args, Path(scratch))
                _print(table[column])
    rows = list(dict.fromkeys(row for column in table.values() for row in column))
    print("\n| measure | " + " | ".join(table) + " |")
    print("|---|" + "---|" * len(table))
    for row in rows:
        cells = [_shown(table[column].get(row)) for column in table]
        print(f"| {row} | " + " | ".join(cells) + " |")


def _sizes(text: str) -> list[tuple[int, int]]:
    return [(int(b), int(g)) for b, g in (size.split("x") for size in text.split(",") if size)]


def _print(column: dict[str, float]) -> None:
    for name, seconds in column.items():
        print(f"  {name}: {seconds * 1000:.1f} ms", flush=True)


def _shown(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    return f"{seconds:.1f} s" if seconds >= 10 else f"{seconds * 1000:.1f} ms"


if __name__ == "__main__":
    main()
