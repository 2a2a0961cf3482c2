"""The service under load: requests per second of its busiest routes, and what the scheduler
costs against bare matches on the same pool.

Run by hand: ``uv run python bench/service.py``. Results go in ``bench/RESULTS.md`` under
"## service".

1. **Reads.** A real ``pitch serve --no-scheduler`` process on a synthetic ladder
   (``bench/scale.py``'s ``build``: 100 bots, 100,000 games by default), and ``--clients``
   threads on loopback asking ``/api/standings`` (and then ``/api/games``) as fast as
   they can for ``--seconds``: requests per second, and the median and 95th percentile
   latency.
2. **Uploads.** ``--uploads`` authors each upload a bot of their own at once (the random
   bot under their name): each is unpacked, smoke-tested in the sandbox and checked for
   conformance; uploads per second, and the standings' latency while they run.
3. **Reads while uploads are checked.** ``--checking`` authors (45 by default, as in
   issue 20) each upload a bot at once to a ladder of ``--checking-bots`` bots and
   ``--checking-games`` games, while ``--clients`` threads ask ``/api/standings`` until the
   last upload has its answer: the standings' median, p95, p99 and worst latency before,
   while the checks run (target: p99 under 200 ms) and after (the new bots listed), and
   the uploads' answers (201, or 503 for a full queue). The server runs with
   ``[limits] checks_at_once`` from ``--checks-at-once``.
4. **The scheduler's overhead.** Eight bots; the scheduler plays ``--steps`` steps of
   eight two-game matches on ``--workers`` workers (``Scheduler.step``: choosing pairs from
   the ratings, writing the round, playing it on the pool, storing each game with its
   ratings); then the same matches (same settings and seeds) through bare ``run_match`` on
   the same kind of pool. Both pools are started (their workers spawned) before timing,
   as a serving scheduler's is after its first step. Games per second of each; the
   overhead is the relative drop (target: under 5%).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from scale import build
from sqlmodel import Session, col, select

from ladder import bare_match
from pitch_ladder.archive import pack
from pitch_ladder.authors import add_author
from pitch_ladder.executor import local_executor
from pitch_ladder.ladder import Ladder
from pitch_ladder.models import BotVersion, Match
from pitch_ladder.pairing import PairingSettings
from pitch_ladder.scheduler import Scheduler, SchedulerSettings
from pitch_sdk import reference

RANDOM = reference.folder("random")
BOTS = {f"{sample}-{n}": sample for sample in ("greedy", "random") for n in range(1, 5)}
RULES = {"hand_cap": 30}


class Server:
    """``pitch serve`` as a process on a free port."""

    def __init__(self, folder: Path, config: Path | None = None) -> None:
        command = ["serve", "--ladder", str(folder), "--port", "0", "--no-scheduler"]
        command += ["--config", str(config)] if config else []
        self.process = subprocess.Popen(
            [sys.executable, "-m", "pitch_cli", *command],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        self.address = line.split(" at ", 1)[1].split()[0]

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


def _get(url: str) -> float:
    started = time.perf_counter()
    with urllib.request.urlopen(url, timeout=60) as answer:
        answer.read()
    return time.perf_counter() - started


def hammer(
    url: str, clients: int, seconds: float, until: threading.Event | None = None
) -> dict[str, float]:
    """``clients`` threads asking ``url`` for ``seconds`` (or until ``until`` is set):
    rate and latencies."""
    latencies: list[float] = []
    lock = threading.Lock()
    deadline = time.perf_counter() + seconds

    def client() -> None:
        mine = []
        while time.perf_counter() < deadline and not (until and until.is_set()):
            mine.append(_get(url))
        with lock:
            latencies.extend(mine)

    started = time.perf_counter()
    threads = [threading.Thread(target=client) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    latencies.sort()
    return {
        "requests/s": len(latencies) / elapsed,
        "median ms": statistics.median(latencies) * 1000,
        "p95 ms": latencies[int(0.95 * (len(latencies) - 1))] * 1000,
        "p99 ms": latencies[int(0.99 * (len(latencies) - 1))] * 1000,
        "max ms": latencies[-1] * 1000,
        "requests": len(latencies),
    }


def reads(scratch: Path, bots: int, games: int, clients: int, seconds: float) -> None:
    folder = scratch / "reads"
    with Ladder.init(folder) as ladder:
        build(ladder, bots, games)
    server = Server(folder)
    try:
        _get(f"{server.address}api/standings")  # the first read fits; the rest read the fit
        for route in ("api/standings", "api/games"):
            figures = hammer(f"{server.address}{route}", clients, seconds)
            shown = ", ".join(f"{key} {value:.1f}" for key, value in figures.items())
            print(f"  /{route}, {clients} clients: {shown}")
    finally:
        server.close()


def _archives(scratch: Path, count: int) -> list[bytes]:
    """``count`` copies of the random bot, each under a name of its own, packed."""
    archives = []
    for n in range(count):
        bot = scratch / f"bot{n}"
        if not bot.exists():
            shutil.copytree(RANDOM, bot, ignore=shutil.ignore_patterns("__pycache__"))
            manifest = bot / "bot.toml"
            manifest.write_text(manifest.read_text().replace('"random"', f'"bot{n}"'))
            pack(bot, scratch / f"bot{n}.tar.gz")
        archives.append((scratch / f"bot{n}.tar.gz").read_bytes())
    return archives


def _upload(address: str, token: str, archive: bytes) -> int:
    request = urllib.request.Request(
        f"{address}api/submissions",
        data=archive,
        headers={"Authorization": f"Bearer {token}"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=1200) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        if error.code == 422:
            print(f"  refused: {error.read()[:300]!r}", flush=True)
        return error.code


def uploads(scratch: Path, count: int) -> None:
    folder = scratch / "uploads"
    with Ladder.init(folder) as ladder:
        tokens = [add_author(ladder, f"author{n}").token for n in range(count)]
    archives = _archives(scratch, count)
    server = Server(folder)

    def upload(n: int) -> int:
        request = urllib.request.Request(
            f"{server.address}api/submissions",
            data=archives[n],
            headers={"Authorization": f"Bearer {tokens[n]}"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=600) as answer:
            return answer.status

    try:
        started = time.perf_counter()
        with ThreadPoolExecutor(max_workers=count) as pool:
            sent = [pool.submit(upload, n) for n in range(count)]
            during = hammer(f"{server.address}api/standings", 2, 1.0)
            statuses = [future.result() for future in sent]
        elapsed = time.perf_counter() - started
        assert statuses == [201] * count, statuses
        print(
            f"  {count} uploads at once: {elapsed:.1f} s, {count / elapsed:.2f} uploads/s; "
            f"standings meanwhile: median {during['median ms']:.1f} ms, "
            f"p95 {during['p95 ms']:.1f} ms"
        )
    finally:
        server.close()


def checking(scratch: Path, count: int, bots: int, games: int, clients: int, at_once: int) -> None:
    """Reads of the standings while ``count`` uploads are checked."""
    folder = scratch / "checking"
    with Ladder.init(folder) as ladder:
        build(ladder, bots, games)
        tokens = [add_author(ladder, f"author{n}").token for n in range(count)]
    archives = _archives(scratch, count)
    config = scratch / "checking.toml"
    config.write_text(f"[limits]\nchecks_at_once = {at_once}\n")
    server = Server(folder, config if at_once > 0 else None)  # 0: a server before [limits]
    try:
        _get(f"{server.address}api/standings")  # the first read fits; the rest read the fit
        quiet = hammer(f"{server.address}api/standings", clients, 3.0)
        done = threading.Event()
        started = time.perf_counter()
        with ThreadPoolExecutor(max_workers=count) as pool:
            sent = [
                pool.submit(_upload, server.address, tokens[n], archives[n]) for n in range(count)
            ]
            waiter = threading.Thread(target=lambda: ([f.result() for f in sent], done.set()))
            waiter.start()
            during = hammer(f"{server.address}api/standings", clients, 3600.0, until=done)
            statuses = [future.result() for future in sent]
        elapsed = time.perf_counter() - started
        after = hammer(f"{server.address}api/standings", clients, 5.0)  # the new bots listed
        shown = {status: statuses.count(status) for status in sorted(set(statuses))}
        print(
            f"  standings alone, {clients} clients: median {quiet['median ms']:.1f} ms, "
            f"p99 {quiet['p99 ms']:.1f} ms"
        )
        print(
            f"  {count} uploads at once, {at_once} checked at a time: {elapsed:.1f} s until the "
            f"last answer ({count / elapsed:.2f} uploads/s); answers {shown}"
        )
        print(
            f"  standings meanwhile, {clients} clients, {during['requests']:.0f} requests: "
            f"median {during['median ms']:.1f} ms, p95 {during['p95 ms']:.1f} ms, "
            f"p99 {during['p99 ms']:.1f} ms, worst {during['max ms']:.1f} ms"
        )
        print(
            f"  standings after, {clients} clients: median {after['median ms']:.1f} ms, "
            f"p99 {after['p99 ms']:.1f} ms, worst {after['max ms']:.1f} ms"
        )
    finally:
        server.close()


def scheduler_overhead(scratch: Path, steps: int, workers: int, repeats: int) -> None:
    folder = scratch / "scheduler"
    settings = SchedulerSettings(
        pairing=PairingSettings(matches=8, placement=0), games_per_match=2, rules=RULES
    )
    rates: dict[str, list[float]] = {"scheduler": [], "bare": []}
    with Ladder.init(folder) as ladder:
        for name, sample in BOTS.items():
            ladder.submit(reference.folder(sample), name)
        with (
            Scheduler(ladder, settings, workers=workers) as scheduler,
            local_executor(workers) as bare_pool,
            scheduler.pools(workers) as kept_pool,
        ):
            for pool in (bare_pool, kept_pool):  # both pools' workers started before timing
                list(pool.map(time.sleep, [0.5] * workers))
            for repeat in range(repeats):
                first = _last_match(ladder) + 1
                started = time.perf_counter()
                games = sum(step.games for step in (scheduler.step() for _ in range(steps)) if step)
                rates["scheduler"].append(games / (time.perf_counter() - started))
                jobs = _jobs(ladder, first, scratch / f"bare-{repeat}")
                started = time.perf_counter()
                played = sum(bare_pool.map(bare_match, *zip(*jobs, strict=True)))
                rates["bare"].append(played / (time.perf_counter() - started))
                assert played == games, (played, games)
                print(
                    f"  repeat {repeat + 1}: {games} games; scheduler "
                    f"{rates['scheduler'][-1]:.2f} games/s, bare {rates['bare'][-1]:.2f} games/s"
                )
    mean = {kind: statistics.mean(values) for kind, values in rates.items()}
    overhead = (1 - mean["scheduler"] / mean["bare"]) * 100
    print(
        f"  mean: scheduler {mean['scheduler']:.2f}, bare {mean['bare']:.2f} games/s: "
        f"the scheduler's overhead {overhead:.1f}%"
    )


def _last_match(ladder: Ladder) -> int:
    with Session(ladder.engine) as session:
        return session.exec(select(Match.id).order_by(col(Match.id).desc())).first() or 0


def _jobs(ladder: Ladder, first: int, where: Path) -> list[tuple[str, str, dict[str, Any], str]]:
    """The scheduler's matches from ``first`` on, as bare ``run_match`` jobs."""
    with Session(ladder.engine) as session:
        folders = dict(session.exec(select(BotVersion.id, BotVersion.folder)).all())
        matches = session.exec(select(Match).where(Match.id >= first).order_by(col(Match.id)))
        return [
            (
                str(ladder.folder / folders[match.a_version_id]),
                str(ladder.folder / folders[match.b_version_id]),
                json.loads(json.dumps(match.settings)),
                str(where / str(match.id)),
            )
            for match in matches
        ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=100)
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--uploads", type=int, default=4)
    parser.add_argument("--checking", type=int, default=45)
    parser.add_argument("--checking-bots", type=int, default=20)
    parser.add_argument("--checking-games", type=int, default=10_000)
    parser.add_argument(
        "--checks-at-once", type=int, default=2, help="0: no settings file (an older server)"
    )
    parser.add_argument(
        "--only", choices=["reads", "uploads", "checking", "scheduler"], action="append"
    )
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}")
    parts = set(args.only or ["reads", "uploads", "checking", "scheduler"])
    with tempfile.TemporaryDirectory(prefix="pitch-service-") as scratch:
        if "reads" in parts:
            print(f"reads: {args.bots} bots, {args.games:,} games")
            reads(Path(scratch), args.bots, args.games, args.clients, args.seconds)
        if "uploads" in parts:
            print("uploads:")
            uploads(Path(scratch), args.uploads)
        if "checking" in parts:
            print(
                f"reads while uploads are checked: {args.checking_bots} bots, "
                f"{args.checking_games:,} games"
            )
            checking(
                Path(scratch),
                args.checking,
                args.checking_bots,
                args.checking_games,
                args.clients,
                args.checks_at_once,
            )
        if "scheduler" in parts:
            print(f"scheduler: {args.steps} steps of 8 two-game matches, {args.workers} workers")
            scheduler_overhead(Path(scratch), args.steps, args.workers, args.repeats)
    print(f"load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
