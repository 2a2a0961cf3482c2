"""A match's peak memory as its games grow, and what compressing its records costs.

Run by hand: ``uv run python bench/match_memory.py``. Results go in ``bench/RESULTS.md``.

1. Record files, plain JSON against gzip (compact JSON inside, levels 1, 6 and 9; the
   standard library has no zstd in Python 3.11): bytes, disk blocks, and the median
   time to write one (``write_record``, atomically) and to read one (``load_record``).
   The records are full games (greedy against random, the default rules) with the
   fields the referee adds (each decision's time, the bots' logs, seeds and CPU).
2. Peak memory of ``run_match`` at each game count (``--games``, default 1,000 and
   20,000): random against random, ``hand_cap`` 1 (fast games), no sandbox, one worker
   per core. Each match runs in a fresh process, so that its ``ru_maxrss`` is its own:
   the match process's peak, and the largest of its children (a worker or a bot). Then
   two resumes of the finished folder, each in a fresh process: as it is (the games'
   outcomes are read from ``outcomes.jsonl``), and without ``outcomes.jsonl`` (rebuilt
   from the records, one at a time, as for a folder of an older version).

``--one GAMES FOLDER`` plays one match and ``--resume-one FOLDER`` resumes one, each
printing one JSON line: what the main run starts in its child processes.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import fields
from pathlib import Path
from typing import Any

from pitch_sdk import reference


def _peaks() -> dict[str, float]:
    """Peak resident memory in MB: this process, and the largest of its children."""
    self_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return {"peak_mb": self_kb / 1024, "children_peak_mb": children_kb / 1024}


def one_match(games: int, folder: Path, concurrency: int) -> dict:
    from pitch_referee.match import Entrant, MatchSettings, run_match

    bot = Entrant.from_argument(str(reference.folder("random")))
    options = {"games": games, "seed": 1, "concurrency": concurrency, "sandbox": "off"}
    options["rules"] = {"hand_cap": 1}
    if "compress_records" in {item.name for item in fields(MatchSettings)}:
        options["compress_records"] = True  # as `pitch match` does (older code: plain)
    started = time.perf_counter()
    summary = run_match(bot, bot, MatchSettings(**options), folder, announce=lambda _: None)
    seconds = time.perf_counter() - started
    records = [path.stat().st_size for path in (folder / "games").iterdir()]
    return {
        "games": summary.games_played,
        "seconds": round(seconds, 1),
        "record_kb": round(statistics.fmean(records) / 1024, 2),
        **_peaks(),
    }


def one_resume(folder: Path) -> dict:
    from pitch_referee.match import resume_match

    started = time.perf_counter()
    summary = resume_match(folder, announce=lambda _: None)
    return {
        "games": summary.games_played,
        "seconds": round(time.perf_counter() - started, 2),
        **_peaks(),
    }


def _child(*args: str) -> dict:
    done = subprocess.run(
        [sys.executable, __file__, *args], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def memory(counts: list[int], concurrency: int) -> None:
    print(f"match memory: random x4, hand_cap 1, concurrency {concurrency}, no sandbox")
    print("| games | time | games/s | match process peak | largest child peak | record |")
    print("|---|---|---|---|---|---|")
    resumes = []
    first = None
    with tempfile.TemporaryDirectory() as scratch:
        for count in counts:
            folder = Path(scratch) / f"m{count}"
            played = _child("--one", str(count), str(folder), "--concurrency", str(concurrency))
            first = first or played
            growth = played["peak_mb"] / first["peak_mb"]
            print(
                f"| {played['games']:,} | {played['seconds']} s | "
                f"{played['games'] / played['seconds']:.1f} | {played['peak_mb']:.1f} MB "
                f"({growth:.2f} x) | {played['children_peak_mb']:.1f} MB | "
                f"{played['record_kb']} KB |"
            )
            resumed = _child("--resume-one", str(folder))
            (folder / "outcomes.jsonl").unlink(missing_ok=True)
            rebuilt = _child("--resume-one", str(folder))
            resumes.append((count, resumed, rebuilt))
    print("resuming the finished match (nothing left to play):")
    print("| games | from outcomes.jsonl | without it (rebuilt from the records) |")
    print("|---|---|---|")
    for count, resumed, rebuilt in resumes:
        print(
            f"| {count:,} | {resumed['seconds']} s, peak {resumed['peak_mb']:.1f} MB | "
            f"{rebuilt['seconds']} s, peak {rebuilt['peak_mb']:.1f} MB |"
        )
    if len(counts) > 1:
        low, high = resumes[0], resumes[-1]
        print(
            f"resume peak growth {high[1]['peak_mb'] / low[1]['peak_mb']:.2f} x from "
            f"{low[0]:,} to {high[0]:,} games"
        )


def _match_record(seed: int) -> Any:
    """A full game's record with the fields the referee adds to what the table writes."""
    from dataclasses import replace

    from pitch_sdk.bots import GreedyBot, RandomBot
    from pitch_sdk.selfplay import play_game

    record = play_game([GreedyBot(0), RandomBot(1), GreedyBot(2), RandomBot(3)], seed=seed)
    rng = random.Random(seed)
    hands = tuple(
        replace(
            hand,
            decisions=tuple(
                d if d.forced else replace(d, ms=round(rng.uniform(0.3, 3.0), 3))
                for d in hand.decisions
            ),
        )
        for hand in record.hands
    )
    players = tuple(
        replace(
            player,
            log=f"logs/worker-0/A{player.seat}-{player.name}.log",
            seed=f"{rng.getrandbits(128):032x}",
            cpu_ms=round(rng.uniform(100, 400), 1),
        )
        for player in record.players
    )
    return replace(record, hands=hands, players=players)


