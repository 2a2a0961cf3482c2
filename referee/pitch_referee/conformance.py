"""The conformance check (``pitch check``): does a bot answer every kind of decision,
in time, with a legal action, before it meets anyone in a match?

The bot runs as a real process behind a real referee server on a private Unix socket,
exactly as in a match (in the sandbox when asked), and is asked through the match's own
seat for a bot process (``game_loop.RemotePlayer``). It is shown a fixed list of
positions taken from seeded games that this process plays at the SDK's ``Table``: the
first decision of a game, bids (the dealer forced to bid among them), naming trumps, the
rare ones (a discard down to six, a pick-up from the centre, each choice in the look
through the stock: a point card that may be taken, a card that may not, the partner on
the last card, who may not stop), leads and follows, and a play in a later hand. Each
position is a game of its own for the bot: a ``GameStart``, one decision with the real
view and legal actions and every event the table told the seat since the game began
(its own cards only, others' stock exchanges hidden), and a game end (a forfeit: the
check plays no game to its end).

Every answer must come within the per-decision limit (no reserve: a bot that passes
never needs one), be a well-formed action and be legal. A bot that crashes, hangs or
disconnects is restarted for the next position, as a match would, up to
``MAX_RESTARTS`` times; then the check stops and says where. Faults are named as in
matches (``game_loop.fault_of``). The report gives each failure with its position,
decision kind and fault kind, and the tail of the bot's output for a bot that died, and
the latencies: the first decision apart, because it includes the bot's warm-up.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import math
import os
import random
import shutil
import statistics
import tempfile
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pitch_sdk.actions import PASS, Action, NameTrump, StockChoice, StockMove
from pitch_sdk.cards import SEATS, TRUMPS, Seat, left_of
from pitch_sdk.faults import Fault, FaultKind
from pitch_sdk.protocol import messages as pb
from pitch_sdk.rules import GameState
from pitch_sdk.table import (
    Answer,
    Decided,
    GameStart,
    HandScored,
    PlayerInfo,
    SeatEvent,
    Table,
    TableEvent,
    TimeBudget,
    TimeControl,
    Turn,
    play_in_process,
)
from pitch_sdk.views import PlayerView

from .connection import start_server, stop_server
from .errors import BotStartError, BotTerminatedError
from .game_loop import RemotePlayer, fault_of
from .logtail import excerpt
from .manifest import BotManifest
from .process import SHUTDOWN_GRACE_S, BotProcess, LocalLauncher, StartOptions
from .sandbox import SandboxLauncher, SandboxLimits

DEFAULT_TIME_LIMIT_MS = 1000
MAX_RESTARTS = 2
"""Restarts after a crash, hang or disconnection before the check gives up."""
LOG_TAIL_LINES = 12
"""How much of the bot's output a failure shows when the bot died or hung."""
_LOG_MARK = "--- pitch check: starting the bot ---"
"""Written to the log before each start, so that a failure shows only its process's output."""
DECISION_KINDS = ("bid", "trump", "discard", "pickup", "stock", "play")
STOCK_CHOICES = ("take", "leave", "stop")


# --- the positions ----------------------------------------------------------------------


@dataclass(frozen=True)
class Position:
    """A decision to put to the bot: a state of a seeded game and how the seat got there."""

    name: str
    """What it tests, e.g. ``discard down to six``; unique in the list."""
    state: GameState
    """The game at the decision (not to be changed: copy it)."""
    events: tuple[SeatEvent, ...]
    """Everything the table told the seat since the game began, as it told it."""
    first_dealer: Seat
    game_seed: str

    @property
    def seat(self) -> Seat:
        return self.state.current_seat()

    @property
    def kind(self) -> str:
        decision = self.state.decision()
        assert decision is not None
        return decision.name.lower()

    @property
    def stock_choices(self) -> tuple[str, ...]:
        """The stock moves legal here (``()`` for other kinds)."""
        moves = {a.move for a in self.state.legal_actions() if isinstance(a, StockChoice)}
        return tuple(move.name.lower() for move in StockMove if move in moves)


