"""Bot processes kept warm from one match to the next, never onto deals they have seen.

Starting a bot process (an interpreter, gRPC, the sandbox) costs as much CPU as a few
games of fast bots, and a match has eight of them (each seat has a process for the a games
and another for the b games), so a worker that plays match after match (a ladder's or
the service's pool worker) keeps the processes of its last matches: ``WarmBots`` owns the
gRPC server they talk to and the idle processes, and a ``Referee`` given it borrows them
and hands them back when its match is over. A process is lent again only for the same
bot (manifest) under the same sandbox limits, and only to a match on deals it has not
played: a match's deals are its seed, which the three team matches of a quartet share
(``BotProcess.deals_seen``), so no process ever sees both games of a deal, nor carries
one team match's cards into the next. An idle process is frozen (sandboxed: no CPU while
other matches play); one that died while idle is replaced; one from a game that was
stopped mid-way or faulted is never kept.

``WarmHouse`` runs a ``WarmBots`` on an event loop of its own thread, which outlives the
matches (their referees run on it); ``keep_bots_warm`` makes one for this process.
"""

from __future__ import annotations

import asyncio
import atexit
import collections
import contextlib
import threading
from collections.abc import Coroutine, Hashable
from typing import Any, TypeVar

from .connection import RefereeService
from .process import BotProcess
from .referee import PrivateServer

IDLE_LIMIT = 32
"""Idle processes kept at most (the oldest is stopped first): a ladder worker meets each
bot again within a few matches, and a process of a fast bot holds some 40 MB."""
CLOSE_WAIT_S = 10.0
"""How long a process that ends waits for its idle bots to stop."""

T = TypeVar("T")


class WarmBots:
    """A server and the idle bot processes connected to it; open with ``async with``."""

    def __init__(self, limit: int = IDLE_LIMIT) -> None:
        self.limit = limit
        self.address = ""
        self.service: RefereeService | None = None
        self._server: PrivateServer | None = None
        self._idle: collections.OrderedDict[BotProcess, Hashable] = collections.OrderedDict()

    async def __aenter__(self) -> WarmBots:
        self._server = await PrivateServer.open()
        self.service, self.address = self._server.service, self._server.address
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    @property
    def idle(self) -> int:
        """How many processes wait to be lent."""
        return len(self._idle)

    async def take(self, kind: Hashable, deals: str) -> BotProcess | None:
        """An idle process of ``kind`` (a bot under given limits) that never played the
        deals ``deals``, or ``None``; those found dead meanwhile are stopped."""
        # Chosen before any await: the seats of a game take their processes at once.
        dead = [bot for bot in self._idle if not bot.alive]
        for bot in dead:
            del self._idle[bot]
        lent = next(
            (bot for bot, of in self._idle.items() if of == kind and deals not in bot.deals_seen),
            None,
        )
        if lent is not None:
            del self._idle[lent]
            _unhold(lent)
        await _stop(dead, "it died while idle")
        return lent

    async def keep(self, kind: Hashable, bot: BotProcess) -> None:
        """Keep ``bot`` (alive, between games) for a later match; beyond the limit, stop
        the one idle longest."""
        if bot.controls is not None:
            bot.controls.hold()  # no CPU while other matches play
        self._idle[bot] = kind
        oldest = []
        while len(self._idle) > self.limit:
            oldest.append(self._idle.popitem(last=False)[0])
        await _stop(oldest)

    async def stop_idle(self) -> None:
        """Stop every idle process (all at once: each takes a while to shut down)."""
        idle, self._idle = list(self._idle), collections.OrderedDict()
        await _stop(idle)

    async def close(self) -> None:
        """Stop every idle process and the server. Idempotent."""
        await self.stop_idle()
        if self._server is not None:
            await self._server.close()
            self._server = None


def _unhold(bot: BotProcess) -> None:
    if bot.controls is not None:
        bot.controls.unhold()


async def _stop(bots: list[BotProcess], reason: str = "the match is over") -> None:
    """Stop idle ``bots``, all at once (each takes a while to shut down), thawed first so
    that each can read its shutdown."""
    for bot in bots:
        _unhold(bot)
    await asyncio.gather(*(bot.close(reason) for bot in bots))


class WarmHouse:
    """A ``WarmBots`` on an event loop of its own thread, for the referees of successive
    matches in one process (and on that thread, so that sandboxed bots, which die with
    the thread that started them, live as long as the process)."""

    def __init__(self, limit: int = IDLE_LIMIT) -> None:
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, name="pitch-warm-bots", daemon=True).start()
        self.bots = self.run(WarmBots(limit).__aenter__())
        atexit.register(self.close)

    def run(self, work: Coroutine[Any, Any, T]) -> T:
        """Run ``work`` on the house's loop and wait for its result (from another thread)."""
        return asyncio.run_coroutine_threadsafe(work, self.loop).result()

    def close(self) -> None:
        """Stop the idle bots: a process that ends leaves none behind (trusted bots run
        outside the sandbox and would not die with it)."""
        closing = asyncio.run_coroutine_threadsafe(self.bots.close(), self.loop)
        with contextlib.suppress(Exception):
            closing.result(timeout=CLOSE_WAIT_S)


_house: WarmHouse | None = None


def keep_bots_warm(limit: int = IDLE_LIMIT) -> None:
    """From now on, the lone worker of each match played in this process borrows its bot
    processes from this process's ``WarmHouse`` (a ladder's pool worker calls this)."""
    global _house
    if _house is None:
        _house = WarmHouse(limit)


def warm_house() -> WarmHouse | None:
    """This process's ``WarmHouse``, if ``keep_bots_warm`` made one."""
    return _house
