"""The referee for a series of games: one private server, bot processes, cleanup.

``Referee`` is an async context manager. It serves gRPC on a Unix socket in a private
temporary folder (or on TCP when asked), starts bot processes for the seats of a game
(one process per player slot: partners never share a process), restarts bots that
crashed or hung before the next game, and on exit leaves no child process and no
temporary file behind, whatever the bots did. Given a ``warm.WarmBots``, it serves on
that one's server instead, borrows idle processes from it and hands back, on exit, those
that are fit to play a later match.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from pitch_sdk.cards import SEATS, Seat
from pitch_sdk.options import RuleOptions
from pitch_sdk.table import Watcher

from .connection import RefereeService, start_server, stop_server
from .errors import BotStartError
from .game_loop import FaultPolicy, GameResult, TimeControl, play_game
from .manifest import BotManifest
from .process import BotProcess, Launcher, LocalLauncher, StartOptions
from .sandbox import SandboxLauncher, SandboxLimits

if TYPE_CHECKING:
    from .warm import WarmBots

PRIVATE_PREFIX = "pitch-referee-"


@dataclass(frozen=True)
class PlayerSlot:
    """A process the referee keeps for a match: one bot, one of its two seats."""

    key: str
    """Unique within the match, e.g. ``"A1"``; names the log file."""
    manifest: BotManifest | None
    """``None`` for a bot the user starts by hand."""
    name: str
    log_cap_bytes: int | None = None
    """What this slot's log file keeps at most (its share of its bot's log budget in the
    match); ``None``: ``settings.start``'s cap."""


@dataclass
class RefereeSettings:
    time_control: TimeControl = field(default_factory=TimeControl)
    fault_policy: FaultPolicy = FaultPolicy.FORFEIT
    start: StartOptions = field(default_factory=StartOptions)
    tcp: bool = False
    """Serve on 127.0.0.1 (any free port) instead of a private Unix socket."""
    sandbox: SandboxLimits | None = None
    """Run every bot in the sandbox with these limits; ``None``: as plain processes."""
    attach_timeout_s: float = 120.0
    """How long bots started by hand have to connect before the referee gives up."""
    timing_grid_ms: int = 0
    """Release each decision request on a grid of this step from the game's start, so
    that partners cannot signal finer than it by their think time (0: at once;
    ``game_loop.TimingGrid``)."""

    def launcher(self) -> Launcher:
        return SandboxLauncher(self.sandbox) if self.sandbox else LocalLauncher()


@dataclass
class PrivateServer:
    """The referee's gRPC server on a Unix socket in a private folder (0700; the socket
    itself open to all, since a sandboxed bot runs as another user), or on TCP."""

    server: Any
    service: RefereeService
    address: str
    folder: str

    @classmethod
    async def open(cls, tcp: bool = False) -> PrivateServer:
        _sweep_private_dirs()
        folder = tempfile.mkdtemp(prefix=f"{PRIVATE_PREFIX}{os.getpid()}-")
        socket = f"{folder}/referee.sock"
        try:
            server, service, address = await start_server(
                "127.0.0.1:0" if tcp else f"unix:{socket}"
            )
            if not tcp:
                os.chmod(socket, 0o666)
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        return cls(server, service, address, folder)

    async def close(self) -> None:
        await stop_server(self.server)
        shutil.rmtree(self.folder, ignore_errors=True)


