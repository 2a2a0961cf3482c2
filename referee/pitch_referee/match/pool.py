"""The workers that play a match's deal pairs: one referee each, on threads or processes.

The workers take deal pairs from one queue, so a worker that drew short games takes
more of them and all finish together. One worker runs on a thread of the match's
process (which is also how bots started by hand join); more run in worker processes,
one referee each, so they use every core, each pinned to its own unless
``settings.affinity`` is off.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import queue
import signal
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pitch_sdk.record import write_record

from ..errors import BotError
from ..game_loop import GameResult
from ..live import Publisher
from ..referee import PlayerSlot, Referee
from ..workers import die_with_parent, leave_interrupts_to_parent, pin_to_core, usable_cores
from .folder import MatchFolder
from .outcomes import GameOutcome
from .schedule import GameSpec, seats
from .settings import Entrant, MatchError, MatchSettings


class WorkerError(MatchError):
    """A worker failed or died before the match ended; the games it finished are kept,
    and resuming the match plays the rest."""


@dataclass(frozen=True)
class Job:
    """What every worker of a match needs; picklable, for worker processes."""

    a: Entrant
    b: Entrant
    settings: MatchSettings
    root: Path
    sandboxed: bool
    """Resolved once for the match (``MatchSettings.sandboxed``), so every worker agrees."""
    publisher: Publisher
    """Where each game is published as it is played (``live``: the match's journals)."""
    a_partner: Entrant | None = None
    """Who partners bot A in its team's second seat; ``None``: bot A itself (another
    process of it), as in every match but the mixed-partnership format's."""
    b_partner: Entrant | None = None

    def seat_entrants(self) -> dict[str, Entrant]:
        """The bot of each process slot: ``A1``/``A2`` are team A's seats, ``B1``/``B2``
        team B's (``schedule.seats`` puts them at the table)."""
        return {
            "A1": self.a,
            "A2": self.a_partner or self.a,
            "B1": self.b,
            "B2": self.b_partner or self.b,
        }


Workers = Callable[[Job, list[list[GameSpec]], Callable[[str], None]], Iterator[GameOutcome]]
"""Who plays a match's pairs: ``run_workers`` (this machine), or a cluster's tasks. Each
game's record is in the match folder before its outcome is yielded."""


def run_workers(
    job: Job, pairs: list[list[GameSpec]], announce: Callable[[str], None]
) -> Iterator[GameOutcome]:
    """Outcomes as games finish; closing the generator (or Ctrl-C) stops every worker,
    each in the middle of its game if need be (that game leaves no record).

    Each worker says when it has no pairs left. One that ends without saying so (a
    killed process, a crash) took a pair with it, so the match cannot finish.

    Raises:
        WorkerError: a worker failed, or ended without finishing its pairs.
    """
    count = min(job.settings.concurrency, max(1, len(pairs)))
    if count == 1:
        work: Any = queue.SimpleQueue()
        results: Any = queue.SimpleQueue()
        stop: Any = threading.Event()
        arguments = (job, 0, work, results, stop, announce)
        workers = [threading.Thread(target=_work, args=arguments)]
    else:
        context = multiprocessing.get_context("spawn")
        work, results, stop = context.Queue(), context.Queue(), context.Event()
        work.cancel_join_thread()  # a match stopped early exits without feeding its unplayed pairs
        cores = usable_cores() if job.settings.affinity else None
        workers = [
            context.Process(
                target=_worker_main, args=(job, w, os.getpid(), cores, work, results, stop)
            )
            for w in range(count)
        ]
    for pair in pairs:
        work.put(pair)
    for _ in workers:
        work.put(None)  # one "no more pairs" per worker
    for worker in workers:
        worker.daemon = True
        worker.start()
    try:
        done: set[int] = set()
        while len(done) < len(workers):
            ended = [n for n, worker in enumerate(workers) if not worker.is_alive()]
            try:
                message = results.get(timeout=0.5)
            except queue.Empty:  # so the last words of the workers that had ended are read
                _check_ended(workers, [n for n in ended if n not in done], job.root)
                continue
            if isinstance(message, int):
                done.add(message)
            elif isinstance(message, str):
                raise WorkerError(f"{message}; the finished games are kept in {job.root}")
            else:
                yield message
    finally:
        stop.set()
        with _interrupts_deferred():
            for worker in workers:
                worker.join(timeout=30)
                if isinstance(worker, multiprocessing.process.BaseProcess) and worker.is_alive():
                    worker.kill()


@contextlib.contextmanager
def _interrupts_deferred() -> Iterator[None]:
    """While the workers stop, a second Ctrl-C waits: the match must still say where it
    stopped. (Only the main thread can catch signals; elsewhere this does nothing.)"""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pressed: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda number, frame: pressed.append(number))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if pressed:
        raise KeyboardInterrupt


