"""Where matches run: any ``concurrent.futures.Executor``, a local process pool by default.

The job, ``play_match``, is a picklable top-level function that takes and returns plain
data (folders as strings, settings as a dict) and never touches the database. On a Dask
cluster (``cluster.ClusterExecutor``) each job runs on a thread of the ladder's process
and hands its deal pairs to the cluster's workers (its ``workers`` argument), so the
workers need no share of the ladder folder.

Does not import the database or the rest of the ladder.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pitch_referee.errors import BotError
from pitch_referee.manifest import load_manifest
from pitch_referee.match import (
    Entrant,
    MatchError,
    MatchFolder,
    MatchSettings,
    Workers,
    resume_match,
    run_workers,
)
from pitch_referee.warm import keep_bots_warm
from pitch_referee.workers import die_with_parent, pin_to_core, usable_cores


def play_match(
    a_folder: str,
    b_folder: str,
    settings: dict[str, Any],
    root: str,
    *,
    partners: tuple[str | None, str | None] = (None, None),
    workers: Workers = run_workers,
) -> list[str]:
    """Play (or finish) one match into ``root`` and return the ids of its finished games.

    ``partners``: the folders of the bots partnering A and B in a team match (``None``:
    the bot itself). ``workers`` play its deal pairs: worker processes of this machine,
    or a cluster's.

    A folder that already holds the match is resumed: games with a record on disk are
    not played again, which is what makes a killed ladder run resumable. Who plays with
    which settings comes from the ladder, never from the folder's ``match.json``, which
    is rewritten: a file in the folder cannot change the match.

    Raises:
        RuntimeError: the match could not be played (the message says why). Only built-in
            exceptions leave the job, so that any executor can carry them back.
    """
    folder = Path(root)
    try:
        a, b = load_manifest(a_folder), load_manifest(b_folder)
        header = (Entrant(a.name, a), Entrant(b.name, b), MatchSettings.from_json(settings))
        team = tuple(None if path is None else Entrant.from_folder(path) for path in partners)
        MatchFolder(folder).write_header(*header, team)  # type: ignore[arg-type]
        summary = resume_match(folder, announce=_quiet, workers=workers)
    except (BotError, MatchError, OSError) as error:
        raise RuntimeError(f"{folder.name}: {error}") from None
    return [game.game for game in summary.games]


def _quiet(_message: str) -> None:
    """Bots of a ladder match never need a human to start them: nothing to announce."""


def local_executor(workers: int | None = None, affinity: bool = True) -> ProcessPoolExecutor:
    """A process pool of ``workers`` (default: one per core) whose workers die with us.

    Workers are spawned, not forked: a fork would inherit the run lock and database
    connections. If the ladder process is killed, each worker is killed too (Linux),
    so an interrupted run leaves nothing writing into its match folders. With
    ``affinity``, each worker (with the bots it starts) is pinned to its own core, as
    ``pitch match`` pins its workers. Each worker keeps the bot processes of its last
    matches for its next ones, on other deals (``pitch_referee.warm``).
    """
    context = multiprocessing.get_context("spawn")
    cores = usable_cores()
    return ProcessPoolExecutor(
        max_workers=workers or len(cores),
        mp_context=context,
        initializer=_start_worker,
        initargs=(os.getpid(), cores if affinity else None, context.Value("i", 0)),
    )


STOP_WAIT_S = 10.0
"""How long a run that failed waits for its stopped matches to end (on a cluster they end
as soon as their pairs are cancelled), so that none writes into a ladder it released."""


def stop_matches(executor: Executor, jobs: list[Future[Any]]) -> None:
    """Cancel the ``jobs`` that wait; where ``executor`` can stop running ones (a
    cluster's: ``ClusterExecutor.stop``), stop them too and wait for them to end, for
    ``STOP_WAIT_S`` at most. A local pool's running ones end with it (``local_pool``)."""
    stop = getattr(executor, "stop", None)
    if not callable(stop):
        for job in jobs:
            job.cancel()
        return
    stop(jobs)
    wait(jobs, timeout=STOP_WAIT_S)


@contextmanager
def local_pool(workers: int, affinity: bool = True) -> Iterator[Executor]:
    """``local_executor`` for one ``with`` block, which waits for its jobs only on success.

    On an error the run is over: its workers are killed, with the matches they play (the
    next run resumes those). Waiting for the matches would only delay the message, and
    for as long as they play: a pool's workers, even shut down, are waited for when the
    process exits.
    """
    pool = local_executor(workers, affinity)
    try:
        yield pool
    except BaseException:
        kill_workers(pool)
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()


def kill_workers(pool: ProcessPoolExecutor) -> None:
    """Kill ``pool``'s worker processes, and the matches they play (Python 3.14's
    ``ProcessPoolExecutor.kill_workers``)."""
    for process in list((pool._processes or {}).values()):
        process.kill()


def _start_worker(parent: int, cores: list[int] | None, started: Any) -> None:
    """Each pool worker: die with the ladder process; take the next core if pinning; keep
    bots warm from one match to the next."""
    die_with_parent(parent)
    if cores:
        with started.get_lock():
            index, started.value = started.value, started.value + 1
        pin_to_core(index, cores)
    keep_bots_warm()
