"""``pitch cluster local``, and the ``--cluster`` option of the commands that play games.

Dask is imported only when a cluster is used: ``--cluster`` given (or ``PITCH_CLUSTER``
set), or ``pitch cluster local`` run.
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Iterator
from concurrent.futures import Executor
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated

import typer

from pitch_referee.errors import PitchError

if TYPE_CHECKING:
    from distributed import Client

    from pitch_referee.match import Workers

app = typer.Typer(
    name="cluster",
    help="Run games on a Dask cluster: start a local one to try it.",
    no_args_is_help=True,
)

ClusterOption = Annotated[
    str | None,
    typer.Option(
        "--cluster",
        envvar="PITCH_CLUSTER",
        metavar="ADDRESS",
        help="Play the games on the Dask cluster whose scheduler is at ADDRESS "
        "(tcp://host:8786), one deal pair a task; default: worker processes here.",
        show_default=False,
    ),
]


@contextmanager
def cluster_client(address: str) -> Iterator[Client]:
    """A client of the scheduler at ``address``, closed on the way out.

    Raises:
        ClusterError: nothing answers there, or the cluster has no workers.
    """
    from pitch_ladder.cluster import connect, worker_count

    # A lost scheduler is reported by the games it cut off, in one line each: not by the
    # client's own log of every reconnection attempt, with its tracebacks.
    logging.getLogger("distributed.client").setLevel(logging.CRITICAL)
    client = connect(address)
    try:
        worker_count(client)
        yield client
    finally:
        client.close()


@contextmanager
def match_workers(address: str | None) -> Iterator[Workers]:
    """Who plays a match's deal pairs: the cluster at ``address``, else this machine's
    worker processes.

    Raises:
        ClusterError: the cluster cannot be used (``cluster_client``).
    """
    if address is None:
        from pitch_referee.match import run_workers

        yield run_workers
        return
    from pitch_ladder.cluster import ClusterWorkers

    with cluster_client(address) as client:
        yield ClusterWorkers(client)


@contextmanager
def ladder_executor(
    address: str | None, workers: int | None
) -> Iterator[tuple[Executor | None, int | None]]:
    """Where a ladder plays its matches, and how many games at once: the cluster at
    ``address`` (all its workers' threads), else ``None`` for the local pool of ``workers``.

    Raises:
        ClusterError: the cluster cannot be used (``cluster_client``).
        PitchError: ``workers`` as well as a cluster, whose size decides.
    """
    if address is None:
        yield None, workers
        return
    if workers is not None:
        raise PitchError(
            "--workers is for the local pool: a cluster plays as many matches at once as "
            "it has workers (start more with `pitch cluster local --workers N`)"
        )
    from pitch_ladder.cluster import ClusterExecutor, worker_count
    from pitch_ladder.runner import window

    with cluster_client(address) as client:
        count = worker_count(client)
        executor = ClusterExecutor(client, window(count))
        try:
            yield executor, count
        finally:
            executor.shutdown(wait=False, cancel_futures=True)


@app.command()
def local(
    *,
    workers: Annotated[
        int,
        typer.Option(
            help="Worker processes, each playing one game at a time (default: the cores)."
        ),
    ] = 0,
    port: Annotated[int, typer.Option(help="The scheduler's port (0: any free one).")] = 8786,
    host: Annotated[
        str, typer.Option(help="Where the scheduler listens: 0.0.0.0 for other machines' workers.")
    ] = "127.0.0.1",
    affinity: Annotated[
        bool, typer.Option(help="Pin each worker, with its bots, to its own core.")
    ] = True,
) -> None:
    """Start a local Dask cluster (a scheduler and worker processes) until Ctrl-C or SIGTERM.

    Give its address to --cluster (or PITCH_CLUSTER) of `pitch ladder run`, `pitch match`
    and `pitch serve`; workers of other machines join it with `dask worker ADDRESS`.
    """
    if workers < 0:
        raise typer.BadParameter("at least 1 (0: one per core)", param_hint="--workers")
    from pitch_ladder.cluster.local import local_cluster
    from pitch_referee.workers import usable_cores

    count = workers or len(usable_cores())
    cluster = local_cluster(count, host, port, affinity)
    try:
        typer.echo(f"scheduler at {cluster.scheduler_address} with {count} worker(s)")
        typer.echo(f"use it with --cluster {cluster.scheduler_address}; Ctrl-C stops it")
        stop = threading.Event()
        signal.signal(signal.SIGTERM, lambda _number, _frame: stop.set())
        stop.wait()
    except KeyboardInterrupt:
        pass
    finally:
        typer.echo("stopping the cluster")
        cluster.close()