def _check_ended(
    workers: list[threading.Thread] | list[multiprocessing.process.BaseProcess],
    ended: list[int],
    root: Path,
) -> None:
    """Raise for the ``ended`` workers, which ended without saying they were done.

    A worker's messages are queued before it ends (a process flushes its queue before
    it exits), so a worker that had ended before an empty wait on the queue has nothing
    more to say.
    """
    if not ended:
        return
    exitcode = getattr(workers[ended[0]], "exitcode", None)  # threads have none
    how = "stopped on an error" if exitcode is None else f"died (exit {exitcode})"
    raise WorkerError(
        f"worker {ended[0]} {how} before the match ended; the finished games are kept in {root}"
    )


def _work(
    job: Job,
    worker: int,
    work: Any,
    results: Any,
    stop: Any,
    announce: Callable[[str], None],
) -> None:
    """Play pairs from ``work`` until it says none are left (or the match stops).

    Reports each outcome on ``results``, then the worker's number when it is done, or
    why it failed.
    """
    try:
        asyncio.run(_play_pairs(job, worker, work.get, results.put, announce, stop.is_set))
    except (BotError, MatchError, OSError, ValueError) as error:
        results.put(f"worker {worker}: {error}")
    else:
        results.put(worker)


def _worker_main(
    job: Job,
    worker: int,
    parent: int,
    cores: list[int] | None,
    work: Any,
    results: Any,
    stop: Any,
) -> None:
    """A worker process: its own referee and bots; dies with the match process."""
    leave_interrupts_to_parent()
    die_with_parent(parent)
    if cores:
        pin_to_core(worker, cores)
    _work(job, worker, work, results, stop, print)


STOP_POLL_S = 0.1
"""How often a worker looks whether the match has stopped, while a game plays."""


async def _finished(game: asyncio.Future[GameResult], stopped: Callable[[], bool]) -> bool:
    """Wait for ``game``; if the match stops first, cancel it and return False.

    Only the game is cancelled, never the referee around it, so that the referee still
    closes every bot it started (a cancelled close could leave one running).
    """
    while not game.done():
        await asyncio.wait({game}, timeout=STOP_POLL_S)
        if stopped() and not game.done():
            game.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await game
            return False
    return True


async def _play_pairs(
    job: Job,
    worker: int,
    next_pair: Callable[[], list[GameSpec] | None],
    report: Callable[[GameOutcome], None],
    announce: Callable[[str], None],
    stopped: Callable[[], bool] = lambda: False,
) -> None:
    settings = job.settings
    async with Referee(
        MatchFolder(job.root).worker_logs(worker),
        settings.referee_settings(job.sandboxed),
        announce=announce,
    ) as referee:
        await play_pairs_at(referee, job, next_pair, report, stopped)


async def play_pairs_at(
    referee: Referee,
    job: Job,
    next_pair: Callable[[], list[GameSpec] | None],
    report: Callable[[GameOutcome], None],
    stopped: Callable[[], bool] = lambda: False,
) -> None:
    """Play pairs from ``next_pair`` until it says none are left (or the match stops) at
    an open ``referee``, whose bot processes stay up from one pair to the next (a local
    worker's, or a cluster worker's kept between the tasks of a match); each record is
    written into ``job.root`` before its outcome is reported."""
    folder = MatchFolder(job.root)
    slots = {
        key: PlayerSlot(key, entrant.manifest, entrant.name)
        for key, entrant in job.seat_entrants().items()
    }
    settings = job.settings
    while (pair := next_pair()) is not None:
        for spec in pair:
            if stopped():
                return
            feed = job.publisher.feed(spec.game_id)
            try:
                game = asyncio.ensure_future(
                    referee.play(
                        seats(spec, slots),
                        game_id=spec.game_id,
                        seed=spec.seed,
                        options=settings.options(),
                        first_dealer=spec.first_dealer,
                        secret=str(settings.seed),
                        watchers=[feed],
                    )
                )
                if not await _finished(game, stopped):
                    return  # abandoned: it leaves no record, and resuming plays it
                result = game.result()
                write_record(result.record, folder.record_path(spec, settings.compress_records))
            finally:
                feed.close()  # live no more: the record is written, or the game abandoned
            report(GameOutcome.from_record(spec, result.record))
