"""A cluster on this machine (``pitch cluster local``): a scheduler and worker processes,
each worker playing one game at a time and, like ``pitch match``'s workers, pinned with
its bots to a core of its own.

Pinning matters as much here as for the local pool: a game is a chain of round trips
between the referee and four bots, and two unpinned chains on two cores leave them idle
part of the time (``bench/RESULTS.md``, match). LocalCluster names its workers 0..N-1,
which says each one's core.

Imports Dask: only cluster code imports this module.
"""

from __future__ import annotations

import os

from distributed import Client, LocalCluster, Worker, WorkerPlugin

from pitch_referee.workers import usable_cores


class PinToCore(WorkerPlugin):
    """Pins each worker process, every thread of it, to core ``name`` (round robin over
    the cores the cluster's starter may use); the bots it starts inherit the core."""

    name = "pitch-pin-to-core"

    def __init__(self, cores: list[int]) -> None:
        self.cores = cores

    def setup(self, worker: Worker) -> None:
        if not hasattr(os, "sched_setaffinity") or not isinstance(worker.name, int):
            return
        core = {self.cores[worker.name % len(self.cores)]}
        for thread in os.listdir("/proc/self/task"):  # threads made later inherit it
            os.sched_setaffinity(int(thread), core)


def local_cluster(
    workers: int, host: str = "127.0.0.1", port: int = 0, affinity: bool = True
) -> LocalCluster:
    """Start a scheduler on ``host``:``port`` (0: any free port) and ``workers`` worker
    processes of one thread each, pinned to their cores if ``affinity``."""
    cluster = LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        host=host,
        scheduler_port=port,
        dashboard_address=":0",
    )
    if affinity:
        with Client(cluster, set_as_default=False) as client:
            client.register_plugin(PinToCore(usable_cores()))
    return cluster