@dataclass(frozen=True)
class _Slot:
    name: str
    wanted: int
    matches: Callable[[GameState, tuple[Action, ...]], bool]


def _kind(state: GameState) -> str | None:
    decision = state.decision()
    return decision.name.lower() if decision else None


def _moves(legal: Sequence[Action]) -> set[StockMove]:
    return {action.move for action in legal if isinstance(action, StockChoice)}


_SLOTS = (
    _Slot(
        "first decision of a game",
        1,
        lambda s, legal: s.hand_number == 1 and _kind(s) == "bid" and not s.bids,
    ),
    _Slot("bid after a bid", 2, lambda s, legal: _kind(s) == "bid" and s.bid > 0),
    _Slot(
        "dealer must bid (no pass)",
        1,
        lambda s, legal: _kind(s) == "bid" and s.current_seat() == s.dealer and s.bid == 0,
    ),
    _Slot("name trumps", 2, lambda s, legal: _kind(s) == "trump"),
    _Slot("discard down to six", 1, lambda s, legal: _kind(s) == "discard"),
    _Slot("pick up from the centre", 1, lambda s, legal: _kind(s) == "pickup"),
    _Slot(
        "stock: a point card turned (take, leave, stop)",
        1,
        lambda s, legal: _moves(legal) == {StockMove.TAKE, StockMove.LEAVE, StockMove.STOP},
    ),
    _Slot(
        "stock: no point card (leave, stop)",
        1,
        lambda s, legal: _moves(legal) == {StockMove.LEAVE, StockMove.STOP},
    ),
    _Slot(
        "stock: the partner's last card (take, leave)",
        1,
        lambda s, legal: _moves(legal) == {StockMove.TAKE, StockMove.LEAVE},
    ),
    _Slot("lead a trick", 3, lambda s, legal: _kind(s) == "play" and not s.trick),
    _Slot("follow in a trick", 3, lambda s, legal: _kind(s) == "play" and bool(s.trick)),
    _Slot(
        "play in a later hand",
        2,
        lambda s, legal: _kind(s) == "play" and s.hand_number >= 3,
    ),
)
_MAX_GAMES = 200
_MAX_HANDS = 12


@functools.cache
def positions() -> tuple[Position, ...]:
    """The check's positions, in the order they are asked: the same on every run.

    Raises:
        RuntimeError: the seeded games did not reach every position (an engine change
            that calls for more games or other seeds).
    """
    found: dict[str, list[Position]] = {slot.name: [] for slot in _SLOTS}
    for game in range(_MAX_GAMES):
        _SeededGame(game, found).play()
        if all(len(found[slot.name]) >= slot.wanted for slot in _SLOTS):
            break
    missing = [slot.name for slot in _SLOTS if len(found[slot.name]) < slot.wanted]
    if missing:
        raise RuntimeError(f"no position found for: {', '.join(missing)}")
    return tuple(
        replace(position, name=f"{position.name} #{number}") if slot.wanted > 1 else position
        for slot in _SLOTS
        for number, position in enumerate(found[slot.name], 1)
    )


class _Stop(Exception):
    """Ends a seeded game after ``_MAX_HANDS`` hands."""


