"""The workers that play a match's deal pairs: one referee each, on threads or processes.

Each worker asks the match for its next games when it is free, so a worker that drew
short games takes more of them and all finish together: a lone worker takes a deal pair,
each of two or more a game of its own letter (``_Games``), and no bot process plays both
games of a deal (``schedule.process_slots``). One worker runs on a thread of
the match's process (which is also how bots started by hand join); more run in worker
processes, one referee each, so they use every core, each pinned to its own unless
``settings.affinity`` is off. In a process that keeps bots warm (a ladder's pool worker:
``warm.keep_bots_warm``), the lone worker's referee borrows its bot processes from the
ones earlier matches left, on other deals (``warm.WarmBots``).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pitch_sdk.record import write_record

from ..errors import BotError
from ..live import Publisher
from ..referee import Referee
from ..warm import WarmBots, warm_house
from ..workers import die_with_parent, leave_interrupts_to_parent, pin_to_core, usable_cores
from .folder import MatchFolder
from .outcomes import GameOutcome
from .schedule import SIDES, GameSpec, process_slots, seats, slot_key
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
        """The bot of each seat: ``A1``/``A2`` are team A's seats, ``B1``/``B2`` team B's
        (each with a process for the a games and another for the b games:
        ``schedule.process_slots``; ``schedule.seats`` puts them at the table)."""
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

    Each worker talks to the match over its own pipe: it asks for a pair when it is
    free, reports each outcome and what its referee says (each line said once, however
    many workers say it), and says when it is done. A pipe, not a queue, because a
    multiprocessing queue's named semaphores outlive a worker stopped at the wrong moment,
    and the resource tracker then prints a warning after the match's own last word.

    Raises:
        WorkerError: a worker failed, or ended without saying it was done (a killed
        process, a crash), taking its pair with it, so the match cannot finish.
    """
    count = min(job.settings.concurrency, max(1, sum(map(len, pairs))))
    todo = _Games(pairs, by_letter=count > 1)
    workers = [_start_worker(job, w, count, announce) for w in range(count)]
    said: set[str] = set()
    try:
        busy: dict[Any, _Worker] = {worker.conn: worker for worker in workers}
        while busy:
            ready = multiprocessing.connection.wait(list(busy), timeout=0.5)
            # A worker that said nothing before it ended (a thread's pipe never reads EOF)
            # took its pair with it; one that said its last word just after the wait
            # timed out has it in the pipe, read at the next turn.
            for worker in busy.values():
                if not ready and not worker.runner.is_alive() and not worker.conn.poll():
                    raise _ended_early(worker, job.root)
            for conn in ready:
                worker = busy[conn]
                try:
                    kind, value = worker.conn.recv()
                except EOFError:
                    raise _ended_early(worker, job.root) from None
                if kind == "next":
                    worker.conn.send(todo.next_for(worker.number))
                elif kind == "outcome":
                    yield value
                elif kind == "say":
                    if value not in said:
                        said.add(value)
                        announce(value)
                elif kind == "done":
                    del busy[conn]
                else:
                    raise WorkerError(f"{value}; the finished games are kept in {job.root}")
    finally:
        with _interrupts_deferred():
            for worker in workers:
                worker.tell_to_stop()
            for worker in workers:
                worker.wait()


class _Games:
    """The games a match still has to hand out to its workers.

    A worker keeps a process per seat for each game letter it plays (``process_slots``),
    so that the two games of a deal pair never share one; starting a bot's processes is
    what that costs. So each worker of a pool of two or more takes the games of its own
    letter (``a`` for even workers, ``b`` for odd ones), one at a time, and only those of
    the other letter when its own are all handed out: most workers start the processes
    of one letter only, and a pair's two games play at once on two workers. A lone
    worker takes whole pairs.
    """

    def __init__(self, pairs: list[list[GameSpec]], by_letter: bool) -> None:
        self.by_letter = by_letter
        self.pairs = collections.deque(pairs)
        self.letters = {side: collections.deque[GameSpec]() for side in SIDES}
        if by_letter:
            for spec in (spec for pair in pairs for spec in pair):
                self.letters[spec.side].append(spec)

    def next_for(self, worker: int) -> list[GameSpec] | None:
        """What ``worker`` plays next, or ``None``: nothing is left."""
        if not self.by_letter:
            return self.pairs.popleft() if self.pairs else None
        own = SIDES[worker % len(SIDES)]
        for side in (own, *(side for side in SIDES if side != own)):
            if self.letters[side]:
                return [self.letters[side].popleft()]
        return None


@dataclass
class _Worker:
    """The match's end of one worker: its pipe, and the thread or process it runs in."""

    number: int
    conn: multiprocessing.connection.Connection
    runner: threading.Thread | multiprocessing.process.BaseProcess

    def tell_to_stop(self) -> None:
        """Tell the worker to stop, in the middle of its game if need be."""
        with contextlib.suppress(OSError):
            self.conn.send(None)  # unasked-for: the match has stopped

    def wait(self) -> None:
        """Wait for the worker to end; kill it if it hangs."""
        self.runner.join(timeout=30)
        if isinstance(self.runner, multiprocessing.process.BaseProcess) and self.runner.is_alive():
            self.runner.kill()
            self.runner.join()
        self.conn.close()