def record_files(count: int, repeats: int) -> None:
    import pitch_sdk.record as records

    games = [_match_record(seed) for seed in range(count)]
    formats = [("plain JSON (indented)", ".json", None)] + [
        (f"gzip level {level} (compact JSON)", ".json.gz", level) for level in (1, 6, 9)
    ]
    print(f"record files: {count} full games (greedy vs random), {repeats} rounds, medians")
    print("| format | bytes | disk (blocks) | write | read |")
    print("|---|---|---|---|---|")
    default = records.COMPRESS_LEVEL
    with tempfile.TemporaryDirectory() as scratch:
        keys = ("bytes", "disk", "write", "read")
        results: dict[str, dict[str, list[float]]] = {
            name: {key: [] for key in keys} for name, _, _ in formats
        }
        for _ in range(repeats):
            for name, suffix, level in formats:  # alternating, so the machine's load is shared
                records.COMPRESS_LEVEL = level or default
                seen = results[name]
                for number, record in enumerate(games):
                    path = Path(scratch) / f"game-{number}{suffix}"
                    started = time.perf_counter()
                    records.write_record(record, path)
                    seen["write"].append(time.perf_counter() - started)
                    started = time.perf_counter()
                    records.load_record(path)
                    seen["read"].append(time.perf_counter() - started)
                    stat = path.stat()
                    seen["bytes"].append(stat.st_size)
                    seen["disk"].append(stat.st_blocks * 512)
        records.COMPRESS_LEVEL = default
    plain = results[formats[0][0]]
    for name, seen in results.items():
        size = statistics.fmean(seen["bytes"])
        ratio = statistics.fmean(plain["bytes"]) / size
        print(
            f"| {name} | {size / 1024:.1f} KB ({ratio:.1f} x smaller) | "
            f"{statistics.fmean(seen['disk']) / 1024:.1f} KB | "
            f"{statistics.median(seen['write']) * 1000:.2f} ms | "
            f"{statistics.median(seen['read']) * 1000:.2f} ms |"
        )
    print(f"(records are written at gzip level {default})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, nargs="+", default=[1000, 20000])
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--records", type=int, default=30, help="full games to write and read")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--one", nargs=2, metavar=("GAMES", "FOLDER"), help=argparse.SUPPRESS)
    parser.add_argument("--resume-one", metavar="FOLDER", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one_match(int(args.one[0]), Path(args.one[1]), args.concurrency)))
        return
    if args.resume_one:
        print(json.dumps(one_resume(Path(args.resume_one))))
        return
    if args.records:
        record_files(args.records, args.repeats)
    if args.games:
        memory(args.games, args.concurrency)


if __name__ == "__main__":
    main()
