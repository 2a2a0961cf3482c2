"""The cluster's task: one deal pair, played on a worker, handed back as plain data.

A task is a deal pair, never a whole match, so that one slow match does not hold one
worker while others idle. The worker plays the pair as a local match worker would (the
same referee and ``match.play_pairs_at``, the sandbox where the owner's settings say so)
into a scratch match folder, and returns the finished records (plain dicts), their
outcomes and what the bots logged meanwhile; the owner writes them into the real match
folder. The task touches nothing of the owner's: its games' live journals reach the owner
as Dask events (``live``), wherever the worker is.

Starting a referee and four bot processes costs about half a second, five games' worth,
and a pair has eight (each seat has one for its a game and another for its b game, so
that none sees both games of the deal), so a worker keeps the referee of its last match
open (``_Kept``) with its bots, as a local worker does from one pair to the next: the
match's next pair on this worker plays at once. Another match's pair closes it first,
and so does ``IDLE_S`` without a pair; a pair that fails closes it too, so the next one
starts afresh. A closed match's bots wait (``warm.WarmBots``) for a later match of the
same bots on other deals, as a ladder's pool worker keeps them, until ``IDLE_S`` without
a pair. One game at a time per worker: give workers one thread (``--nthreads 1``); more
threads take turns.

Imports Dask: only cluster code imports this module.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import json
import shutil
import tempfile
import threading
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
from pitch_sdk.record import load_record

from .bots import BotRef, fetch_bot
from .live import NetworkJournals

IDLE_S = 30.0
"""How long a worker keeps a match's referee and bots (its own and those kept warm) up
after its last pair."""
CLOSE_WAIT_S = 10.0
"""How long a worker that ends waits for its open match's bots to stop."""


@dataclass(frozen=True)
class PlayedPair:
    """What a task hands back: everything the owner writes, nothing it must re-read."""

    outcomes: list[GameOutcome]
    records: list[GameRecord]
    """Each outcome's game record, in the same order."""
    logs: dict[str, bytes] = field(default_factory=dict)
    """What the bots logged while this pair played, by file name (``A1-a-<bot>.log``...)."""
    worker: str = ""
    """The Dask worker's address."""
    fetched: tuple[str, ...] = ()
    """The content hashes of the bot versions this task had to fetch."""


def play_pair(
    a: BotRef,
    b: BotRef,
    settings: MatchSettings,
    sandboxed: bool,
    live: NetworkJournals,
    pair: list[GameSpec],
    partners: tuple[BotRef | None, BotRef | None] = (None, None),
) -> PlayedPair:
    """Play the games of one deal pair on this worker.

    Args:
        sandboxed: the owner's resolution of ``settings.sandbox``: every game of a match
            runs its bots the same way, wherever it is played.
        live: the owner's journals of the match, to which this worker sends its games'
            journal lines over the network (``live``).
        partners: the bots partnering A and B in a team match (``None``: the bot itself).

    Raises:
        RuntimeError: the pair could not be played (the message says why). Only built-in
            exceptions leave a task, so that any client can read them.
    """
    worker = get_worker()
    if sandboxed and (reason := unavailable_reason()) is not None:
        # Bots that cannot start would lose their games as faults: refuse the pair, so
        # that the owner reports this worker instead of storing forfeits.
        raise RuntimeError(f"worker {worker.address} cannot sandbox the bots: {reason}")
    try:
        refs = [a, b, *(ref for ref in partners if ref is not None)]
        bots = {ref.digest: fetch_bot(ref) for ref in refs}
        entrants = {digest: Entrant(bot.name, bot) for digest, (bot, _) in bots.items()}
        seated = [ref and entrants[ref.digest] for ref in partners]
        settings_text = json.dumps(settings.to_json(), sort_keys=True)
        key = (*(ref and ref.digest for ref in (a, b, *partners)), settings_text, sandboxed, live)

        def job() -> Job:
            scratch = Path(tempfile.mkdtemp(prefix="match-", dir=worker.local_directory))
            MatchFolder(scratch).games_dir.mkdir()
            a_entrant, b_entrant = entrants[a.digest], entrants[b.digest]
            return Job(a_entrant, b_entrant, settings, scratch, sandboxed, live, *seated)

        outcomes, records, logs = _kept(worker).play(key, job, pair)
    except (BotError, MatchError, OSError, RecordError) as error:
        raise RuntimeError(f"pair {pair[0].pair} on {worker.address}: {error}") from None
    fetched = tuple(digest for digest, (_, now) in bots.items() if now)
    return PlayedPair(outcomes, records, logs, worker.address, fetched)


Played = tuple[list[GameOutcome], list[GameRecord], dict[str, bytes]]


class _Table:
    """One match's open referee on this worker, with its scratch folder."""

    def __init__(self, key: object, job: Job, referee: Referee) -> None:
        self.key = key
        self.job = job
        self.referee = referee
        self.folder = MatchFolder(job.root)
        self.logged: dict[str, int] = {}
        """How much of each bot log earlier pairs have handed back."""

    @classmethod
    async def open(cls, key: object, job: Job, warm: WarmBots) -> _Table:
        referee = Referee(
            MatchFolder(job.root).worker_logs(0),
            job.settings.referee_settings(job.sandboxed),
            announce=_quiet,
            log_base=job.root,
            warm=warm,
            deals=str(job.settings.seed),
        )
        await referee.__aenter__()
        return cls(key, job, referee)

    async def play(self, pair: list[GameSpec]) -> Played:
        outcomes: list[GameOutcome] = []
        todo = iter([pair])
        await play_pairs_at(self.referee, self.job, lambda: next(todo, None), outcomes.append)
        records = []
        for outcome in outcomes:
            path = self.folder.record_path(outcome.spec, self.job.settings.compress_records)
            records.append(load_record(path))
            path.unlink()
        return outcomes, records, self._new_logs()

    def _new_logs(self) -> dict[str, bytes]:
        logs = {}
        for path in sorted(self.folder.worker_logs(0).glob("*.log")):
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

    def __init__(self) -> None:
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

    def play(self, key: object, job: Callable[[], Job], pair: list[GameSpec]) -> Played:
        """Play ``pair`` at the open table of ``key``, opened first (``job``) if needed."""
        return asyncio.run_coroutine_threadsafe(self._play(key, job, pair), self.loop).result()

    async def _play(self, key: object, job: Callable[[], Job], pair: list[GameSpec]) -> Played:
        async with self.turn:
            if self.idle is not None:
                self.idle.cancel()
            try:
                if self.table is None or self.table.key != key:
                    await self._close()
                    self.table = await _Table.open(key, job(), self.warm)
                return await self.table.play(pair)
            except BaseException:
                await self._close()  # a referee that failed is not trusted with the next pair
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
        return _kept_by_worker.setdefault(worker.address, _Kept())


def _quiet(_message: str) -> None:
    """Cluster bots are never started by hand: nothing to announce."""
