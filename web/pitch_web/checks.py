"""Uploads' checks on processes of their own, behind a bounded queue: the server's reads
never wait for them.

An upload's check (unpack, smoke game, conformance check, in the sandbox) burns CPU for
seconds. Run in the server's threads, the checks held the GIL and Starlette's shared
thread pool, which also serves every synchronous read route: 45 uploads at once stalled
``/api/standings`` for over 15 s. Here they run on ``workers`` processes of their own,
each at a lower CPU priority (``nice``), so that a read waits for neither a thread nor the
GIL, and at most ``workers`` checks' bots compete for the cores. (A bot starts a session
of its own, which with the kernel's autogroups is a scheduling group that its nice value
does not lower against the server's: ``bench/RESULTS.md``.) At most ``queued`` uploads
wait for a worker; one more is told to come back later (``QueueFull``: a 503 with
Retry-After), and so is an author with ``per_author`` uploads in the queue or in a check
already (``AuthorBusy``: a 429).

A waiting check whose client has gone (``pitch submit`` killed, a connection dropped) is
dropped before it starts. ``close`` (the server's shutdown) cancels the waiting checks
and kills the running ones, whose sandboxed bots die with them.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from contextlib import contextmanager
from multiprocessing.context import SpawnContext, SpawnProcess
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

from pitch_ladder.archive import ArchiveLimits
from pitch_ladder.ladder import Ladder
from pitch_ladder.models import Author
from pitch_ladder.quotas import AuthorLimits, check_stored, folder_bytes, usage
from pitch_ladder.submissions import Verdict, submit_upload

log = logging.getLogger("pitch_web.checks")
NICE = 10
"""How much lower the checks' CPU priority is than the server's."""
QUEUE_RETRY_S = 30
"""Retry-After when the queue is full or an author has their checks in it."""


class QueueFull(Exception):
    """Every place in the checks' queue is taken: the service's 503."""


class AuthorBusy(Exception):
    """The author has as many uploads in the queue or in a check as they may."""


class Stopping(Exception):
    """The server is stopping: the check was cancelled or stopped."""


class CheckQueue:
    """``workers`` check processes and a queue of at most ``queued`` waiting uploads.

    Used from the server's event loop only (its counts need no lock).
    """

    def __init__(self, workers: int = 2, queued: int = 64, *, nice: int = NICE) -> None:
        if workers < 1 or queued < 0:
            raise ValueError("a check queue needs a worker and a queue of 0 or more")
        self.workers = workers
        self.queued = queued
        self.nice = nice
        self.waiting = 0
        """Uploads admitted and not yet checked (their bodies arriving, or waiting)."""
        self.ready = 0
        """Uploads received whole and waiting for a worker."""
        self.running = 0
        self.started = 0
        """Checks handed to a worker since the server started."""
        self.dropped = 0
        """Waiting checks whose client left before their turn."""
        self._slots: asyncio.Semaphore | None = None
        self._by_author: Counter[int] = Counter()
        self._pool: ProcessPoolExecutor | None = None
        self._context = RecordingContext()
        self._submitter = ThreadPoolExecutor(1, thread_name_prefix="checks")
        self._closed = False

    @contextmanager
    def ticket(self, author: int, per_author: int) -> Iterator[Ticket]:
        """A place in the queue for one upload of ``author``, kept until the block ends.

        Raises:
            Stopping: the server is stopping.
            AuthorBusy: the author has ``per_author`` uploads queued or checked already.
            QueueFull: ``queued`` uploads are waiting already.
        """
        if self._closed:
            raise Stopping("the server is stopping")
        if self._by_author[author] >= per_author:
            raise AuthorBusy(
                f"over your limit: {self._by_author[author]} of your uploads are being "
                f"checked or waiting for a check, the most you may have at once is {per_author}"
            )
        if self.waiting >= self.queued:
            raise QueueFull(
                f"the server is busy: {self.waiting} uploads are waiting for a check; "
                "send it again later"
            )
        self._by_author[author] += 1
        self.waiting += 1
        ticket = Ticket(self)
        try:
            yield ticket
        finally:
            self._by_author[author] -= 1
            if not self._by_author[author]:
                del self._by_author[author]
            if not ticket.turn:
                self.waiting -= 1

    def processes(self) -> list[BaseProcess]:
        """The check processes alive now (none before the first check)."""
        return [process for process in self._context.made if process.is_alive()]

    def close(self) -> None:
        """Cancel the waiting checks and kill the running ones (and so their bots)."""
        self._closed = True
        self._submitter.shutdown(wait=False)
        pool, self._pool = self._pool, None
        if pool is None:
            return
        processes = self.processes()
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            if process.is_alive():
                process.kill()
        for process in processes:
            process.join(5)

    def _executor(self) -> ProcessPoolExecutor:
        if self._closed:
            raise RuntimeError("the check queue is closed")
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                self.workers,
                self._context,
                initializer=_start_worker,
                initargs=(os.getpid(), self.nice),
            )
        return self._pool

    def _semaphore(self) -> asyncio.Semaphore:
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.workers)
        return self._slots


class Ticket:
    """One upload's place in a ``CheckQueue``."""

    def __init__(self, queue: CheckQueue) -> None:
        self.queue = queue
        self.turn = False

    async def run(
        self, gone: Callable[[], Any], check: Callable[..., Verdict], *args: Any
    ) -> Verdict | None:
        """Wait for a worker, then run ``check(*args)`` on it; None if the client left first.

        ``gone`` is an awaitable factory that returns once the client has disconnected
        (its ``receive`` after the body).

        Raises:
            Stopping: the server stopped before or during the check.
            Whatever ``check`` raises.
        """
        queue = self.queue
        slots = queue._semaphore()
        turn = asyncio.ensure_future(slots.acquire())
        watch = asyncio.ensure_future(gone())
        queue.ready += 1
        try:
            await asyncio.wait({turn, watch}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                slots.release()
            turn.cancel()
            raise
        finally:
            queue.ready -= 1
            watch.cancel()
        if not turn.done() or turn.cancelled():
            turn.cancel()
            queue.dropped += 1
            log.info("dropped a queued check: its client has gone")
            return None
        self.turn = True
        queue.waiting -= 1
        queue.running += 1
        try:
            queue.started += 1
            try:
                # Submitted from one long-lived thread: a worker dies with the thread that
                # started it (PR_SET_PDEATHSIG), and a request's thread may end first.
                submitted = await asyncio.get_running_loop().run_in_executor(
                    queue._submitter, queue._executor().submit, check, *args
                )
                return await asyncio.wrap_future(submitted)
            except (asyncio.CancelledError, RuntimeError, OSError) as error:
                task = asyncio.current_task()
                if queue._closed and not (task and task.cancelling()):
                    raise Stopping("the server is stopping") from error  # ``close`` killed it
                raise
        finally:
            queue.running -= 1
            slots.release()


class RecordingContext(SpawnContext):
    """The spawn context, keeping every process it starts: a ``ProcessPoolExecutor`` made
    with it has its workers there (the executor has no public list of them), for
    ``CheckQueue.close`` to kill."""

    def __init__(self) -> None:
        super().__init__()
        self.made: list[BaseProcess] = []

    # typeshed names the context's Process as the class itself; a factory that returns one
    # is called the same way by the executor
    def Process(self, *args: Any, **kwargs: Any) -> SpawnProcess:  # type: ignore[override]
        process = SpawnProcess(*args, **kwargs)
        self.made.append(process)
        return process


def _start_worker(parent: int, nice: int) -> None:
    """A check process: lower priority, dies with the server, leaves Ctrl-C to it."""
    from pitch_referee.workers import die_with_parent

    die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.nice(nice)


_ladders: dict[tuple[str, str], Ladder] = {}
"""The ladder each check process has open, by folder and database URL."""


def check_upload(
    folder: str,
    url: str,
    author_id: int,
    upload: str,
    limits: ArchiveLimits,
    trust_bots: bool,
    quota: AuthorLimits,
) -> Verdict:
    """In a check process: ``submit_upload`` of the archive at ``upload`` for the author
    ``author_id``, refused (``QuotaExceeded``) if the bot's files unpacked would put the
    author past their stored limits.

    Raises:
        ForbiddenError: the bot's name is another author's.
        QuotaExceeded: over the author's versions or disk.
    """
    ladder = _ladders.get((folder, url))
    if ladder is None:
        ladder = _ladders[folder, url] = Ladder.open(Path(folder), url)
    from sqlmodel import Session

    with Session(ladder.engine) as session:
        author = session.get_one(Author, author_id)
        session.expunge(author)

    def admit(bot: Path) -> None:
        check_stored(quota, usage(ladder, ladder.folder, author_id), folder_bytes(bot))

    with open(upload, "rb") as archive:
        return submit_upload(ladder, author, archive, limits, trust_bots=trust_bots, admit=admit)