def _start_worker(job: Job, number: int, count: int, announce: Callable[[str], None]) -> _Worker:
    """One worker on a thread of this process when it is the only one (so that bots
    started by hand can join it), else in a worker process of its own."""
    conn, worker_conn = multiprocessing.Pipe()
    runner: threading.Thread | multiprocessing.process.BaseProcess
    if count == 1:
        runner = threading.Thread(target=_work, args=(job, number, worker_conn, announce))
    else:
        cores = usable_cores() if job.settings.affinity else None
        runner = multiprocessing.get_context("spawn").Process(
            target=_worker_main, args=(job, number, os.getpid(), cores, worker_conn)
        )
    runner.daemon = True
    runner.start()
    if count > 1:
        worker_conn.close()  # the worker's own copy is in its process: its end reads EOF
    return _Worker(number, conn, runner)


def _ended_early(worker: _Worker, root: Path) -> WorkerError:
    worker.runner.join(timeout=5)  # a process whose pipe closed is exiting: read its code
    exitcode = getattr(worker.runner, "exitcode", None)  # threads have none
    how = "stopped on an error" if exitcode is None else f"died (exit {exitcode})"
    ended = f"worker {worker.number} {how} before the match ended"
    return WorkerError(f"{ended}; the finished games are kept in {root}")


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


class _MatchLine:
    """A worker's end of its pipe: asks for pairs, reports outcomes, hears the stop.

    The match sends only answers to ``next_pair`` and, unasked, the stop; so anything
    waiting on the pipe while a game plays is the stop."""

    def __init__(self, conn: multiprocessing.connection.Connection) -> None:
        self.conn = conn
        self.stopping = False

    def next_pair(self) -> list[GameSpec] | None:
        if self.stopping:
            return None
        self.conn.send(("next", None))
        pair = self.conn.recv()
        self.stopping = pair is None
        return pair

    def stopped(self) -> bool:
        if not self.stopping and self.conn.poll():
            self.stopping = self.conn.recv() is None
        return self.stopping

    def report(self, outcome: GameOutcome) -> None:
        self.conn.send(("outcome", outcome))


def _work(
    job: Job,
    worker: int,
    conn: multiprocessing.connection.Connection,
    announce: Callable[[str], None],
) -> None:
    """Play pairs from the match until it says none are left (or stops), then say done,
    or why this worker failed. On this process's warm house if it has one."""
    line = _MatchLine(conn)
    house = warm_house()
    try:
        if house is None:
            asyncio.run(_play_pairs(job, worker, line, announce))
        else:
            house.run(_play_pairs(job, worker, line, announce, house.bots))
    except (BotError, MatchError, OSError, ValueError) as error:
        message: tuple[str, str | None] = ("failed", f"worker {worker}: {error}")
    else:
        message = ("done", None)
    with contextlib.suppress(OSError):  # the match may be gone already
        conn.send(message)


def _worker_main(
    job: Job,
    worker: int,
    parent: int,
    cores: list[int] | None,
    conn: multiprocessing.connection.Connection,
) -> None:
    """A worker process: its own referee and bots; dies with the match process."""
    leave_interrupts_to_parent()
    die_with_parent(parent)
    if cores:
        pin_to_core(worker, cores)
    _work(job, worker, conn, lambda text: conn.send(("say", text)))


STOP_POLL_S = 0.1
"""How often a worker looks whether the match has stopped, while a game plays."""


async def _finished(game: asyncio.Future[Any], stopped: Callable[[], bool]) -> bool:
    """Wait for ``game`` (or the start of its bots); if the match stops first, cancel it
    and return False.

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
    line: _MatchLine,
    announce: Callable[[str], None],
    warm: WarmBots | None = None,
) -> None:
    settings = job.settings
    async with Referee(
        MatchFolder(job.root).worker_logs(worker),
        settings.referee_settings(job.sandboxed),
        announce=announce,
        log_base=job.root,
        warm=warm,
        deals=str(settings.seed),
    ) as referee:
        await play_pairs_at(referee, job, line.next_pair, line.report, line.stopped)


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
    entrants = job.seat_entrants()
    slots = process_slots(entrants, job.settings.log_cap_bytes)
    settings = job.settings
    while (pair := next_pair()) is not None:
        # The processes of every letter the pair has, started at once (bots started by
        # hand: asked for at once), rather than four at each game's start.
        letters = sorted({spec.side for spec in pair})
        starting = asyncio.ensure_future(
            referee.start([slots[slot_key(seat, side)] for side in letters for seat in entrants])
        )
        if not await _finished(starting, stopped):
            return
        starting.result()  # bots by hand that did not come: AttachTimeoutError
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
