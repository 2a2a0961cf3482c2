"""The owner's side of a cluster: matches whose deal pairs are the cluster's tasks.

The owner is the process that holds the match folders (and the ladder's database):
``pitch match``, ``ladder run``, the service's scheduler. ``ClusterWorkers`` takes a
match's place of worker processes (``match.Workers``): it hands the match's deal pairs to
the cluster as tasks of a few pairs each (``tasks.play_pairs``, ``pairs_a_task``) and
writes each finished task's records into the match folder, where a local worker would
have written them, before yielding their outcomes. The worker has verified each record
by replaying it; the owner checks that the bytes are those the worker verified (their
sha256) and that the game is the one it asked for (its pair, seed, first dealer and the
bots at its seats), and vouches for the record (``vouched``) so that the ladder's import
stores the bytes it holds, without reading the file or replaying the record again.
So the match's outcome log, summary, resume and the ladder's import of records are the
ones of a local match.

A worker that dies (kill -9, a lost machine) loses only its task in flight: the
scheduler gives the task to another worker. A task that has killed
``distributed.scheduler.allowed-failures`` workers (3 by default) is played again a pair
a task, so that the pair that kills is the one named: a pair whose task has killed as
many fails the match with a ``WorkerError`` naming it, as a local match whose worker
dies; its finished games are kept. A record is written only from a task's result, once
per game, so a deal played twice by two workers is still one record.

Imports Dask: only cluster code imports this module.
"""

from __future__ import annotations

import asyncio
import hashlib
import socket
import threading
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from datetime import UTC, datetime
from functools import partial
from pathlib import Path, PurePath
from typing import Any

from distributed import Client, KilledWorker, Security, as_completed
from distributed.comm.addressing import parse_host_port
from distributed.comm.core import connect as comm_connect

from pitch_referee.live import JournalPublisher
from pitch_referee.match import GameOutcome, GameSpec, Job, MatchFolder, WorkerError
from pitch_sdk.gamerecord import RecordError
from pitch_sdk.record import write_record_bytes

from ..errors import LadderError
from ..verify import seated
from ..vouched import VouchedRecords
from .bots import BotShelf
from .live import JournalReceiver
from .tasks import LOG_FOLDER, PlayedPairs, VerifiedGame, job_lineup, pairs_named, play_pairs


class ClusterError(LadderError):
    """The cluster cannot be used: its scheduler unreachable, or no workers."""


PROBE_S = 3.0
"""How long a scheduler may take to accept a connection and answer Dask's handshake: a
refused port or an unknown host fails at once, a silent peer after this, rather than
after the client's own retries."""


def connect(address: str, timeout_s: float = 10.0) -> Client:
    """A client of the Dask scheduler at ``address`` (``tcp://host:8786``).

    The address is checked, and its port tried once, before the client is made: Dask's
    client retries a refused port until its timeout, and one that fails to start prints a
    traceback when it is collected. The client fetches results from the workers
    directly: through the scheduler, each result would cost the scheduler a copy.

    Raises:
        ClusterError: the address is not a scheduler's, or nothing answers there within
            ``timeout_s``.
    """
    host, port = _endpoint(address)
    _probe(address, host, port, min(timeout_s, PROBE_S))
    try:
        return Client(address, timeout=timeout_s, set_as_default=False, direct_to_workers=True)
    except (OSError, TimeoutError, ValueError) as error:
        raise _unreachable(address, error) from None


def _endpoint(address: str) -> tuple[str, int]:
    """The host and port of a ``tcp://`` or ``tls://`` scheduler address."""
    scheme, separator, location = address.rpartition("://")
    try:
        host, port = parse_host_port(location)
    except ValueError:
        port = None
    if not separator or scheme not in ("tcp", "tls") or port is None:
        raise ClusterError(
            f"{address!r} is not a Dask scheduler address: give tcp://HOST:PORT (8786 by "
            "default); `pitch cluster local` starts a scheduler and prints its address"
        )
    return host, port


def _probe(address: str, host: str, port: int, timeout_s: float) -> None:
    """Raises ``ClusterError`` unless a Dask scheduler answers at ``host:port`` in time.

    A plain TCP connection first (a refused port or an unknown host fails at once, where
    Dask retries), then Dask's own handshake (something else listening, or a network
    that accepts every connection, never completes it)."""
    try:
        socket.create_connection((host, port), timeout=timeout_s).close()
    except OSError as error:
        raise _unreachable(address, error) from None
    try:
        asyncio.run(_handshake(address, timeout_s))
    except TimeoutError:
        raise _unreachable(address, TimeoutError("no answer")) from None
    except Exception:  # a peer that is not Dask can fail its reader in any way
        raise _unreachable(address, OSError("it does not answer as a Dask scheduler")) from None