class _SeededGame:
    """One seeded game at a ``Table``, ``_policy`` in every seat. A decision that fills
    an open slot (one slot each) is kept, with what the table had told its seat."""

    def __init__(self, game: int, found: dict[str, list[Position]]) -> None:
        self.seed = f"pitch-check-{game}"
        self.first_dealer = game % 4
        self.found = found
        self.rng = random.Random(self.seed)
        seats = [_SeededSeat(self) for _ in SEATS]
        self.table = Table(
            seats, seed=self.seed, first_dealer=self.first_dealer, watchers=[self._forced]
        )

    def play(self) -> None:
        with contextlib.suppress(_Stop):
            play_in_process(self.table.play())

    def decide(self, told: tuple[SeatEvent, ...]) -> Action:
        """The policy's action; the decision becomes a position if it fills an open slot
        (the table asks no forced decision, so none is ever a position)."""
        state = self.table.state
        if state.hand_number > _MAX_HANDS:
            raise _Stop
        legal = state.legal_actions()
        for slot in _SLOTS:
            if len(self.found[slot.name]) < slot.wanted and slot.matches(state, legal):
                position = Position(slot.name, state.copy(), told, self.first_dealer, self.seed)
                self.found[slot.name].append(position)
                break
        return _policy(state, legal, self.rng)

    def _forced(self, event: TableEvent) -> None:
        """The policy draws for forced decisions too, which the table plays without asking
        its seats: so the seeded games, and the positions, stay the same."""
        if isinstance(event, Decided) and event.forced:
            _policy(self.table.state, (event.action,), self.rng)


class _SeededSeat:
    """A seat of a seeded game: it keeps what the table tells it."""

    name, version = "check", ""

    def __init__(self, game: _SeededGame) -> None:
        self.game = game
        self.told: list[SeatEvent] = []

    def start(self, game: GameStart) -> None:
        pass

    def observe(self, event: SeatEvent) -> None:
        self.told.append(event)

    async def decide(self, turn: Turn) -> Answer:
        return Answer(self.game.decide(tuple(self.told)), None)

    def end(self, view: PlayerView) -> None:
        pass


def _policy(state: GameState, legal: Sequence[Action], rng: random.Random) -> Action:
    """Random, but passing often (so that dealers must bid) and naming the suit the bidder
    holds most of (so that hands with a discard come sooner)."""
    if isinstance(legal[0], NameTrump):
        hand = state.hands[state.current_seat()]
        return max(legal, key=lambda a: (TRUMPS[a.suit] & hand).bit_count())  # type: ignore[union-attr]
    if legal[0] == PASS and rng.random() < 0.6:
        return PASS
    return rng.choice(legal)


# --- the report -------------------------------------------------------------------------


@dataclass(frozen=True)
class Failure:
    """One thing the bot got wrong."""

    position: str
    """The position's name, or ``start`` when the bot did not start."""
    decision: str | None
    """The decision kind asked (bid, trump, discard, pickup, stock, play)."""
    fault: FaultKind
    """As in game records: timeout, crashed, malformed, illegal_action, ..."""
    detail: str
    log_tail: tuple[str, ...] = ()
    """The last lines of the bot's output, for a bot that died, hung or did not start."""

    def __str__(self) -> str:
        where = self.position if self.decision is None else f"{self.position} ({self.decision})"
        return f"{where}: {self.fault}: {self.detail}"


@dataclass(frozen=True)
class Asked:
    """One position put to the bot, and how it went."""

    position: str
    decision: str
    seat: Seat
    stock_choices: tuple[str, ...]
    """The stock moves that were legal, for a stock decision."""
    ms: float | None = None
    """How long the answer took (referee side); ``None``: no answer."""
    answer: str | None = None
    """The answer, as text, when it was readable."""
    failure: Failure | None = None


@dataclass(frozen=True)
class KindResult:
    asked: int = 0
    failed: int = 0


