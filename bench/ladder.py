"""What the ladder's bookkeeping costs: a full round robin through the ladder against bare matches.

Run by hand: ``uv run python bench/ladder.py``. Results go in ``bench/RESULTS.md`` under
"## ladder".

Eight bots (the reference bots random and greedy, four times each under different names)
play a full round robin, 28 duplicate matches, each way on the same machine in the same
run, alternating
(bare, ladder, ladder, bare, ...; round N of both uses the same seeds):

- through the ladder (``Ladder.run``): the run lock, match rows, the process pool, records
  imported into SQLite as they appear with the Elo history recomputed, matches marked
  finished;
- bare: the same 28 matches (same settings and seeds) through ``run_match`` on the same
  kind of process pool (``local_executor``, workers pinned to cores), with no database.

Both exclude the submissions' smoke tests. The ladder's bookkeeping cost is the relative
drop in games per second (target: under 10%). As other work on a shared machine makes wall
times noisy, the CPU time of the ladder's own process (polling, reading records, the
database, the Elo history) is printed too: it is the bookkeeping itself.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from sqlmodel import Session

from pitch_ladder.executor import local_executor
from pitch_ladder.ladder import Ladder
from pitch_ladder.ownership import deal_secret
from pitch_ladder.schedule import match_settings, round_robin
from pitch_referee.manifest import load_manifest
from pitch_referee.match import Entrant, MatchSettings, run_match
from pitch_sdk import reference

BOTS = {f"{sample}-{n}": sample for sample in ("greedy", "random") for n in range(1, 5)}
RULES = {"hand_cap": 30}
"""Two random bots can need a hundred hands to reach 55; the cap keeps the bench short."""


def bare_match(a: str, b: str, settings: dict[str, Any], root: str) -> int:
    """One match through ``run_match`` alone; returns the games played."""
    entrants = [Entrant(manifest.name, manifest) for manifest in map(load_manifest, (a, b))]
    summary = run_match(*entrants, MatchSettings(**settings), Path(root), announce=lambda _: None)
    return summary.games_played


def through_ladder(ladder: Ladder, round_number: int, games: int, workers: int) -> float:
    """Time one round robin through the ladder; returns games per second."""
    started, cpu = time.perf_counter(), time.process_time()
    report = ladder.run(1, games, RULES, workers=workers)
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    assert report.games == _planned(games), report
    print(
        f"  round {round_number} through the ladder: {report.games} games in {elapsed:.1f} s; "
        f"the ladder process used {cpu:.2f} s of CPU ({cpu / report.games * 1000:.1f} ms a game)"
    )
    return report.games / elapsed


def bare(ladder: Ladder, round_number: int, games: int, workers: int) -> float:
    """The same matches (same bot copies, settings and seeds) without the ladder."""
    folder, bots = ladder.folder / "bare" / str(round_number), ladder.folder / "bots"
    with Session(ladder.engine) as session:
        secret = deal_secret(session)
    jobs = [
        (
            str(next((bots / a).iterdir())),
            str(next((bots / b).iterdir())),
            match_settings(secret, round_number, a, b, games, RULES),
            str(folder / f"{a}-vs-{b}"),
        )
        for a, b in round_robin(list(BOTS))
    ]
    started, cpu = time.perf_counter(), time.process_time()
    with local_executor(workers) as pool:  # the ladder's own pool: pinned workers alike
        played = sum(pool.map(bare_match, *zip(*jobs, strict=True)))
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    assert played == _planned(games), played
    print(
        f"  round {round_number} bare run_match:     {played} games in {elapsed:.1f} s; "
        f"the parent process used {cpu:.2f} s of CPU"
    )
    return played / elapsed


def _planned(games: int) -> int:
    return len(round_robin(list(BOTS))) * (games + games % 2)


def measure(folder: Path, games: int, workers: int, repeats: int) -> dict[str, list[float]]:
    """Games per second of each way, ``repeats`` times, alternating which goes first."""
    rates: dict[str, list[float]] = {"bare": [], "ladder": []}
    with Ladder.init(folder) as ladder:
        for name, sample in BOTS.items():
            ladder.submit(reference.folder(sample), name)
        for number in range(1, repeats + 1):
            order = ("bare", "ladder") if number % 2 else ("ladder", "bare")
            for kind in order:  # bare, ladder, ladder, bare...: drift hits both alike
                run = bare if kind == "bare" else through_ladder
                rates[kind].append(run(ladder, number, games, workers))
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games-per-match", type=int, default=8)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--repeats", type=int, default=2, help="Rounds of each, ABBA order.")
    args = parser.parse_args()
    games, workers = args.games_per_match, args.workers
    print(
        f"round robin of {len(BOTS)} bots: {len(round_robin(list(BOTS)))} matches of "
        f"{games} games, rules {RULES}, {workers} workers, {os.cpu_count()} cores"
    )
    with tempfile.TemporaryDirectory(prefix="pitch-bench-") as scratch:
        rates = measure(Path(scratch) / "ladder", games, workers, args.repeats)
    bare_rate, ladder_rate = (sum(rates[k]) / len(rates[k]) for k in ("bare", "ladder"))
    print(f"bare run_match:   {bare_rate:.2f} games/s (mean of {args.repeats})")
    print(f"through ladder:   {ladder_rate:.2f} games/s (mean of {args.repeats})")
    print(f"bookkeeping cost: {(1 - ladder_rate / bare_rate) * 100:.1f}% of throughput")


if __name__ == "__main__":
    main()
