"""The cluster's task: a few deal pairs of one match, played on a worker, handed back as
plain data.

A task is a chunk of a match's deal pairs (``owner.pairs_a_task`` of them), never a whole
match, so that one slow match does not hold one worker while others idle, and never less
than a pair. A chunk of several pairs costs the scheduler and the owner's client one round
trip for all its games, where a task a pair cost one a pair (bench/RESULTS.md, cluster).
The worker plays the chunk's pairs as a local match worker would (the same referee and
``match.play_pairs_at``, the sandbox where the owner's settings say so) into a scratch
match folder, and returns the finished records (verified, compressed), their outcomes and
what the bots logged meanwhile; the owner writes them into the real match folder. The
task touches nothing of the owner's: its games' live journals reach the owner as Dask
events (``live``), wherever the worker is. A task's games come back together when it ends:
a worker killed mid-task hands back nothing of it, and the task is played again whole.

Starting a referee and four bot processes costs about half a second, five games' worth,
and a pair has eight (each seat has one for its a game and another for its b game, so
that none sees both games of the deal), so a worker keeps the referee of its last match
open (``_Kept``) with its bots, as a local worker does from one pair to the next: the
match's next pairs on this worker play at once. Another match's task closes it first,
and so does ``IDLE_S`` without a task; a task that fails closes it too, so the next one
starts afresh. A closed match's bots wait (``warm.WarmBots``) for a later match of the
same bots on other deals, as a ladder's pool worker keeps them, until ``IDLE_S`` without
a task. One game at a time per worker: give workers one thread (``--nthreads 1``); more
threads take turns.

The worker also verifies each record it hands back, by replaying it (``verify.refusal``:
workers run the project's code; only the bots are untrusted), so that the owner only
checks the record's digest and the schedule's fields before storing it: the replay is
most of what a game cost the owner when it did it (bench/RESULTS.md, cluster). A record
travels as its file's bytes, gzip-compressed (about a quarter of a pickled dict).

Imports Dask: only cluster code imports this module.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import gzip
import hashlib
import json
import re
import shutil
import tempfile
import threading
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from distributed import Worker, get_worker

from pitch_referee.errors import BotError
from pitch_referee.match import (
    Entrant,
    GameOutcome,
    GameSpec,
    Job,
    MatchError,
    MatchFolder,
    MatchSettings,
    play_pairs_at,
)
from pitch_referee.referee import Referee
from pitch_referee.sandbox import unavailable_reason
from pitch_referee.warm import WarmBots
from pitch_sdk.gamerecord import GameRecord, RecordError
from pitch_sdk.record import GZIP_MAGIC, load_record

from ..verify import refusal
from .bots import BotRef, fetch_bot
from .live import NetworkJournals

IDLE_S = 30.0
"""How long a worker keeps a match's referee and bots (its own and those kept warm) up
after its last task."""
CLOSE_WAIT_S = 10.0
"""How long a worker that ends waits for its open match's bots to stop."""


@dataclass(frozen=True)
class VerifiedGame:
    """A game a worker played and verified by replay, as it travels to the owner."""

    outcome: GameOutcome
    """Its outcome (and termination), with the spec the owner asked for."""
    seed: int | str | None
    first_dealer: int
    players: tuple[str, ...]
    """The record's schedule fields (the bot at each seat), for the owner to check."""
    packed: bytes
    """The record file's bytes (``write_record``'s), gzip-compressed for the trip."""
    digest: str
    """sha256 of the record file's bytes (before the trip's compression), hex."""

    @classmethod
    def of(cls, outcome: GameOutcome, record: GameRecord, data: bytes) -> VerifiedGame:
        """``record`` of ``outcome``, read from the file bytes ``data`` (a compressed
        record file travels as it is)."""
        players = tuple(player.name for player in record.players)
        packed = data if data.startswith(GZIP_MAGIC) else gzip.compress(data, 6, mtime=0)
        digest = hashlib.sha256(data).hexdigest()
        return cls(outcome, record.seed, record.first_dealer, players, packed, digest)

    def data(self, compressed: bool) -> bytes:
        """The record file's bytes: ``packed`` itself when the file is ``compressed``.

        Raises:
            OSError: they did not arrive whole (not gzip, cut short, damaged).
        """
        if compressed:
            return self.packed
        try:
            return gzip.decompress(self.packed)
        except (EOFError, zlib.error) as error:
            raise OSError(f"not whole: {error}") from None


