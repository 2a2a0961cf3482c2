"""Matches on a Dask cluster against the local pool, and what a big cluster would cost.

Run by hand: ``uv run python bench/cluster.py``. Results go in ``bench/RESULTS.md``.

1. Games per second, greedy against random over gRPC (the sandbox where the machine has
   one, ``hand_cap`` 60): ``run_match`` on the local pool (its worker processes pinned,
   the default) and on ``pitch cluster local``'s cluster (workers pinned too; its
   scheduler and workers in processes of their own, as on a real cluster), with one
   worker and with two; the four set-ups alternate, ``--rounds`` times. The clusters are
   started once and warmed with a match (their workers fetch the bots then); the local
   pool starts its worker processes for each match, as ``pitch match`` does.
2. What the owner pays per game on the cluster, the figures that say where a 100-worker
   cluster's bottleneck is: the owner process's CPU (its client, the matches'
   bookkeeping, writing records), the bytes a game's result carries back (its record,
   pickled, as the task returns it), the scheduler's round trip per task (no-op tasks)
   and its process's CPU per task.
3. The owner of a ladder run on the two-worker cluster (``Ladder.run`` with the
   ``ClusterExecutor``, four bots, a round robin): its CPU per game, which adds the
   ladder's import (each record verified by replaying it, stored with its ratings) to
   the above (the runner is the main thread); on SQLite, and on PostgreSQL with
   ``--postgres URL`` (in a schema of its own, dropped afterwards).
4. The owner alone at full speed (``--owner-seconds S``, on ``--postgres URL`` if given):
   a ladder run of four bots whose cluster delivers finished pairs as fast as the owner
   takes them. The records are real (a greedy-random match played by the referee, its
   records reused with each scheduled game's seed, first dealer and bots written in, so
   that the owner's checks pass), produced in advance as the tasks' results, one pickle a
   pair on disk; the two real Dask workers of ``pitch cluster local`` return them as
   ``play_pairs`` would (``canned_pairs``), a task's pairs together. Measured: games
   stored a second (each 10 s, and over the run), the owner's CPU a game, and its
   resident memory every 10 s; and the CPU a game of the rest of the machine's share of
   the work: the scheduler's process, the workers' (and their nannies'), the owner's
   PostgreSQL connections, and every PostgreSQL process (other sessions' included).
   ``--owner-only`` skips parts 1-3.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import pickle
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import quote

from distributed import Client

from pitch_ladder.cluster import ClusterExecutor, ClusterWorkers, owner
from pitch_ladder.cluster.tasks import PlayedPairs, VerifiedGame
from pitch_referee.match import (
    Entrant,
    GameOutcome,
    GameSpec,
    MatchSettings,
    Workers,
    run_match,
    run_workers,
)
from pitch_sdk import reference
from pitch_sdk.gamerecord import GameRecord
from pitch_sdk.record import load_record, record_bytes

HAND_CAP = 60


def play(
    workers: Workers, concurrency: int, games: int, seed: int, out: Path
) -> tuple[float, float]:
    """One match; its wall-clock seconds and this process's CPU seconds."""
    a = Entrant.from_folder(reference.folder("greedy"))
    b = Entrant.from_folder(reference.folder("random"))
    settings = MatchSettings(
        games=games, seed=seed, concurrency=concurrency, rules={"hand_cap": HAND_CAP}
    )
    wall, cpu = time.perf_counter(), time.process_time()
    summary = run_match(a, b, settings, out, announce=lambda _text: None, workers=workers)
    assert summary.games_played == games, summary.status
    return time.perf_counter() - wall, time.process_time() - cpu


def result_bytes(folder: Path) -> float:
    """Mean pickled size of a game's record, as a task hands it back."""
    sizes = [len(pickle.dumps(load_record(path))) for path in (folder / "games").iterdir()]
    return statistics.mean(sizes)