@dataclass
class ConformanceReport:
    """What the check found. ``ok``: every position asked, and every answer good."""

    bot: str
    version: str
    time_limit_ms: int
    sandboxed: bool
    asked: list[Asked] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    not_asked: list[str] = field(default_factory=list)
    """Positions never put to the bot, because the check stopped."""
    stopped: str | None = None
    """Why the check stopped before the end."""
    notes: list[str] = field(default_factory=list)
    """Things worth knowing that are not failures (e.g. a slow exit on Shutdown)."""
    restarts: int = 0

    @property
    def ok(self) -> bool:
        return not self.failures and self.stopped is None and not self.not_asked

    @property
    def kinds(self) -> dict[str, KindResult]:
        """Per decision kind, in the order of a hand: how many asked, how many failed."""
        result = {kind: KindResult() for kind in DECISION_KINDS}
        for asked in self.asked:
            before = result[asked.decision]
            result[asked.decision] = KindResult(
                before.asked + 1, before.failed + (asked.failure is not None)
            )
        return result

    @property
    def stock_choices_offered(self) -> set[str]:
        """The stock moves that were legal in at least one stock position asked."""
        return {move for asked in self.asked for move in asked.stock_choices}

    @property
    def first_ms(self) -> float | None:
        """The first decision's time: it includes the bot's warm-up."""
        return self.asked[0].ms if self.asked else None

    @property
    def latencies_ms(self) -> list[float]:
        """The times of the answers after the first."""
        return [asked.ms for asked in self.asked[1:] if asked.ms is not None]

    @property
    def median_ms(self) -> float | None:
        times = self.latencies_ms
        return statistics.median(times) if times else None

    @property
    def p95_ms(self) -> float | None:
        """The 95th percentile (nearest rank) of the answers after the first."""
        times = sorted(self.latencies_ms)
        return times[math.ceil(0.95 * len(times)) - 1] if times else None

    @property
    def max_ms(self) -> float | None:
        times = self.latencies_ms
        return max(times) if times else None


# --- running the check ------------------------------------------------------------------


def check_bot(
    manifest: BotManifest,
    *,
    time_limit_ms: int = DEFAULT_TIME_LIMIT_MS,
    sandbox: SandboxLimits | None = None,
    log_path: Path | None = None,
    start_timeout_s: float = StartOptions.start_timeout_s,
    log_cap_bytes: int = StartOptions.log_cap_bytes,
) -> ConformanceReport:
    """Run the conformance check on ``manifest``'s bot (see the module docstring).

    ``sandbox``: run the bot in the sandbox with these limits (``None``: as a plain
    process); ``log_path``: keep the bot's output there (default: a temporary file), at
    most ``log_cap_bytes`` of it, however often the bot is restarted.
    Never raises for the bot's misdeeds: they are in the report.
    """
    if time_limit_ms < 1:
        raise ValueError("the time limit must be at least 1 ms")
    return asyncio.run(
        check_bot_async(
            manifest,
            time_limit_ms=time_limit_ms,
            sandbox=sandbox,
            log_path=log_path,
            start_timeout_s=start_timeout_s,
            log_cap_bytes=log_cap_bytes,
        )
    )


async def check_bot_async(
    manifest: BotManifest,
    *,
    time_limit_ms: int = DEFAULT_TIME_LIMIT_MS,
    sandbox: SandboxLimits | None = None,
    log_path: Path | None = None,
    start_timeout_s: float = StartOptions.start_timeout_s,
    log_cap_bytes: int = StartOptions.log_cap_bytes,
) -> ConformanceReport:
    """``check_bot`` inside a running event loop."""
    report = ConformanceReport(manifest.name, manifest.version, time_limit_ms, sandbox is not None)
    private = tempfile.mkdtemp(prefix="pitch-check-")  # mode 0700: only we can connect
    log = log_path or Path(private) / "bot.log"
    kept_before = log.stat().st_size if log.is_file() else 0  # a kept log is appended to
    server = None
    try:
        server, service, address = await start_server(f"unix:{private}/referee.sock")
        os.chmod(f"{private}/referee.sock", 0o666)  # a sandboxed bot runs as another user
        launcher = SandboxLauncher(sandbox) if sandbox else LocalLauncher()

        async def spawn() -> BotProcess:
            return await BotProcess.spawn(
                manifest,
                service,
                address,
                log,
                StartOptions(start_timeout_s, kept_before + log_cap_bytes),
                launcher,
            )

        await _Check(report, spawn, log, time_limit_ms, kept=log_path is not None).run(positions())
    finally:
        if server is not None:
            await stop_server(server)
        shutil.rmtree(private, ignore_errors=True)
    return report


