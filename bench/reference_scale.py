"""The reference bots on one Elo scale: duplicate-deal matches between them, fitted once.

Run by hand: ``uv run python bench/reference_scale.py [--scale 1.0] [--fit-only]
[--write]``. Each pairing in ``PAIRINGS`` plays its deal pairs in-process
(``selfplay.play_game``: the same table and decisions as a match, without processes; each
deal played twice with the teams swapped, bots reseeded per game as the referee does), on
two worker processes, and its tally is kept in ``reference_scale.json`` beside this file
(``--fit-only`` fits those again without playing). The full montecarlo search costs
seconds of CPU a game and its clock makes it weaker on a loaded machine, so its pairing
is ``RECORDED``: the 200-game ``pitch match`` against greedy in bench/RESULTS.md (same
code, ``## montecarlo``).

Each pairing gives an Elo difference with its standard error (pentanomial, as ``pitch
match``); the ratings are the weighted least-squares fit of all pairings at once,
``random`` anchored at 0, with 95% intervals from the fit's covariance. A pairing one bot
swept has no finite Elo: it is listed, and left out of the fit. ``--write`` stores the
ratings in ``pitch_sdk/reference/scale.toml``; the figures go to ``bench/RESULTS.md`` by
hand.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from pitch_referee.stats import Z_95, Pentanomial
from pitch_sdk.bot import Bot
from pitch_sdk.bots import BeginnerBot, GreedyBot, RandomBot
from pitch_sdk.bots.montecarlo import FastMonteCarloBot, MonteCarloBot
from pitch_sdk.selfplay import play_game

BOTS: dict[str, Callable[[], Bot]] = {
    "random": RandomBot,
    "beginner": BeginnerBot,
    "greedy": GreedyBot,
    "montecarlo-fast": FastMonteCarloBot,
    "montecarlo": MonteCarloBot,
}
"""The reference bots, weakest first; the first is the anchor (rating 0)."""

PAIRINGS: tuple[tuple[str, str, int], ...] = (
    ("random", "beginner", 400),
    ("beginner", "greedy", 400),
    ("random", "greedy", 100),
    ("greedy", "montecarlo-fast", 60),
    ("beginner", "montecarlo-fast", 20),
)
"""Who plays whom in-process, and how many deal pairs: neighbours most, then one rung
apart."""
RECORDED: dict[tuple[str, str], Pentanomial] = {
    ("greedy", "montecarlo"): Pentanomial(57, 0, 42, 0, 1),
}
"""Pairings measured by ``pitch match`` (greedy's side of ``pitch match
sample_bots/montecarlo sample_bots/greedy --games 200 --seed 1414``, montecarlo 1.3)."""

SCALE_FILE = Path(__file__).resolve().parents[1] / "sdk/pitch_sdk/reference/scale.toml"
TALLIES_FILE = Path(__file__).with_name("reference_scale.json")


def play_pair(job: tuple[str, str, int]) -> float:
    """Bot A's score over one deal pair (0 to 2): game a with A in seats 0 and 2, b swapped."""
    a, b, index = job
    score = 0.0
    for swapped in (False, True):
        first, second = (b, a) if swapped else (a, b)
        bots = [BOTS[first](), BOTS[second](), BOTS[first](), BOTS[second]()]
        seeds = tuple(f"{a}-{b}-{index}-{swapped}-{seat}" for seat in range(4))
        record = play_game(bots, seed=f"scale-{a}-{b}-{index}", bot_seeds=seeds)
        assert record.result is not None  # a game played to its end
        winner = record.result.winner
        if winner is None:
            score += 0.5
        elif winner == (1 if swapped else 0):
            score += 1.0
    return score


def fit(results: dict[tuple[str, str], Pentanomial]) -> tuple[np.ndarray, np.ndarray]:
    """Ratings and their standard errors: weighted least squares of the pairings' Elo
    differences (weights 1/se^2), the first bot fixed at 0."""
    names = list(BOTS)
    rows, targets, weights = [], [], []
    for (a, b), counts in results.items():
        elo, se = _elo_and_se(counts)
        if elo is None:
            continue
        row = np.zeros(len(names))
        row[names.index(b)], row[names.index(a)] = 1.0, -1.0
        rows.append(row[1:])
        targets.append(-elo)  # the tally is A's: b's rating minus a's is -elo
        weights.append(1.0 / se**2)
    design, weight = np.array(rows), np.diag(weights)
    covariance = np.linalg.inv(design.T @ weight @ design)
    ratings = covariance @ design.T @ weight @ np.array(targets)
    return np.concatenate([[0.0], ratings]), np.concatenate([[0.0], np.sqrt(np.diag(covariance))])


def _elo_and_se(counts: Pentanomial) -> tuple[float | None, float]:
    """A's Elo over B and its standard error, from the score's (delta method)."""
    score, elo = counts.score, counts.elo
    interval = counts.elo_interval
    if score is None or elo is None or interval is None or not math.isfinite(elo):
        return None, math.inf
    se = (interval[1] - interval[0]) / (2 * Z_95)
    return (elo, se) if math.isfinite(se) else (None, math.inf)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="times the deal pairs")
    parser.add_argument("--fit-only", action="store_true", help="fit the kept tallies again")
    parser.add_argument("--write", action="store_true", help="store the scale in the package")
    args = parser.parse_args()
    results = dict(RECORDED)
    if args.fit_only:
        kept = json.loads(TALLIES_FILE.read_text())
        results.update({(row["a"], row["b"]): Pentanomial(*row["counts"]) for row in kept})
    else:
        results.update(_played(args.scale))
    for (a, b), counts in results.items():
        elo, se = _elo_and_se(counts)
        shown = f"{counts.elo:+.0f}" if elo is None else f"{elo:+.0f} +/- {Z_95 * se:.0f}"
        print(f"{a} vs {b}: {counts.games} games, {list(counts.counts)}, Elo {shown}")
    ratings, errors = fit(results)
    lines = []
    for name, rating, error in zip(BOTS, ratings, errors, strict=True):
        low, high = rating - Z_95 * error, rating + Z_95 * error
        print(f"{name:16} {rating:6.0f}  [{low:.0f}, {high:.0f}]")
        lines.append(f"[{name}]\nrating = {rating:.0f}\nlow = {low:.0f}\nhigh = {high:.0f}\n")
    if args.write:
        games = sum(counts.games for counts in results.values())
        head = (
            "# The reference bots on one Elo scale (random = 0), with 95% intervals: fitted\n"
            f"# by bench/reference_scale.py from {games} games, recorded in bench/RESULTS.md.\n"
            "# Read by pitch_sdk.reference.scale.\n\n"
        )
        SCALE_FILE.write_text(head + "\n".join(lines))


def _played(scale: float) -> dict[tuple[str, str], Pentanomial]:
    """Play ``PAIRINGS`` (deal pairs times ``scale``) and keep their tallies."""
    results: dict[tuple[str, str], Pentanomial] = {}
    with ProcessPoolExecutor(2) as pool:
        for a, b, pairs in PAIRINGS:
            started = time.monotonic()
            jobs = [(a, b, index) for index in range(max(2, round(pairs * scale)))]
            results[(a, b)] = Pentanomial.from_pair_scores(pool.map(play_pair, jobs))
            print(f"{a} vs {b} played in {time.monotonic() - started:.0f} s", flush=True)
    rows = [{"a": a, "b": b, "counts": list(counts.counts)} for (a, b), counts in results.items()]
    TALLIES_FILE.write_text(json.dumps(rows, indent=1) + "\n")
    return results


if __name__ == "__main__":
    main()