class Referee:
    """Runs games between bot processes; use ``async with Referee(log_dir) as referee``."""

    def __init__(
        self,
        log_dir: Path,
        settings: RefereeSettings | None = None,
        *,
        launcher: Launcher | None = None,
        announce: Callable[[str], None] = print,
        log_base: Path | None = None,
        warm: WarmBots | None = None,
        deals: str = "",
    ) -> None:
        self.log_dir = Path(log_dir)
        self.log_base = log_base
        """The folder that records name the bots' logs from (a match's folder: records
        say ``logs/worker-0/A1-<bot>.log``, with forward slashes); ``None``: as
        ``log_dir`` gives them."""
        self.settings = settings or RefereeSettings()
        self.launcher = launcher or self.settings.launcher()
        self.announce = announce
        self.warm = warm
        """Where bot processes are borrowed from and handed back to (``None``: each is
        started here and stopped on exit)."""
        self.deals = deals
        """The deals of this referee's games (a match's seed): a borrowed process never
        played them, and one handed back never plays them again."""
        self.address = ""
        self._bots: dict[str, BotProcess] = {}
        self._mismatches_said: set[str] = set()
        """``BotProcess.hello_mismatch`` lines already announced: each is said once."""
        self._kinds: dict[str, tuple[BotManifest, SandboxLimits | None]] = {}
        """What each running slot's process is, for lending it to a later match."""
        self._spent: set[str] = set()
        """Slots whose process was in a game that did not end: never handed back."""
        self._own: PrivateServer | None = None
        self._service: RefereeService | None = None

    async def __aenter__(self) -> Referee:
        self.log_dir.mkdir(parents=True, exist_ok=True)
        if self.warm is not None:
            self._service, self.address = self.warm.service, self.warm.address
        else:
            self._own = await PrivateServer.open(self.settings.tcp)
            self._service, self.address = self._own.service, self._own.address
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Stop every bot (or hand it back to ``warm``) and the server, and remove the
        private folder. Idempotent."""
        # All at once: a bot takes a fifth of a second to shut down (its interpreter's
        # teardown), and a match has eight.
        await asyncio.gather(*(self._hand_back(key, bot) for key, bot in self._bots.items()))
        self._bots.clear()
        if self._own is not None:
            await self._own.close()
            self._own = None

    async def _hand_back(self, key: str, bot: BotProcess) -> None:
        """Keep ``bot`` warm for a later match if it is fit to play one, else stop it."""
        kind = self._kinds.get(key)
        if self.warm is not None and kind and bot.alive and key not in self._spent:
            await self.warm.keep(kind, bot)
        else:
            await bot.close()

    def _ready(self, slot: PlayerSlot) -> bool:
        bot = self._bots.get(slot.key)
        return bot is not None and (bot.alive or bot.start_error is not None)

    async def bot(self, slot: PlayerSlot) -> BotProcess:
        """The running process for ``slot``, started (or restarted) if needed.

        Raises:
            AttachTimeoutError: ``slot`` is a bot started by hand, and it did not connect
                within ``settings.attach_timeout_s``.
        """
        if self._ready(slot):
            return self._bots[slot.key]
        if slot.manifest is None:
            await self._attach([slot])
            return self._bots[slot.key]
        await self._retire(slot.key, "restarting")
        assert self._service is not None
        log_path = self.log_dir / f"{slot.key}-{slot.name}.log"
        log_name = _relative(log_path, self.log_base)
        start = self.settings.start
        if slot.log_cap_bytes is not None:
            start = replace(start, log_cap_bytes=slot.log_cap_bytes)
        kind = (slot.manifest, self.settings.sandbox)
        self._kinds[slot.key] = kind
        if self.warm is not None and (warm := await self.warm.take(kind, self.deals)):
            warm.move_log(log_path, log_name, start.log_cap_bytes)
            self._bots[slot.key] = warm
            return warm
        try:
            bot = await BotProcess.spawn(
                slot.manifest,
                self._service,
                self.address,
                log_path,
                start,
                self.launcher,
                log_name,
            )
        except BotStartError as error:
            bot = BotProcess.failed(slot.name, error, log_path, log_name)
        if bot.hello_mismatch and bot.hello_mismatch not in self._mismatches_said:
            self._mismatches_said.add(bot.hello_mismatch)
            self.announce(f"warning: {bot.hello_mismatch}")
        self._bots[slot.key] = bot
        return bot

    async def play(
        self,
        seats: Sequence[PlayerSlot],
        *,
        game_id: str,
        seed: int | str,
        options: RuleOptions | None = None,
        first_dealer: Seat = 0,
        secret: bytes | str | None = None,
        watchers: Sequence[Watcher] = (),
    ) -> GameResult:
        """Play one game with ``seats[seat]`` in each seat; never raises for bot faults.

        ``secret`` keys the bots' seeds (``game_loop.play_game``); ``watchers`` see every
        event of the game (``pitch_sdk.table.Watcher``: a live feed).
        """
        if len({slot.key for slot in seats}) != 4:
            raise ValueError("each seat needs its own process (partners never share one)")
        await self.attach(seats)
        # Started in parallel. Every start runs to its end, even when the game is stopped
        # meanwhile (a bot being started is then stopped, not left to the closing loop):
        # without return_exceptions, gather would return at the first cancelled start.
        started = await asyncio.gather(*(self.bot(seats[s]) for s in SEATS), return_exceptions=True)
        for outcome in started:
            if isinstance(outcome, BaseException):
                raise outcome
        bots = cast(list[BotProcess], started)
        cpu_before = [bot.cpu_seconds() for bot in bots]
        for bot in bots:
            bot.deals_seen.add(self.deals)
        try:
            result = await play_game(
                bots,
                game_id=game_id,
                seed=seed,
                options=options,
                first_dealer=first_dealer,
                time_control=self.settings.time_control,
                fault_policy=self.settings.fault_policy,
                secret=secret,
                watchers=watchers,
                timing_grid_ms=self.settings.timing_grid_ms,
            )
        except BaseException:  # stopped mid-game: its processes may still be in it
            self._spent.update(slot.key for slot in seats)
            raise
        _bill_cpu(result, bots, cpu_before)
        for seat in result.needs_restart | {s for s in SEATS if bots[s].start_error}:
            await self._retire(seats[seat].key)
        return result

    async def start(self, slots: Sequence[PlayerSlot]) -> None:
        """Start every one of ``slots`` that is not running, all at once (bots started by
        hand: asked for at once), so that ``play`` finds them ready.

        Raises:
            AttachTimeoutError: as ``attach``. A bot that cannot start is no error here:
                its game records the fault.
        """
        await self.attach(slots)
        started = await asyncio.gather(*(self.bot(slot) for slot in slots), return_exceptions=True)
        for outcome in started:
            if isinstance(outcome, BaseException):
                raise outcome

    async def attach(self, slots: Sequence[PlayerSlot]) -> None:
        """Wait for a process for each of ``slots`` that is a bot started by hand and not
        connected, asking for all of them at once (``play`` asks for a game's own).

        Raises:
            AttachTimeoutError: not every process connected in time.
        """
        await self._attach(
            [slot for slot in slots if slot.manifest is None and not self._ready(slot)]
        )

    async def _attach(self, slots: Sequence[PlayerSlot]) -> None:
        """Wait for one process per slot of bots started by hand, asking for all at once:
        how many processes, each with its own token, and for how long.

        Raises:
            AttachTimeoutError: not every process connected in time.
        """
        if not slots:
            return
        assert self._service is not None
        for slot in slots:
            await self._retire(slot.key, "restarting")
        expected = [(slot, *self._service.expect()) for slot in slots]
        limit = self.settings.attach_timeout_s
        self.announce(_attach_instructions([(s, t) for s, t, _ in expected], self.address, limit))
        try:
            await asyncio.wait([hello for _, _, hello in expected], timeout=limit)
        finally:
            refused = None
            for slot, token, hello in expected:
                self._service.forget(token)
                if not hello.done():
                    hello.cancel()
                elif not hello.cancelled() and hello.exception() is not None:
                    refused = refused or hello.exception()  # e.g. a protocol it does not speak
                elif not hello.cancelled():
                    bot = BotProcess(slot.name, None)
                    bot.connection = hello.result()
                    self._bots[slot.key] = bot  # closed with the referee
        if refused is not None:
            raise refused
        missing = [slot for slot in slots if slot.key not in self._bots]
        if missing:
            names = ", ".join(sorted({slot.name for slot in missing}))
            raise AttachTimeoutError(
                f"{len(missing)} of the {len(slots)} processes started by hand ({names}) "
                f"did not connect within {limit:g} s"
            )

    async def _retire(self, key: str, reason: str = "restarting after a fault") -> None:
        """Stop a bot so that the next game starts a fresh one. It stays the referee's
        until it is stopped, so that if this is cancelled, ``close`` still waits for it."""
        bot = self._bots.get(key)
        if bot is not None:
            await bot.close(reason)
            del self._bots[key]
        self._spent.discard(key)


class AttachTimeoutError(BotStartError):
    """Bots started by hand did not connect in time; the message says how many."""


def _attach_instructions(
    expected: Sequence[tuple[PlayerSlot, str]], address: str, limit_s: float
) -> str:
    """What the user must start: one process per slot, each with its own token (a
    match's slot is a seat for the games of one letter, ``A1-a``: ``schedule.slot_key``)."""
    names = sorted({slot.name for slot, _ in expected})
    count = len(expected)
    lines = [
        f"waiting {limit_s:g} s for {count} process{'es' if count > 1 else ''} started by "
        f"hand ({', '.join(names)}): one per line, each with its own token:"
    ]
    for slot, token in expected:
        lines.append(
            f"  {slot.name} ({slot.key}): PITCH_ADDRESS='{address}' PITCH_TOKEN='{token}' "
            "<your bot command>"
        )
    lines.append(f"  (or give the bot --address '{address}' --token <its token>)")
    return "\n".join(lines)


def _relative(path: Path, base: Path | None) -> str:
    """``path`` as records name it: relative to ``base`` (forward slashes) when inside it."""
    if base is not None:
        try:
            return path.absolute().relative_to(base.absolute()).as_posix()
        except ValueError:
            pass
    return str(path)


def _bill_cpu(result: GameResult, bots: Sequence[BotProcess], before: list[float | None]) -> None:
    """Write each seat's CPU time in this game (its bot and all its processes) into the
    record, where the sandbox measures it."""
    players = list(result.record.players)
    for seat, bot in enumerate(bots):
        start, end = before[seat], bot.cpu_seconds()
        if start is not None and end is not None:
            players[seat] = replace(players[seat], cpu_ms=round((end - start) * 1000, 1))
    result.record = replace(result.record, players=tuple(players))


def _sweep_private_dirs() -> None:
    """Remove the private folders of referees that were killed (their pid is gone).

    A referee removes its own folder when it closes; only a kill -9 leaves one behind,
    and the bots that used it died with the referee.
    """
    for folder in Path(tempfile.gettempdir()).glob(f"{PRIVATE_PREFIX}*-*"):
        pid = folder.name.removeprefix(PRIVATE_PREFIX).split("-")[0]
        with contextlib.suppress(OSError):
            mine = folder.stat().st_uid == os.getuid()
            if mine and pid.isdigit() and not Path(f"/proc/{pid}").exists():
                shutil.rmtree(folder, ignore_errors=True)