class _Check:
    """One walk through the positions with one bot (restarted when it dies)."""

    def __init__(
        self,
        report: ConformanceReport,
        spawn: Callable[[], Awaitable[BotProcess]],
        log: Path,
        time_limit_ms: int,
        *,
        kept: bool,
    ) -> None:
        self.report = report
        self.spawn = spawn
        self.log = log
        self.log_kept = kept
        """Whether the log outlives the check (else messages must not point to it)."""
        self.limit_ms = time_limit_ms
        self.bot: BotProcess | None = None
        self.answered = 0
        """Answers from the current process (its first decision includes its warm-up)."""
        self.restart_faults: list[FaultKind] = []

    async def run(self, todo: Sequence[Position]) -> None:
        try:
            for index, position in enumerate(todo):
                if not await self._ensure_bot(position, index):
                    self.report.not_asked = [p.name for p in todo[index:]]
                    return
                if not await self._ask(position, index):
                    self.report.not_asked = [p.name for p in todo[index + 1 :]]
                    return
            await self._shutdown()
        finally:
            if self.bot is not None:
                await self.bot.close("the check is over")

    async def _ensure_bot(self, position: Position, index: int) -> bool:
        """A live bot for ``position``, restarted if it died; ``False``: the check stops."""
        if self.bot is not None and self.bot.alive:
            return True
        if self.bot is not None:  # it died after its last answer (at GameEnd, say)
            fault = await fault_of(BotTerminatedError("the bot's stream closed"), self.bot)
            await self._retire()
            previous = self.report.asked[-1].position if self.report.asked else "start"
            detail = (
                f"the bot was gone before this position was asked (it died after "
                f"answering {previous!r}, e.g. on its GameEnd)"
            )
            self.report.failures.append(
                Failure(position.name, position.kind, fault.kind, detail, self._log_tail())
            )
            if not self._may_restart(position, fault.kind):
                return False
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with self.log.open("a") as log:
            log.write(f"{_LOG_MARK}\n")
        self.answered = 0
        try:
            self.bot = await self.spawn()
        except BotStartError as error:
            fault = await fault_of(error, BotProcess.failed(self.report.bot, error, self.log))
            detail = (
                fault.detail if self.log_kept else fault.detail.replace(f"; see {self.log}", "")
            )
            self.report.failures.append(
                Failure("start", None, fault.kind, detail, self._log_tail())
            )
            again = "" if index == 0 else " again after a fault"
            self.report.stopped = f"the bot did not start{again} ({fault.kind})"
            return False
        mismatch = self.bot.hello_mismatch
        if mismatch and mismatch not in self.report.notes:
            self.report.notes.append(mismatch)
        return True

    def _may_restart(self, position: Position, fault: FaultKind) -> bool:
        self.restart_faults.append(fault)
        if self.report.restarts >= MAX_RESTARTS:
            self.report.stopped = (
                f"stopped at {position.name!r}: the bot crashed, hung or disconnected "
                f"{len(self.restart_faults)} times ({', '.join(self.restart_faults)})"
            )
            return False
        self.report.restarts += 1
        return True

    async def _ask(self, position: Position, index: int) -> bool:
        """Put ``position`` to the bot; ``False``: the check stops (too many restarts)."""
        assert self.bot is not None
        player = RemotePlayer(self.bot)
        player.start(self._game_start(position, f"check-{index + 1}"))
        for event in position.events:
            player.observe(event)
        state, seat = position.state.copy(), position.seat
        view = state.view(seat)
        try:
            answer = await player.decide(Turn(view, TimeBudget(self.limit_ms, 0)))
        except Fault as fault:
            return await self._faulted(position, player, state, fault)
        self.answered += 1
        failure = None
        if answer.action not in view.legal_actions:  # as the table would find it
            detail = _illegal(answer.action, view.legal_actions, position.kind)
            failure = Failure(position.name, position.kind, FaultKind.ILLEGAL_ACTION, detail)
        self._record(position, ms=answer.ms, answer=str(answer.action), failure=failure)
        _end_game(player, state, seat, answer.action if failure is None else None)
        return True

    async def _faulted(
        self,
        position: Position,
        player: RemotePlayer,
        state: GameState,
        fault: Fault,
    ) -> bool:
        """Record the fault; restart a bot that cannot play on, else end its game."""
        detail = fault.detail
        if fault.kind is FaultKind.TIMEOUT:
            detail = f"no answer within the limit of {self.limit_ms} ms"
            if self.answered == 0:
                detail += (
                    " (the process's first decision: do slow start-up work before "
                    "the Hello, which may take 10 s)"
                )
        if player.answer_ms is not None:  # an answer came, but held no action
            self.answered += 1
        restart = fault.kind.needs_restart or not player.bot.alive
        if restart:
            await self._retire()
        tail = self._log_tail() if restart else ()
        failure = Failure(position.name, position.kind, fault.kind, detail, tail)
        self._record(position, ms=player.answer_ms, failure=failure)
        if restart:
            return self._may_restart(position, fault.kind)
        _end_game(player, state, position.seat, None)
        return True

    def _game_start(self, position: Position, game_id: str) -> GameStart:
        seat = position.seat
        players = tuple(
            PlayerInfo(other, self.report.bot if other == seat else "check", "") for other in SEATS
        )
        seed = hashlib.sha256(f"{position.game_seed}/{position.name}".encode()).hexdigest()
        return GameStart(
            game_id=game_id,
            seat=seat,
            rules=position.state.options,
            players=players,
            first_dealer=position.first_dealer,
            time_control=TimeControl(self.limit_ms, 0),
            seed=seed[:32],
        )

    async def _shutdown(self) -> None:
        """Send Shutdown and see the bot go, as at the end of a match."""
        bot = self.bot
        if bot is None or not bot.alive:
            return
        bot.send(pb.RefereeMessage(shutdown=pb.Shutdown(reason="the check is over")))
        if not await bot.has_exited(SHUTDOWN_GRACE_S):
            self.report.notes.append(
                f"the bot did not exit within {SHUTDOWN_GRACE_S:g} s of Shutdown; a match "
                "then stops it with SIGTERM, and SIGKILL a second later"
            )

    async def _retire(self) -> None:
        if self.bot is not None:
            await self.bot.close("restarting after a fault")  # also flushes its log
            self.bot = None

    def _record(self, position: Position, **outcome: Any) -> None:
        asked = Asked(position.name, position.kind, position.seat, position.stock_choices)
        self.report.asked.append(replace(asked, **outcome))
        if outcome.get("failure") is not None:
            self.report.failures.append(outcome["failure"])

    def _log_tail(self) -> tuple[str, ...]:
        """The last lines the current (or last) process wrote, its own and its exception first."""
        return tuple(excerpt(self.log, LOG_TAIL_LINES, after=_LOG_MARK))


def _end_game(player: RemotePlayer, state: GameState, seat: Seat, action: Action | None) -> None:
    """End the position's game: the bot's team wins by forfeit after a good answer (which
    the bot hears, as its table would tell it), and loses by forfeit after a bad one, as
    in a match."""
    if action is not None:
        hand, scored = state.hand_number, len(state.hand_results)
        state.apply(action)
        player.observe(Decided(hand, seat, action, False))
        if len(state.hand_results) > scored:
            player.observe(HandScored(state.hand_results[-1]))
    if not state.is_over():
        state.forfeit(seat if action is None else left_of(seat))
    player.end(state.view(seat))


def _illegal(action: Action, legal: Sequence[Action], kind: str) -> str:
    """Why ``action`` is no answer to a ``kind`` decision with these legal actions."""
    if action.decision.name.lower() != kind:
        detail = f"answered {action} to a {kind} decision"
    else:
        detail = f"{action} is not legal here"
    shown = ", ".join(str(other) for other in legal[:8])
    more = f" ... ({len(legal)} in all)" if len(legal) > 8 else ""
    return f"{detail}; legal are {shown}{more}"
