"""What the ladder's reads, a stored game and the start of a run cost as the ladder grows.

Run by hand (never by the tests)::

    uv run python bench/scale.py                          # 10/1,000 and 100/100,000, SQLite
    uv run python bench/scale.py --sizes 1000x1000000 --db sqlite,postgresql \\
        --postgres postgresql://USER@HOST:PORT/DATABASE

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

from sqlalchemy import create_engine, func, insert, text, update
from sqlmodel import Session, col, select

from pitch_ladder.database import database_url
from pitch_ladder.errors import LadderError
from pitch_ladder.ladder import Ladder
from pitch_ladder.models import Bot, BotVersion, Game, GameRecord, Match, now
from pitch_ladder.rating_tables import rerate
from pitch_ladder.runner import schedule_rounds
from pitch_sdk.bots import GreedyBot
from pitch_sdk.options import RuleOptions
from pitch_sdk.selfplay import play_game

RULES = {"hand_cap": 1}
CHUNK = 20_000
DEFAULT_SIZES = "10x1000,100x100000"


def record() -> dict[str, Any]:
    """A real one-hand game's record: what every synthetic game stores."""
    return play_game([GreedyBot(seat) for seat in range(4)], 7, RuleOptions.from_dict(RULES))


def build(ladder: Ladder, bots: int, games: int, seed: int = 1) -> dict[str, float]:
    """Fill ``ladder`` with ``bots`` bots and ``games`` games; the seconds each step took."""
    rng = random.Random(seed)
    took: dict[str, float] = {}
    started = time.perf_counter()
    names = [f"bot{n:04d}" for n in range(bots)]
    engine = ladder.engine
    with Session(engine) as session:
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
    newest = ladder.games(limit=1)[0].id
    middle = newest // 2
    results["games page (newest 50)"] = timed(ladder.games, repeats)
    results["games page, deep (before the middle game)"] = timed(
        lambda: ladder.games(before=middle), repeats
    )
    results["games page of a bot"] = timed(lambda: ladder.games("bot0001"), repeats)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=DEFAULT_SIZES, help="BOTSxGAMES,... ")
    parser.add_argument("--db", default="sqlite", help="sqlite, postgresql or both, by commas")
    parser.add_argument("--postgres", default=os.environ.get("PITCH_TEST_POSTGRES_URL"))
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--scratch", type=Path, default=None, help="Where SQLite ladders go.")
    args = parser.parse_args()
    sizes = [tuple(map(int, size.split("x"))) for size in args.sizes.split(",")]
    table: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="pitch-scale-", dir=args.scratch) as scratch:
        for kind in args.db.split(","):
            for bots, games in sizes:
                print(f"{kind}: {bots} bots, {games} games", flush=True)
                column = f"{kind} {bots}/{games}"
                table[column] = run_size(
                    kind, bots, games, args.repeats, args.postgres, Path(scratch)
                )
                for name, seconds in table[column].items():
                    print(f"  {name}: {seconds * 1000:.1f} ms", flush=True)
    rows = list(next(iter(table.values())))
    print("\n| measure | " + " | ".join(table) + " |")
    print("|---|" + "---|" * len(table))
    for row in rows:
        cells = [_shown(table[column][row]) for column in table]
        print(f"| {row} | " + " | ".join(cells) + " |")


def _shown(seconds: float) -> str:
    return f"{seconds:.1f} s" if seconds >= 10 else f"{seconds * 1000:.1f} ms"


if __name__ == "__main__":
    main()
