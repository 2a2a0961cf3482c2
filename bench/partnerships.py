"""What the team model's ratings cost the ladder as team games grow.

Run by hand (never by the tests)::

    uv run python bench/partnerships.py                     # 1,000, 10,000 and 100,000 games
    uv run python bench/partnerships.py --games 1000,10000 --repeats 5

Results go in ``bench/RESULTS.md`` under "## partnerships".

Each size is a synthetic SQLite ladder of 16 bots whose match rows are the ladder's own
(``schedule_rounds(..., partnerships=True)``, as many rounds as the games need, 20 games
per team match) and whose games are results drawn from fixed strengths, bulk-inserted.
Then (median of ``--repeats``):

- a full rating: every team game rated again (the kept ratings dropped first), as after
  games stored before the last one rated;
- the kept ratings read, nothing new;
- rating on: one more team match of 20 games in a new round, rated from the kept ratings;
- the team model alone: ``TeamRatings.rate`` per game, in memory.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import insert
from sqlmodel import Session, col, select

from pitch_ladder.ladder import Ladder
from pitch_ladder.models import Bot, BotVersion, Game, Match, now
from pitch_ladder.partnerships import forget_team_ratings, team_ratings
from pitch_ladder.schedule_writer import schedule_rounds
from pitch_referee.team_ratings import TeamRatings

BOTS = 16
GAMES_PER_MATCH = 20


def build(ladder: Ladder, games: int, rng: random.Random) -> dict[int, float]:
    """Bots, team match rows and ``games`` team games; each version's true strength."""
    with Session(ladder.engine) as session:
        strength = {}
        for n in range(BOTS):
            bot = Bot.model_validate({"name": f"bot{n:02d}"})
            session.add(bot)
            session.flush()
            version = BotVersion.model_validate(
                {
                    "bot_id": bot.id,
                    "content_hash": f"{n:064d}",
                    "folder": f"bots/bot{n:02d}/x",
                    "manifest_name": bot.name,
                    "manifest_version": "1",
                    "command": ["python", "bot.py"],
                }
            )
            session.add(version)
            session.flush()
            strength[version.id] = rng.gauss(1500, 200)
        session.commit()
    schedule_rounds(ladder.engine, 1, GAMES_PER_MATCH, {}, partnerships=True)
    per_round = len(_team_matches(ladder))
    rounds = -(-games // (per_round * GAMES_PER_MATCH))
    if rounds > 1:
        schedule_rounds(ladder.engine, rounds - 1, GAMES_PER_MATCH, {}, partnerships=True)
    rows = []
    for match in _team_matches(ladder):
        for number in range(GAMES_PER_MATCH):
            if len(rows) == games:
                break
            rows.append(_game(match, number, strength, rng))
    with Session(ladder.engine) as session:
        for start in range(0, len(rows), 10_000):
            session.connection().execute(insert(Game), rows[start : start + 10_000])
        session.commit()
    return strength


def _team_matches(ladder: Ladder) -> list[Match]:
    with Session(ladder.engine) as session:
        return list(
            session.exec(
                select(Match)
                .where(col(Match.a_partner_version_id).is_not(None))
                .order_by(col(Match.round), col(Match.id))
            )
        )


def _game(match: Match, number: int, strength: dict[int, float], rng: random.Random) -> dict:
    a, b = match.a_version_id, match.b_version_id
    a_partner, b_partner = match.a_partner_version_id or a, match.b_partner_version_id or b
    gap = (strength[a] + strength[a_partner] - strength[b] - strength[b_partner]) / 2
    score = 1.0 if rng.random() < 1 / (1 + 10 ** (-gap / 400)) else 0.0
    return {
        "match_id": match.id,
        "round": match.round,
        "a_version_id": a,
        "b_version_id": b,
        "a_partner_version_id": a_partner,
        "b_partner_version_id": b_partner,
        "game_id": f"pair-{number // 2:05d}-{'ab'[number % 2]}",
        "a_team": number % 2,
        "a_score": score,
        "b_score": 1 - score,
        "a_points": 0,
        "b_points": 0,
        "faults": 0,
        "termination": "score",
        "record_path": "x",
        "finished_at": now(),
    }


def timed(call: Callable[[], Any], repeats: int, before: Callable[[], Any] = lambda: None) -> float:
    """The median seconds of ``call``, ``before`` run untimed ahead of each."""
    times = []
    for _ in range(repeats):
        before()
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def measure(games: int, repeats: int) -> dict[str, float]:
    rng = random.Random(games)
    with tempfile.TemporaryDirectory() as folder, Ladder.init(Path(folder) / "ladder") as ladder:
        strength = build(ladder, games, rng)

        def read() -> None:
            with Session(ladder.engine) as session:
                team_ratings(session)

        def forget() -> None:
            with Session(ladder.engine) as session:
                forget_team_ratings(session)
                session.commit()

        full = timed(read, repeats, forget)
        read()
        kept = timed(read, repeats)

        def one_more_match() -> None:
            schedule_rounds(ladder.engine, 1, GAMES_PER_MATCH, {}, partnerships=True)
            match = _team_matches(ladder)[-1]
            rows = [_game(match, n, strength, rng) for n in range(GAMES_PER_MATCH)]
            with Session(ladder.engine) as session:
                session.connection().execute(insert(Game), rows)
                session.commit()

        rated_on = timed(read, repeats, one_more_match)
    model = TeamRatings[int]()
    versions = list(strength)
    lineups = [rng.sample(versions, 4) for _ in range(20_000)]
    start = time.perf_counter()
    for a, a_partner, b, b_partner in lineups:
        model.rate((a, a_partner), (b, b_partner), 1.0)
    per_game = (time.perf_counter() - start) / len(lineups)
    return {"full": full, "kept": kept, "rated_on": rated_on, "model_per_game": per_game}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="1000,10000,100000")
    parser.add_argument("--repeats", type=int, default=3)
    options = parser.parse_args()
    print("| team games | full rating | per game | kept | rating on (+20 games) | model alone |")
    print("|---|---|---|---|---|---|")
    for games in (int(size) for size in options.games.split(",")):
        result = measure(games, options.repeats)
        print(
            f"| {games:,} | {result['full'] * 1000:.0f} ms | "
            f"{result['full'] / games * 1e6:.0f} us | {result['kept'] * 1000:.1f} ms | "
            f"{result['rated_on'] * 1000:.1f} ms | {result['model_per_game'] * 1e6:.0f} us |",
            flush=True,
        )


if __name__ == "__main__":
    main()