@dataclass(frozen=True)
class PlayedPairs:
    """What a task hands back: everything the owner writes, nothing it must re-read."""

    games: list[VerifiedGame]
    """The games of the task's pairs, verified, in the order they finished."""
    logs: dict[str, bytes] = field(default_factory=dict)
    """What the bots logged while these pairs played, by file name (``A1-a-<bot>.log``...)."""
    log_folder: str = "worker-0"
    """The folder of ``logs`` in the match's ``logs/``, as the records name it: the
    worker's own (``log_folder``), so that the owner writes records as they come."""
    fetched: tuple[str, ...] = ()
    """The content hashes of the bot versions this task had to fetch."""


def play_pairs(
    a: BotRef,
    b: BotRef,
    settings: MatchSettings,
    sandboxed: bool,
    live: NetworkJournals,
    pairs: list[list[GameSpec]],
    partners: tuple[BotRef | None, BotRef | None] = (None, None),
) -> PlayedPairs:
    """Play the games of ``pairs`` (deal pairs of one match, each a list of its games) on
    this worker, one pair after the other.

    Args:
        sandboxed: the owner's resolution of ``settings.sandbox``: every game of a match
            runs its bots the same way, wherever it is played.
        live: the owner's journals of the match, to which this worker sends its games'
            journal lines over the network (``live``).
        partners: the bots partnering A and B in a team match (``None``: the bot itself).

    Raises:
        RuntimeError: a pair could not be played (the message says why). Only built-in
            exceptions leave a task, so that any client can read them.
    """
    worker = get_worker()
    if sandboxed and (reason := unavailable_reason()) is not None:
        # Bots that cannot start would lose their games as faults: refuse the task, so
        # that the owner reports this worker instead of storing forfeits.
        raise RuntimeError(f"worker {worker.address} cannot sandbox the bots: {reason}")
    try:
        refs = [a, b, *(ref for ref in partners if ref is not None)]
        bots = {ref.digest: fetch_bot(ref) for ref in refs}
        entrants = {digest: Entrant(bot.name, bot) for digest, (bot, _) in bots.items()}
        seated = [None if ref is None else entrants[ref.digest] for ref in partners]
        settings_text = json.dumps(settings.to_json(), sort_keys=True)
        key = (*(ref and ref.digest for ref in (a, b, *partners)), settings_text, sandboxed, live)

        def job() -> Job:
            scratch = Path(tempfile.mkdtemp(prefix="match-", dir=worker.local_directory))
            MatchFolder(scratch).games_dir.mkdir()
            a_entrant, b_entrant = entrants[a.digest], entrants[b.digest]
            return Job(a_entrant, b_entrant, settings, scratch, sandboxed, live, *seated)

        games, logs = _kept(worker).play(key, job, pairs)
    except (BotError, MatchError, OSError, RecordError) as error:
        raise RuntimeError(f"{pairs_named(pairs)} on {worker.address}: {error}") from None
    fetched = tuple(digest for digest, (_, now) in bots.items() if now)
    return PlayedPairs(games, logs, log_folder(worker), fetched)


def pairs_named(pairs: list[list[GameSpec]]) -> str:
    """``pair 3``, or ``pairs 3, 4, 5`` for a task of several."""
    numbers = [str(pair[0].pair) for pair in pairs]
    return f"pair {numbers[0]}" if len(numbers) == 1 else f"pairs {', '.join(numbers)}"


Played = tuple[list[VerifiedGame], dict[str, bytes]]


class _Table:
    """One match's open referee on this worker, with its scratch folder."""

    def __init__(self, key: object, job: Job, referee: Referee, logs: Path) -> None:
        self.key = key
        self.job = job
        self.referee = referee
        self.folder = MatchFolder(job.root)
        self.logs = logs
        self.lineup = job_lineup(job)
        self.logged: dict[str, int] = {}
        """How much of each bot log earlier pairs have handed back."""

    @classmethod
    async def open(cls, key: object, job: Job, warm: WarmBots, logs: str) -> _Table:
        """``logs``: the folder of the bots' logs in the scratch match's ``logs/``."""
        folder = MatchFolder(job.root).logs_dir / logs
        referee = Referee(
            folder,
            job.settings.referee_settings(job.sandboxed),
            announce=_quiet,
            log_base=job.root,
            warm=warm,
            deals=str(job.settings.seed),
        )
        await referee.__aenter__()
        return cls(key, job, referee, folder)

    async def play(self, pairs: list[list[GameSpec]]) -> Played:
        outcomes: list[GameOutcome] = []
        todo = iter(pairs)
        await play_pairs_at(self.referee, self.job, lambda: next(todo, None), outcomes.append)
        return [self._verified(outcome) for outcome in outcomes], self._new_logs()

    def _verified(self, outcome: GameOutcome) -> VerifiedGame:
        """``outcome``'s record, read (and removed), verified by replay.

        Raises:
            RecordError: the record does not read, or ``verify.refusal`` refuses it (a
                referee that wrote a record the ladder would refuse is not trusted).
        """
        path = self.folder.record_path(outcome.spec, self.job.settings.compress_records)
        data, record = path.read_bytes(), load_record(path)
        path.unlink()
        reason = refusal(record, outcome.spec, self.job.settings, self.lineup)
        if reason is not None:
            raise RecordError(f"{outcome.spec.game_id} fails its verification: {reason}")
        return VerifiedGame.of(outcome, record, data)

    def _new_logs(self) -> dict[str, bytes]:
        logs = {}
        for path in sorted(self.logs.glob("*.log")):
            with path.open("rb") as log:
                log.seek(self.logged.get(path.name, 0))
                logs[path.name] = log.read()
                self.logged[path.name] = log.tell()
        return logs

    async def close(self) -> None:
        try:
            await self.referee.close()
        finally:
            shutil.rmtree(self.job.root, ignore_errors=True)