async def _handshake(address: str, timeout_s: float) -> None:
    arguments = Security().get_connection_args("client")
    comm = await asyncio.wait_for(comm_connect(address, timeout_s, **arguments), timeout_s)
    await comm.close()


def _unreachable(address: str, error: BaseException) -> ClusterError:
    reason = (str(error).strip().splitlines() or ["no answer"])[0]
    return ClusterError(
        f"cannot reach the Dask scheduler at {address} ({reason}); start one with "
        "`pitch cluster local` or `dask scheduler`"
    )


def worker_count(client: Client) -> int:
    """How many games the cluster plays at once (its workers' threads).

    Raises:
        ClusterError: the cluster has no workers.
    """
    threads = sum(client.nthreads().values())
    if not threads:
        raise ClusterError(
            f"the Dask scheduler at {client.scheduler and client.scheduler.address} has no "
            "workers: start some with `dask worker ADDRESS`"
        )
    return threads


class ClusterWorkers:
    """Plays matches' deal pairs as tasks on the cluster of ``client`` (a ``match.Workers``).

    One is shared by every match of an owner: bots are published once (``BotShelf``),
    ``fetches`` counts, by content hash, the times a worker had to fetch a bot, and
    ``playing`` the matches playing now (how many share the workers: ``pairs_a_task``).
    ``vouched``: where the records it writes are vouched for (a ladder's import), or
    ``None``.
    """

    def __init__(self, client: Client, vouched: VouchedRecords | None = None) -> None:
        self.client = client
        self.vouched = vouched
        self.shelf = BotShelf(client)
        self.journals = JournalReceiver(client)
        self.fetches: Counter[str] = Counter()
        self.playing = 0
        self._lock = threading.Lock()

    def __call__(
        self,
        job: Job,
        pairs: list[list[GameSpec]],
        announce: Callable[[str], None],
        stop: MatchStop | None = None,
    ) -> Iterator[GameOutcome]:
        """Outcomes as pairs finish; closing the generator cancels the pairs not started,
        and so does ``stop`` (from another thread) with every pair of the match.

        Raises:
            WorkerError: a pair could not be played, or killed every worker it was given,
                or the match was stopped.
        """
        seated = [job.a, job.b, *(p for p in (job.a_partner, job.b_partner) if p is not None)]
        if any(entrant.manifest is None for entrant in seated):
            raise WorkerError("a bot started by hand cannot play on a cluster")
        a, b = self.shelf.ref(job.a.manifest), self.shelf.ref(job.b.manifest)  # type: ignore[arg-type]
        a_partner, b_partner = (
            None if p is None else self.shelf.ref(p.manifest)  # type: ignore[arg-type]
            for p in (job.a_partner, job.b_partner)
        )
        partners = (a_partner, b_partner)
        run = uuid.uuid4().hex[:12]
        assert isinstance(job.publisher, JournalPublisher)  # as resume_match makes every job
        live = self.journals.register(job.publisher)

        def submit(chunks: list[list[list[GameSpec]]]) -> dict[Any, list[list[GameSpec]]]:
            """The tasks of ``chunks``, submitted at once (one message to the scheduler)."""
            keys = [
                f"pitch-pairs-{run}-" + "-".join(str(pair[0].pair) for pair in chunk)
                for chunk in chunks
            ]
            play = partial(play_pairs, a, b, job.settings, job.sandboxed, live, partners=partners)
            futures = self.client.map(play, chunks, key=keys, pure=False)
            return dict(zip(futures, chunks, strict=True))

        with self._lock:
            self.playing += 1
            playing = self.playing
        futures: dict[Any, list[list[GameSpec]]] = {}
        try:
            size = pairs_a_task(len(pairs), sum(self.client.nthreads().values()), playing)
            futures.update(submit(_chunks(pairs, size)))
            if stop is not None:  # its tasks cancelled, each ends the wait for it below
                stop.when_stopped(lambda: self.client.cancel(list(futures)))
            finished = as_completed(futures, loop=self.client.loop)
            writer = _PairWriter(MatchFolder(job.root), job, self.vouched)
            for future in finished:
                chunk = futures.pop(future)
                try:
                    played: PlayedPairs = future.result()
                except KilledWorker:
                    if len(chunk) == 1:
                        raise _killed(chunk[0][0].pair, job.root) from None
                    # A pair a task, so that the one that kills is named.
                    alone = submit([[pair] for pair in chunk])
                    futures.update(alone)
                    finished.update(alone)
                    continue
                except Exception as error:  # the task's RuntimeError, a cancellation
                    raise _failed(chunk, error, job.root) from None
                with self._lock:
                    self.fetches.update(played.fetched)
                writer.write(played, chunk)
                yield from (game.outcome for game in played.games)
        finally:
            self.client.cancel([future for future in futures if not future.done()])
            self.journals.unregister(live)
            with self._lock:
                self.playing -= 1


