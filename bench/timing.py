"""The timing channel between partners, and what the timing grid leaves of it.

Run by hand: ``uv run python bench/timing.py``. Results go in ``bench/RESULTS.md``.

A pair of partners (``tests/timing_bot.py``) sends a hidden bit a hand by answering each
of its decisions ``SLOW`` ms late or at once, and reads its partner's from the shortest
time between its own answer and its next request in the hand, against random opponents
(``pitch match``, 8 games of 4 hands, two workers). For each signal and grid: the bits
read right out of those sent (chance: about a half), and the match's wall time.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pitch_sdk import reference
from pitch_testkit.timing import channel, timing_bot

CASES = [(10, 0), (10, 25), (20, 0), (20, 25), (60, 25)]
"""(signal ms, grid ms): the service's 25 ms grid against signals finer and coarser."""


def measure(slow_ms: int, grid_ms: int, sandbox: str, games: int) -> str:
    with tempfile.TemporaryDirectory() as folder:
        bot, out = timing_bot(Path(folder) / "bots", slow_ms), Path(folder) / "m"
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "pitch_cli", "match", str(bot),
             str(reference.folder("random")), "--games", str(games), "--seed", "3",
             "--rule", "hand_cap=4", "--sandbox", sandbox, "--concurrency", "2",
             "--timing-grid", str(grid_ms), "--out", str(out)],
            check=True, capture_output=True,
        )  # fmt: skip
        elapsed = time.perf_counter() - started
        found = channel(out)
    share = found.right / found.bits if found.bits else 0.0
    return (
        f"| {slow_ms} ms | {grid_ms or 'none'} | {sandbox} | {found.right} of {found.bits} "
        f"({share:.0%}) | {found.ones} | {elapsed:.1f} s |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sandbox", default="off", help="on, off or auto")
    parser.add_argument("--games", type=int, default=8)
    args = parser.parse_args()
    print("| signal | grid | sandbox | bits right | bits that were 1 | wall |")
    print("|---|---|---|---|---|---|")
    for slow_ms, grid_ms in CASES:
        print(measure(slow_ms, grid_ms, args.sandbox, args.games), flush=True)


if __name__ == "__main__":
    main()