class _Kept:
    """A worker's event loop, on a thread of its own, and the match it keeps open."""

    def __init__(self, logs: str) -> None:
        self.logs = logs
        """The worker's folder of logs (``log_folder``)."""
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, name="pitch-referee", daemon=True).start()
        self.warm = asyncio.run_coroutine_threadsafe(WarmBots().__aenter__(), self.loop).result()
        self.table: _Table | None = None
        self.turn = asyncio.Lock()
        self.idle: asyncio.TimerHandle | None = None
        self.closing: asyncio.Task[None] | None = None
        atexit.register(self.close)

    def close(self) -> None:
        """Stop the open match's bots and the idle ones: a worker that ends leaves none
        behind (sandboxed bots die with it anyway; trusted ones run outside the sandbox)."""
        closing = asyncio.run_coroutine_threadsafe(self._close_all(), self.loop)
        with contextlib.suppress(Exception):
            closing.result(timeout=CLOSE_WAIT_S)

    def play(self, key: object, job: Callable[[], Job], pairs: list[list[GameSpec]]) -> Played:
        """Play ``pairs`` at the open table of ``key``, opened first (``job``) if needed."""
        return asyncio.run_coroutine_threadsafe(self._play(key, job, pairs), self.loop).result()

    async def _play(
        self, key: object, job: Callable[[], Job], pairs: list[list[GameSpec]]
    ) -> Played:
        async with self.turn:
            if self.idle is not None:
                self.idle.cancel()
            try:
                if self.table is None or self.table.key != key:
                    await self._close()
                    self.table = await _Table.open(key, job(), self.warm, self.logs)
                return await self.table.play(pairs)
            except BaseException:
                await self._close()  # a referee that failed is not trusted with the next task
                raise
            finally:
                self.idle = self.loop.call_later(IDLE_S, self._close_when_idle)

    def _close_when_idle(self) -> None:
        self.closing = self.loop.create_task(self._close_unless_busy())

    async def _close_unless_busy(self) -> None:
        async with self.turn:
            await self._close()
            await self.warm.stop_idle()

    async def _close_all(self) -> None:
        await self._close_unless_busy()
        await self.warm.close()

    async def _close(self) -> None:
        table, self.table = self.table, None
        if table is not None:
            await table.close()


_kept_by_worker: dict[str, _Kept] = {}
_kept_lock = threading.Lock()


def _kept(worker: Worker) -> _Kept:
    """The worker's ``_Kept`` (a worker process has one; a test's in-process cluster has
    several workers in one process)."""
    with _kept_lock:
        if worker.address not in _kept_by_worker:
            _kept_by_worker[worker.address] = _Kept(log_folder(worker))
        return _kept_by_worker[worker.address]


def _quiet(_message: str) -> None:
    """Cluster bots are never started by hand: nothing to announce."""


def job_lineup(job: Job) -> tuple[str, str, str, str]:
    """Bot A, its partner, bot B, its partner of ``job``, by name (``verify.refusal``'s
    lineup)."""
    a, a_partner, b, b_partner = (entrant.name for entrant in job.seat_entrants().values())
    return a, a_partner, b, b_partner


LOG_FOLDER = re.compile(r"worker-[A-Za-z0-9._-]+")
"""What a worker's folder of logs is called (``log_folder``), as the owner checks it."""


def log_folder(worker: Worker) -> str:
    """``worker-<the Dask worker's name>``: unique in a cluster, and the same for the
    worker that a nanny restarts, so that its logs go on where they were."""
    return "worker-" + re.sub(r"[^A-Za-z0-9._-]", "_", str(worker.name))