PAIRS_A_TASK = 8
"""The most deal pairs a task carries: 16 games, a second or two of a worker's time, whose
scheduling costs the scheduler and the owner's client one round trip (about a
millisecond of CPU between them) where a pair a task cost eight; more would lose more
games to a worker killed mid-task and hold back a match's last games."""


def pairs_a_task(pairs: int, workers: int, matches: int = 1) -> int:
    """How many of a match's ``pairs`` (those it has left) a task carries on a cluster of
    ``workers`` that ``matches`` matches share (this one included): up to
    ``PAIRS_A_TASK``, so long as the matches make at least four tasks a worker between
    them (so that their last tasks do not hold a few workers while the others idle). A
    short match, or one match on a big cluster, gets a pair a task."""
    wanted = -(-4 * max(1, workers) // max(1, matches))  # this match's share, rounded up
    return max(1, min(PAIRS_A_TASK, pairs // wanted))


def _chunks(pairs: list[list[GameSpec]], size: int) -> list[list[list[GameSpec]]]:
    """``pairs`` in order, ``size`` at a time (the last chunk may be smaller)."""
    return [pairs[start : start + size] for start in range(0, len(pairs), size)]


def _killed(pair: int, root: Path) -> WorkerError:
    return WorkerError(
        f"pair {pair} killed every cluster worker that played it (as many as the "
        "scheduler's allowed-failures allow), so one of its bots kills processes or "
        f"uses all the memory; the finished games are kept in {root}"
    )


def _failed(chunk: list[list[GameSpec]], error: BaseException, root: Path) -> WorkerError:
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return WorkerError(
        f"{pairs_named(chunk)} failed on the cluster ({type(error).__name__}: {text}); "
        f"the finished games are kept in {root}"
    )


class MatchStop:
    """Stops one match playing on the cluster, from another thread: its pairs are cancelled
    on the cluster, so that its wait for them ends (with a ``WorkerError``) at once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stopped = False
        self._actions: list[Callable[[], None]] = []

    def stop(self) -> None:
        with self._lock:
            self._stopped, actions, self._actions = True, self._actions, []
        for action in actions:
            action()

    def when_stopped(self, action: Callable[[], None]) -> None:
        """Call ``action`` when the match is stopped (now, if it is already)."""
        with self._lock:
            if not self._stopped:
                self._actions.append(action)
                return
        action()


class _PairWriter:
    """Writes finished pairs into a match folder as its local workers would have."""

    def __init__(self, folder: MatchFolder, job: Job, vouched: VouchedRecords | None) -> None:
        self.folder = folder
        self.compress = job.settings.compress_records
        self.lineup = job_lineup(job)
        self.vouched = vouched
        self.bots: dict[str, object] = dict(job.seat_entrants())
        """The bot in each slot (``A1``...), whose log files share one budget."""
        self.budget = job.settings.log_budget_bytes
        self.used: dict[object, int] = {}
        """What each bot's logs in this match hold, over every worker's files."""

    def write(self, played: PlayedPairs, pairs: list[list[GameSpec]]) -> None:
        """The logs, then each record as it came (atomically): a worker names its bots'
        logs by its own folder (``tasks.log_folder``), so a record needs no rewriting.

        Raises:
            WorkerError: a record is not the one the worker verified, or not a game of
                ``pairs`` (the task's pairs): nothing of the task is written.
        """
        asked = {spec for pair in pairs for spec in pair}
        records = [self._checked(game, asked, pairs) for game in played.games]
        if not LOG_FOLDER.fullmatch(played.log_folder):
            raise WorkerError(f"{pairs_named(pairs)} came back with logs in {played.log_folder!r}")
        logs = self.folder.logs_dir / played.log_folder
        logs.mkdir(parents=True, exist_ok=True)
        for name, data in played.logs.items():
            self._append(logs / PurePath(name).name, data)
        for game, data in zip(played.games, records, strict=True):
            path = self.folder.record_path(game.outcome.spec, self.compress)
            if self.vouched is None:
                write_record_bytes(data, path)
                continue
            # Vouched for before the file takes its name: the importer may find it at once.
            vouch = partial(self.vouched.vouch, path, game.packed, game.outcome, datetime.now(UTC))
            write_record_bytes(data, path, vouch)

    def _checked(
        self, game: VerifiedGame, asked: set[GameSpec], pairs: list[list[GameSpec]]
    ) -> bytes:
        """The record file's bytes of ``game``, if they are those its worker verified and
        it is a game ``asked`` for (one of ``pairs``) with the match's bots in their seats.

        Raises:
            WorkerError: they are not.
        """
        spec = game.outcome.spec
        try:
            data = game.data(self.compress)
            if hashlib.sha256(data).hexdigest() != game.digest:
                raise RecordError("its bytes are not those the worker verified")
            if spec not in asked:
                raise RecordError(f"{spec.game_id} is not a game of {pairs_named(pairs)}")
            claimed = (game.seed, game.first_dealer, list(game.players))
            if claimed != (spec.seed, spec.first_dealer, seated(spec, self.lineup)):
                raise RecordError(f"{spec.game_id} is not the game the schedule asked for")
        except (OSError, RecordError) as error:
            raise WorkerError(f"{pairs_named(pairs)} came back damaged: {error}") from None
        return data

    def _append(self, path: Path, data: bytes) -> None:
        """A worker's log of a bot grows by each pair's, while the bot's logs in the match
        (every worker's and seat's together) hold less than its budget."""
        slot = path.name.split("-", 1)[0]
        bot = self.bots.get(slot, slot)
        if bot not in self.used:  # a resumed match: what its earlier plays kept counts
            slots = [key for key, held in self.bots.items() if held == bot] or [slot]
            self.used[bot] = sum(
                log.stat().st_size
                for key in slots
                for log in self.folder.logs_dir.glob(f"worker-*/{key}-*.log")
            )
        kept = data[: max(0, self.budget - self.used[bot])]
        if kept:
            with path.open("ab") as log:
                log.write(kept)
            self.used[bot] += len(kept)


class ClusterExecutor(Executor):
    """The ladder's executor on a cluster: each match job runs on a thread of this
    process, with its deal pairs as the cluster's tasks.

    A job must take the keyword ``workers`` (as ``executor.play_match`` does): it is
    given this executor's ``ClusterWorkers``. ``matches`` threads play at once; give it
    ``runner.window`` of the cluster's worker count, so that every worker has pairs.

    Unlike a process pool's, its running jobs can be stopped (``stop``): a job waiting for
    its pairs would otherwise keep the process from exiting until they are all played.
    """

    def __init__(self, client: Client, matches: int) -> None:
        self.vouched = VouchedRecords()
        """The records its matches wrote, vouched for: the runner's import takes them."""
        self.workers = ClusterWorkers(client, self.vouched)
        self._threads = ThreadPoolExecutor(matches, thread_name_prefix="cluster-match")
        self._stops: dict[Future[Any], MatchStop] = {}
        self._lock = threading.Lock()

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        stop = MatchStop()
        workers = partial(self.workers, stop=stop)
        future = self._threads.submit(fn, *args, workers=workers, **kwargs)
        with self._lock:
            self._stops[future] = stop
        future.add_done_callback(self._forget)
        return future

    def stop(self, futures: Iterable[Future[Any]]) -> None:
        """Cancel these jobs (submitted here) if they wait, stop them if they run: a
        running match's pairs are cancelled, and it ends with an error."""
        for future in futures:
            future.cancel()
            with self._lock:
                stop = self._stops.get(future)
            if stop is not None:
                stop.stop()

    def _forget(self, future: Future[Any]) -> None:
        with self._lock:
            self._stops.pop(future, None)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """As ``Executor.shutdown``; with ``cancel_futures`` the running jobs are stopped
        too (``stop``)."""
        if cancel_futures:
            with self._lock:
                running = list(self._stops)
            self.stop(running)
        self._threads.shutdown(wait=wait, cancel_futures=cancel_futures)