def task_round_trip(client: Client, scheduler: int, tasks: int = 2000) -> tuple[float, float]:
    """Seconds per no-op task, submitted and gathered in one batch: wall-clock, and the
    CPU of the scheduler's process (``scheduler``, a pid)."""
    before = _cpu_seconds(scheduler)
    start = time.perf_counter()
    client.gather(client.map(abs, range(tasks), pure=False))
    wall = time.perf_counter() - start
    return wall / tasks, (_cpu_seconds(scheduler) - before) / tasks


def _cpu_seconds(pid: int) -> float:
    """User and system CPU of process ``pid`` (all its threads), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def cluster_process(workers: int) -> Iterator[tuple[str, int]]:
    """``pitch cluster local --workers N`` as its own process: its address and pid (the
    scheduler's process; the workers are its children)."""
    command = [sys.executable, "-m", "pitch_cli", "cluster", "local"]
    started = subprocess.Popen(
        [*command, "--workers", str(workers), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert started.stdout is not None
        yield started.stdout.readline().split()[2], started.pid
    finally:
        started.send_signal(signal.SIGTERM)
        started.wait(timeout=60)


def ladder_owner_cpu(
    client: Client, folder: Path, db: str | None, games: int
) -> tuple[float, float]:
    """CPU seconds per game of a ladder run's owner, one round robin of four bots: the
    whole process, and its main thread alone (the runner: verifying and storing records;
    the other threads are the matches' and the client's)."""
    from pitch_ladder.ladder import Ladder  # here: the local pool's workers import this file
    from pitch_ladder.runner import window

    with Ladder.init(folder, db) as ladder:
        for name, sample in (("greedy", "greedy"), ("random", "random"), ("g2", "greedy"),
                             ("r2", "random")):  # fmt: skip
            ladder.submit(reference.folder(sample), name)
        executor = ClusterExecutor(client, window(2))
        cpu, main = time.process_time(), time.thread_time()
        report = ladder.run(1, games, {"hand_cap": HAND_CAP}, executor=executor, workers=2)
        cpu, main = time.process_time() - cpu, time.thread_time() - main
        executor.shutdown()
    return cpu / report.games, main / report.games


@contextmanager
def own_schema(url: str) -> Iterator[str]:
    """``url`` with a fresh schema of its own (libpq's ``options``), dropped afterwards."""
    import psycopg

    schema = f"pitch_bench_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute(f"CREATE SCHEMA {schema}")
        try:
            separator = "&" if "?" in url else "?"
            yield f"{url}{separator}options={quote(f'-csearch_path={schema}')}"
        finally:
            connection.execute(f"DROP SCHEMA {schema} CASCADE")


BOTS = (("greedy", "greedy"), ("random", "random"), ("g2", "greedy"), ("r2", "random"))
"""The full-speed ladder's bots: name, sample."""


def canned_pairs(store: str, *args: Any, **_kwargs: Any) -> PlayedPairs:
    """``tasks.play_pairs``' result for its pairs, read from ``store`` (made in advance by
    ``can_results``, a pickle a pair): what a worker hands back, without the playing."""
    settings, pairs = args[2], args[5]
    games: list[VerifiedGame] = []
    for pair in pairs:
        games += pickle.loads((Path(store) / f"{settings.seed}-{pair[0].pair}.pickle").read_bytes())
    return PlayedPairs(games)


def can_results(ladder: Any, pool: list[GameRecord], store: Path) -> int:
    """Every pending match's pairs, as its workers would return them, pickled into
    ``store``; the games canned. Each game is a record of ``pool`` (real games) with the
    game's seed, first dealer and bots written in."""
    from pitch_ladder.pending import PendingMatches
    from pitch_ladder.verify import seated

    store.mkdir()
    games = 0
    for match in PendingMatches(ladder.engine):
        pairs: dict[int, list[GameSpec]] = {}
        for spec in match.specs.values():
            pairs.setdefault(spec.pair, []).append(spec)
        for number, specs in pairs.items():
            verified = []
            for spec in specs:
                real = pool[games % len(pool)]
                players = tuple(
                    replace(player, name=name)
                    for player, name in zip(
                        real.players, seated(spec, match.seat_names()), strict=True
                    )
                )
                record = replace(
                    real, seed=spec.seed, first_dealer=spec.first_dealer, players=players
                )
                data = record_bytes(record, compress=False)
                outcome = GameOutcome.from_record(spec, record)
                verified.append(VerifiedGame.of(outcome, record, data))
                games += 1
            path = store / f"{match.match_settings.seed}-{number}.pickle"
            path.write_bytes(pickle.dumps(verified))
    return games


class CpuMeter:
    """CPU seconds used meanwhile by the processes that share the owner's work: the
    scheduler's (``scheduler``, ``pitch cluster local``'s process), its workers (its
    descendants), the owner's PostgreSQL connections (those of ``APPLICATION``) and all
    of PostgreSQL's processes."""

    def __init__(self, scheduler: int, db: str | None) -> None:
        import psutil

        self.psutil = psutil
        self.scheduler = psutil.Process(scheduler)
        self.db = db
        self.start = self._now()

    def _now(self) -> dict[str, dict[int, float]]:
        workers = self.scheduler.children(recursive=True)
        postgres = [
            process
            for process in self.psutil.process_iter(["name"])
            if process.info["name"] == "postgres"
        ]
        return {
            "scheduler": self._cpu([self.scheduler.pid]),
            "workers": self._cpu([process.pid for process in workers]),
            "owner's PostgreSQL connections": self._cpu(self._backends()),
            "all of PostgreSQL": self._cpu([process.pid for process in postgres]),
        }

    @staticmethod
    def _cpu(pids: list[int]) -> dict[int, float]:
        seconds = {}
        for pid in pids:
            with contextlib.suppress(FileNotFoundError, ProcessLookupError):
                seconds[pid] = _cpu_seconds(pid)
        return seconds

    def _backends(self) -> list[int]:
        if self.db is None:
            return []
        import psycopg

        meter = "pitch-bench-meter"  # not one of the owner's
        with psycopg.connect(self.db, autocommit=True, application_name=meter) as connection:
            pids = connection.execute(
                "SELECT pid FROM pg_stat_activity WHERE application_name = %s", (APPLICATION,)
            ).fetchall()
        return [pid for (pid,) in pids]

    def used(self) -> dict[str, float]:
        """CPU seconds since this meter was made, by part (a process that ended meanwhile
        is not counted; one that started counts from its start)."""
        now = self._now()
        return {
            part: sum(cpu - self.start[part].get(pid, 0.0) for pid, cpu in now[part].items())
            for part in now
        }


APPLICATION = "pitch-bench-owner"
"""The ``application_name`` of the owner's PostgreSQL connections in part 4."""


class Memory:
    """This process's resident memory (MiB) every ``every_s`` seconds, on a thread; with
    ``PYTHONTRACEMALLOC=1``, also what Python's objects hold (MiB) and where they grew."""

    def __init__(self, every_s: float = 10.0) -> None:
        self.samples: list[float] = []
        self.traced: list[float] = []
        self.snapshots: list[tracemalloc.Snapshot] = []
        self.every_s = every_s
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while True:
            status = Path("/proc/self/status").read_text()
            line = next(line for line in status.splitlines() if line.startswith("VmRSS:"))
            self.samples.append(int(line.split()[1]) / 1024)
            if tracemalloc.is_tracing():
                self.traced.append(tracemalloc.get_traced_memory()[0] / 2**20)
                snapshot = tracemalloc.take_snapshot()  # the first and the last are kept
                self.snapshots = [*self.snapshots[:1], snapshot]
            if self.stop.wait(self.every_s):
                return

    def growth(self, lines: int = 8) -> list[str]:
        """Where Python's objects grew most from the first sample to the last."""
        if len(self.snapshots) < 2:
            return []
        changes = self.snapshots[-1].compare_to(self.snapshots[0], "lineno")
        return [str(change) for change in changes[:lines]]

    def __enter__(self) -> Memory:
        self.thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop.set()
        self.thread.join()


def owner_at_full_speed(
    address: str, scheduler: int, folder: Path, db: str | None, seconds: float
) -> None:
    """Part 4: a ladder run's owner taking finished pairs as fast as it can store them."""
    from pitch_ladder.ladder import Ladder
    from pitch_ladder.runner import RunProgress, window
    from pitch_ladder.schedule_writer import schedule_rounds

    real = folder / "real"
    a = Entrant.from_folder(reference.folder("greedy"))
    b = Entrant.from_folder(reference.folder("random"))
    settings = MatchSettings(games=40, seed=7, concurrency=2, rules={"hand_cap": HAND_CAP})
    run_match(a, b, settings, real, announce=lambda _text: None)
    pool = [load_record(path) for path in sorted((real / "games").glob("*.json"))]
    games_per_match = 200
    rounds = max(1, round(1000 * seconds / (6 * games_per_match)))  # 1,000 games/s asked
    with Ladder.init(folder / "ladder", db) as ladder:
        for name, sample in BOTS:
            ladder.submit(reference.folder(sample), name)
        schedule_rounds(ladder.engine, rounds, games_per_match, {"hand_cap": HAND_CAP})
        canned = can_results(ladder, pool, folder / "canned")
        print(f"owner at full speed: {canned} games canned from {len(pool)} real records")
        owner.play_pairs = partial(canned_pairs, str(folder / "canned"))  # type: ignore[assignment]
        client = owner.connect(address)  # as `ladder run --cluster` makes its client
        executor = ClusterExecutor(client, window(2))
        stored: list[tuple[float, int]] = []

        def progress(report: RunProgress) -> None:
            stored.append((time.perf_counter(), report.games_done))

        with Memory() as memory:
            others = CpuMeter(scheduler, db)
            start, cpu = time.perf_counter(), time.process_time()
            report = ladder.run(
                rounds,
                games_per_match,
                {"hand_cap": HAND_CAP},
                executor=executor,
                workers=2,
                progress=progress,
            )
            wall, cpu = time.perf_counter() - start, time.process_time() - cpu
            used = others.used()
        executor.shutdown()
        client.close()
    assert report.games == canned, (report.games, canned)
    print(f"games stored: {report.games} in {wall:.1f} s: {report.games / wall:.0f} games/s")
    print(f"owner CPU a game: {1000 * cpu / report.games:.3f} ms")
    windows, mark, done = [], start, 0
    for at, games in stored:
        if at - mark >= 10:
            windows.append((games - done) / (at - mark))
            mark, done = at, games
    print("games/s each 10 s: " + ", ".join(f"{rate:.0f}" for rate in windows))
    print("owner RSS every 10 s (MiB): " + ", ".join(f"{mib:.0f}" for mib in memory.samples))
    if memory.traced:
        print("Python objects every 10 s (MiB): " + ", ".join(f"{m:.0f}" for m in memory.traced))
        print("\n".join(["grew most:", *memory.growth()]))
    for part, seconds in used.items():
        print(f"CPU a game, {part}: {1000 * seconds / report.games:.3f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--postgres", help="Also a ladder on this (empty) PostgreSQL database.")
    parser.add_argument("--owner-seconds", type=float, default=60.0, help="Part 4's length.")
    parser.add_argument("--owner-only", action="store_true", help="Part 4 alone.")
    arguments = parser.parse_args()
    if arguments.owner_only:
        with tempfile.TemporaryDirectory() as scratch, cluster_process(2) as (address, pid):
            if arguments.postgres:
                with own_schema(arguments.postgres) as url:
                    url += f"&application_name={APPLICATION}"
                    owner_at_full_speed(address, pid, Path(scratch), url, arguments.owner_seconds)
            else:
                owner_at_full_speed(address, pid, Path(scratch), None, arguments.owner_seconds)
        return
    games = arguments.games
    with (
        tempfile.TemporaryDirectory() as scratch,
        cluster_process(1) as (one, _),
        cluster_process(2) as (two, scheduler),
    ):
        clients = {1: Client(one, set_as_default=False), 2: Client(two, set_as_default=False)}
        owners = {size: ClusterWorkers(client) for size, client in clients.items()}
        setups: dict[str, tuple[Workers, int]] = {
            "local pool, 1 worker": (run_workers, 1),
            "cluster, 1 worker": (owners[1], 1),
            "local pool, 2 workers": (run_workers, 2),
            "cluster, 2 workers": (owners[2], 2),
        }
        counter = iter(range(10**6))
        folder: Callable[[], Path] = lambda: Path(scratch) / f"m{next(counter)}"  # noqa: E731
        for size in (1, 2):
            play(owners[size], size, 4, 0, folder())  # warm-up: the workers fetch the bots
        rates: dict[str, list[float]] = {name: [] for name in setups}
        owner_cpu: list[float] = []
        last = Path()
        for round_number in range(arguments.rounds):
            for name, (workers, size) in setups.items():
                last = folder()
                wall, cpu = play(workers, size, games, 1000 + round_number, last)
                rates[name].append(games / wall)
                if name == "cluster, 2 workers":
                    owner_cpu.append(cpu / games)
                print(f"round {round_number + 1}: {name}: {games / wall:.2f} games/s", flush=True)
        round_trip, scheduler_cpu = task_round_trip(clients[2], scheduler)
        carried = result_bytes(last)
        ladder_cpu = {"SQLite": ladder_owner_cpu(clients[2], folder(), None, games)}
        if arguments.postgres:
            with own_schema(arguments.postgres) as url:
                ladder_cpu["PostgreSQL"] = ladder_owner_cpu(clients[2], folder(), url, games)
        for client in clients.values():
            client.close()
    print()
    print("| set-up | " + " | ".join(f"run {n + 1}" for n in range(arguments.rounds)) + " | mean |")
    print("|---|" + "---|" * (arguments.rounds + 1))
    means = {}
    for name, values in rates.items():
        means[name] = statistics.mean(values)
        shown = " | ".join(f"{value:.2f}" for value in values)
        print(f"| {name} | {shown} | {means[name]:.2f} |")
    print()
    for size, plural in ((1, "worker"), (2, "workers")):
        ratio = means[f"cluster, {size} {plural}"] / means[f"local pool, {size} {plural}"]
        print(f"{size} {plural}: cluster / local pool {ratio:.3f}")
    local_scaling = means["local pool, 2 workers"] / means["local pool, 1 worker"]
    cluster_scaling = means["cluster, 2 workers"] / means["cluster, 1 worker"]
    print(f"scaling 1 -> 2 workers: local {local_scaling:.2f}, cluster {cluster_scaling:.2f}")
    owner_ms = 1000 * statistics.mean(owner_cpu)
    print(f"owner CPU per game on the cluster (client, bookkeeping, records): {owner_ms:.2f} ms")
    print(f"a game's record as the task returns it (pickled): {carried / 1024:.1f} KB")
    print(f"scheduler round trip per no-op task: {1000 * round_trip:.3f} ms")
    print(f"scheduler process CPU per no-op task: {1000 * scheduler_cpu:.3f} ms")
    for name, (seconds, main) in ladder_cpu.items():
        print(
            f"ladder run's owner CPU per game ({name}): {1000 * seconds:.2f} ms, of which "
            f"the runner (verify and store) {1000 * main:.2f} ms"
        )


if __name__ == "__main__":
    main()
