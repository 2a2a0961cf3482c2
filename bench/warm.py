"""Ladder rounds of short matches, checkout against checkout: what bot process starts cost.

Run by hand: ``uv run python bench/warm.py --checkout A --checkout B [...]``. Results go
in ``bench/RESULTS.md`` under "## warm bots". Each checkout is a copy of this repository
with its own ``.venv`` (``uv sync`` there); to compare with an older commit, clone it,
for example ``git clone /work/main /tmp/before && git -C /tmp/before checkout COMMIT &&
(cd /tmp/before && uv sync)``, and pass both folders.

Each checkout gets a ladder of its own with the same bots (the reference bots greedy and
random, ``--copies`` times each under other names), submitted before any timing. Then
``pitch ladder run --rounds 1`` (a full round robin of short matches, the shape of the
service's matches, on ``--workers`` pinned pool workers, bots sandboxed) is run in every
checkout in turn, ``--runs`` times, the first checkout first in odd runs and last in
even ones, so that a busy moment of the machine falls on all of them alike. Each run's
wall time and CPU time are taken, and each checkout's are divided by the first
checkout's of the same run; the medians of those ratios are printed. The CPU time is
what the command's processes report for themselves and the children they reaped (the
ladder process and its pool workers): the sandboxed bots' is not in it (they are reaped
inside their sandboxes), so the wall time is the measure of throughput.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from pitch_sdk import reference

SAMPLES = ("greedy", "random")
"""The reference bots copied (``pitch_sdk.reference``)."""


def pitch(checkout: Path, *args: str) -> tuple[float, float]:
    """Run ``pitch`` of ``checkout`` with ``args``; its wall and CPU seconds (children's)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(
        [str(checkout / ".venv" / "bin" / "pitch"), *args],
        check=True,
        stdout=subprocess.DEVNULL,
        cwd=checkout,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def bot_copies(where: Path, copies: int) -> list[Path]:
    """The reference bots ``SAMPLES``, ``copies`` times each under names of their own."""
    folders = []
    for sample in SAMPLES:
        for number in range(1, copies + 1):
            folder = where / f"{sample}-{number}"
            shutil.copytree(reference.folder(sample), folder)
            manifest = folder / "bot.toml"
            text = manifest.read_text().replace(f'name = "{sample}"', f'name = "{folder.name}"')
            manifest.write_text(text)
            folders.append(folder)
    return folders


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkout", type=Path, action="append", required=True)
    parser.add_argument("--runs", type=int, default=4)
    parser.add_argument("--copies", type=int, default=3, help="Copies of each sample bot.")
    parser.add_argument("--games-per-match", type=int, default=2)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--hand-cap", type=int, default=30)
    args = parser.parse_args()
    checkouts = [path.resolve() for path in args.checkout]
    bots_n = len(SAMPLES) * args.copies
    print(
        f"{bots_n} bots, round robin of {bots_n * (bots_n - 1) // 2} matches of "
        f"{args.games_per_match} games (hand_cap={args.hand_cap}), {args.workers} workers"
    )
    with tempfile.TemporaryDirectory(prefix="pitch-bench-warm-") as scratch:
        bots = bot_copies(Path(scratch) / "bots", args.copies)
        ladders = {}
        for number, checkout in enumerate(checkouts):
            ladders[checkout] = ladder = Path(scratch) / f"ladder-{number}"
            pitch(checkout, "ladder", "init", "--ladder", str(ladder))
            for bot in bots:
                pitch(checkout, "ladder", "submit", str(bot), "--ladder", str(ladder))
        times: dict[Path, list[tuple[float, float]]] = {checkout: [] for checkout in checkouts}
        for run in range(args.runs):
            order = checkouts if run % 2 == 0 else checkouts[::-1]
            for checkout in order:
                took = pitch(
                    checkout, "ladder", "run", "--ladder", str(ladders[checkout]),
                    "--rounds", "1", "--games-per-match", str(args.games_per_match),
                    "--workers", str(args.workers), "--rule", f"hand_cap={args.hand_cap}",
                )  # fmt: skip
                times[checkout].append(took)
                print(f"  run {run + 1} {checkout.name}: wall {took[0]:.1f} s, CPU {took[1]:.1f} s")
    first = times[checkouts[0]]
    for checkout in checkouts:
        walls, cpus = zip(*times[checkout], strict=True)
        wall_ratios = [wall / base[0] for wall, base in zip(walls, first, strict=True)]
        cpu_ratios = [cpu / base[1] for cpu, base in zip(cpus, first, strict=True)]
        print(
            f"{checkout.name}: wall median {statistics.median(walls):.1f} s, CPU median "
            f"{statistics.median(cpus):.1f} s; against {checkouts[0].name}: wall x"
            f"{statistics.median(wall_ratios):.3f} ({min(wall_ratios):.3f} to "
            f"{max(wall_ratios):.3f}), CPU x{statistics.median(cpu_ratios):.3f} "
            f"({min(cpu_ratios):.3f} to {max(cpu_ratios):.3f})"
        )


if __name__ == "__main__":
    main()
