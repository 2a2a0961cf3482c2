"""The conformance check (``pitch check``): does a bot answer every kind of decision,
in time, with a legal action, before it meets anyone in a match?

The bot runs as a real process behind a real referee server on a private Unix socket,
exactly as in a match (in the sandbox when asked). It is shown a fixed list of positions
taken from seeded games that the engine plays in this process: the first decision of a
game, bids (the dealer forced to bid among them), naming trumps, the rare ones (a
discard down to six, a pick-up from the centre, each choice in the look through the
stock: a point card that may be taken, a card that may not, the partner on the last
card, who may not stop), leads and follows, and a play in a later hand. Each position is
a game of its own for the bot: a ``GameStart``, one ``DecisionRequest`` with the real
view, legal actions and every event since the game began, and a ``GameEnd`` (a forfeit:
the check plays no game to its end).

Every answer must come within the per-decision limit (no reserve: a bot that passes
never needs one), be a well-formed action and be legal. A bot that crashes, hangs or
disconnects is restarted for the next position, as a match would, up to
``MAX_RESTARTS`` times; then the check stops and says where. The report gives each
failure with its position, decision kind and fault kind, and the tail of the bot's
output for a bot that died, and the latencies: the first decision apart, because it
includes the bot's warm-up.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import math
import os
import random
import shutil
import statistics
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pitch_sdk._proto import pitch_pb2 as pb
from pitch_sdk.actions import (
    PASS,
    Action,
    InvalidActionError,
    NameTrump,
    StockChoice,
    StockMove,
)
from pitch_sdk.cards import TRUMPS, Seat, left_of
from pitch_sdk.deck import deck_for
from pitch_sdk.options import RuleOptions
from pitch_sdk.rules import CHANCE, GameState
from pitch_sdk.wire import (
    action_from_proto,
    action_to_proto,
    hand_result_to_proto,
    options_to_proto,
    outcome_to_proto,
    view_to_proto,
)

from .connection import start_server, stop_server
from .errors import BotError, BotProtocolError, BotStartError, BotTimeoutError
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
_RESTART_FAULTS = frozenset({"timeout", "crashed", "disconnected"})


# --- the positions ----------------------------------------------------------------------


@dataclass(frozen=True)
class Position:
    """A decision to put to the bot: a state of a seeded game and how the seat got there."""

    name: str
    """What it tests, e.g. ``discard down to six``; unique in the list."""
    state: GameState
    """The game at the decision (not to be changed: copy it)."""
    events: tuple[tuple, ...]
    """Everything that happened since the game began (``_event_for`` converts them)."""
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
        _play_for_positions(game, found)
        if all(len(found[slot.name]) >= slot.wanted for slot in _SLOTS):
            break
    missing = [slot.name for slot in _SLOTS if len(found[slot.name]) < slot.wanted]
    if missing:
        raise RuntimeError(f"no position found for: {', '.join(missing)}")
    chosen = []
    for slot in _SLOTS:
        for number, position in enumerate(found[slot.name], 1):
            name = position.name if slot.wanted == 1 else f"{position.name} #{number}"
            chosen.append(
                Position(
                    name, position.state, position.events, position.first_dealer, position.game_seed
                )
            )
    return tuple(chosen)


def _play_for_positions(game: int, found: dict[str, list[Position]]) -> None:
    """Play one seeded game, keeping states that fill an open slot (one slot each)."""
    seed = f"pitch-check-{game}"
    rng = random.Random(seed)
    first_dealer = game % 4
    state = GameState(RuleOptions(), first_dealer=first_dealer)
    events: list[tuple] = []
    while not state.is_over() and state.hand_number <= _MAX_HANDS:
        seat = state.current_seat()
        if seat == CHANCE:
            state.deal(deck_for(seed, state.hand_number + 1))
            events.append(("deal", state.hand_number, state.dealer, tuple(state.hands)))
            continue
        legal = state.legal_actions()
        if len(legal) > 1:  # forced decisions are never asked
            for slot in _SLOTS:
                if len(found[slot.name]) < slot.wanted and slot.matches(state, legal):
                    position = Position(slot.name, state.copy(), tuple(events), first_dealer, seed)
                    found[slot.name].append(position)
                    break
        action = _policy(state, legal, rng)
        scored = len(state.hand_results)
        state.apply(action)
        events.append(("decided", state.hand_number, seat, action, len(legal) == 1))
        if len(state.hand_results) > scored:
            events.append(("scored", state.hand_results[-1]))


def _policy(state: GameState, legal: Sequence[Action], rng: random.Random) -> Action:
    """Random, but passing often (so that dealers must bid) and naming the suit the bidder
    holds most of (so that hands with a discard come sooner)."""
    if isinstance(legal[0], NameTrump):
        hand = state.hands[state.current_seat()]
        return max(legal, key=lambda a: (TRUMPS[a.suit] & hand).bit_count())  # type: ignore[union-attr]
    if legal[0] == PASS and rng.random() < 0.6:
        return PASS
    return rng.choice(legal)


def _event_for(entry: tuple, viewer: Seat) -> pb.Event:
    """An event as ``viewer`` may know it: its own cards, others' stock exchanges hidden."""
    kind = entry[0]
    if kind == "deal":
        _, hand, dealer, hands = entry
        return pb.Event(hand=hand, deal=pb.Deal(dealer=dealer, hand=hands[viewer]))
    if kind == "decided":
        _, hand, seat, action, forced = entry
        if seat != viewer and isinstance(action, StockChoice) and action.give_up is not None:
            action = StockChoice(action.move)
        decided = pb.Decided(seat=seat, action=action_to_proto(action), forced=forced)
        return pb.Event(hand=hand, decided=decided)
    result = entry[1]
    scored = pb.HandScored(result=hand_result_to_proto(result))
    return pb.Event(hand=result.number, hand_scored=scored)


# --- the report -------------------------------------------------------------------------


@dataclass(frozen=True)
class Failure:
    """One thing the bot got wrong."""

    position: str
    """The position's name, or ``start`` when the bot did not start."""
    decision: str | None
    """The decision kind asked (bid, trump, discard, pickup, stock, play)."""
    fault: str
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
) -> ConformanceReport:
    """Run the conformance check on ``manifest``'s bot (see the module docstring).

    ``sandbox``: run the bot in the sandbox with these limits (``None``: as a plain
    process); ``log_path``: keep the bot's output there (default: a temporary file).
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
        )
    )


async def check_bot_async(
    manifest: BotManifest,
    *,
    time_limit_ms: int = DEFAULT_TIME_LIMIT_MS,
    sandbox: SandboxLimits | None = None,
    log_path: Path | None = None,
    start_timeout_s: float = StartOptions.start_timeout_s,
) -> ConformanceReport:
    """``check_bot`` inside a running event loop."""
    report = ConformanceReport(manifest.name, manifest.version, time_limit_ms, sandbox is not None)
    private = tempfile.mkdtemp(prefix="pitch-check-")  # mode 0700: only we can connect
    log = log_path or Path(private) / "bot.log"
    server = None
    try:
        server, service, address = await start_server(f"unix:{private}/referee.sock")
        os.chmod(f"{private}/referee.sock", 0o666)  # a sandboxed bot runs as another user
        launcher = SandboxLauncher(sandbox) if sandbox else LocalLauncher()

        async def spawn() -> BotProcess:
            return await BotProcess.spawn(
                manifest, service, address, log, StartOptions(start_timeout_s), launcher
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
        spawn: Callable[[], object],
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
        self.restart_faults: list[str] = []

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
            await self._retire()
            previous = self.report.asked[-1].position if self.report.asked else "start"
            self._fail(
                Failure(
                    position.name,
                    position.kind,
                    "crashed",
                    f"the bot was gone before this position was asked (it died after "
                    f"answering {previous!r}, e.g. on its GameEnd)",
                    self._log_tail(),
                )
            )
            if not self._may_restart(position, "crashed"):
                return False
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with self.log.open("a") as log:
            log.write(f"{_LOG_MARK}\n")
        self.answered = 0
        try:
            self.bot = await self.spawn()  # type: ignore[misc]
        except BotStartError as error:
            kind, detail = str(error.kind), str(error)
            if not self.log_kept:
                detail = detail.replace(f"; see {self.log}", "")
            self._fail(Failure("start", None, kind, detail, self._log_tail()))
            self.report.stopped = (
                f"the bot did not start ({kind})"
                if index == 0
                else f"the bot did not start again after a fault ({kind})"
            )
            return False
        return True

    def _may_restart(self, position: Position, fault: str) -> bool:
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
        bot = self.bot
        assert bot is not None
        state, seat = position.state.copy(), position.seat
        game_id = f"check-{index + 1}"
        bot.send(pb.RefereeMessage(game_start=self._game_start(position, game_id)))
        legal = state.legal_actions()
        request = pb.DecisionRequest(
            game_id=game_id,
            view=view_to_proto(state.view(seat)),
            legal_actions=[action_to_proto(action) for action in legal],
            time_limit_ms=self.limit_ms,
            time_reserve_ms=0,
            events=[_event_for(entry, seat) for entry in position.events],
        )
        asked = Asked(position.name, position.kind, seat, position.stock_choices)
        try:
            answer, seconds = await bot.ask(request, self.limit_ms / 1000)
        except BotError as error:
            fault = await self._fault_kind(error)
            detail = str(error)
            if fault == "timeout":
                detail = f"no answer within the limit of {self.limit_ms} ms"
                if self.answered == 0:
                    detail += (
                        " (the process's first decision: do slow start-up work before "
                        "the Hello, which may take 10 s)"
                    )
            elif fault == "crashed" and bot.process is not None:
                await bot.has_exited(within_s=1.0)
                detail = bot.death_note() or (
                    f"the bot's process exited with status {bot.process.returncode}"
                )
            restart = fault in _RESTART_FAULTS or not bot.alive
            if restart:
                await self._retire()
            tail = self._log_tail() if restart else ()
            failure = Failure(position.name, position.kind, fault, detail, tail)
            self._record(asked, failure=failure)
            if restart:
                return self._may_restart(position, fault)
            self._end_game(state, seat, game_id, None)
            return True
        ms = seconds * 1000
        self.answered += 1
        action, failure = self._judge(answer, legal, position)
        self._record(
            asked,
            ms=ms,
            answer=str(action) if action is not None else None,
            failure=failure,
        )
        self._end_game(state, seat, game_id, action if failure is None else None)
        return True

    def _judge(
        self, answer: pb.Answer, legal: Sequence[Action], position: Position
    ) -> tuple[Action | None, Failure | None]:
        """The answer's action, and what is wrong with it."""

        def fail(fault: str, detail: str) -> Failure:
            return Failure(position.name, position.kind, fault, detail)

        if not answer.HasField("action"):
            return None, fail("malformed", "the answer holds no action")
        try:
            action = action_from_proto(answer.action)
        except InvalidActionError as error:
            return None, fail("malformed", str(error))
        if action in legal:
            return action, None
        if action.decision.name.lower() != position.kind:
            detail = f"answered {action} to a {position.kind} decision"
        else:
            detail = f"{action} is not legal here"
        return action, fail("illegal_action", f"{detail}; legal are {_shown(legal)}")

    def _game_start(self, position: Position, game_id: str) -> pb.GameStart:
        seat = position.seat
        players = [
            pb.Player(seat=other, name=self.report.bot if other == seat else "check", version="")
            for other in range(4)
        ]
        seed = hashlib.sha256(f"{position.game_seed}/{position.name}".encode()).hexdigest()
        return pb.GameStart(
            game_id=game_id,
            seat=seat,
            rules=options_to_proto(position.state.options),
            players=players,
            first_dealer=position.first_dealer,
            time_limit_ms=self.limit_ms,
            time_reserve_ms=0,
            seed=seed[:32],
        )

    def _end_game(self, state: GameState, seat: Seat, game_id: str, action: Action | None) -> None:
        """End the position's game: the bot's team wins by forfeit after a good answer,
        and loses by forfeit after a bad one, as in a match."""
        assert self.bot is not None
        events = []
        if action is not None:
            scored = len(state.hand_results)
            hand = state.hand_number
            state.apply(action)
            events.append(_event_for(("decided", hand, seat, action, False), seat))
            if len(state.hand_results) > scored:
                events.append(_event_for(("scored", state.hand_results[-1]), seat))
        if not state.is_over():
            state.forfeit(seat if action is None else left_of(seat))
        end = pb.GameEnd(
            game_id=game_id,
            outcome=outcome_to_proto(state.outcome),
            scores=list(state.scores),
            view=view_to_proto(state.view(seat)),
            events=events,
        )
        self.bot.send(pb.RefereeMessage(game_end=end))

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

    async def _fault_kind(self, error: BotError) -> str:
        if isinstance(error, BotTimeoutError):
            return "timeout"
        if isinstance(error, BotProtocolError):
            return str(error.kind)
        assert self.bot is not None
        return "crashed" if await self.bot.has_exited(within_s=0.5) else "disconnected"

    async def _retire(self) -> None:
        if self.bot is not None:
            await self.bot.close("restarting after a fault")  # also flushes its log
            self.bot = None

    def _record(self, asked: Asked, **outcome: object) -> None:
        done = Asked(asked.position, asked.decision, asked.seat, asked.stock_choices, **outcome)
        self.report.asked.append(done)  # type: ignore[arg-type]
        if done.failure is not None:
            self.report.failures.append(done.failure)

    def _fail(self, failure: Failure) -> None:
        self.report.failures.append(failure)

    def _log_tail(self) -> tuple[str, ...]:
        """The last lines the current (or last) process wrote."""
        try:
            lines = self.log.read_text(errors="replace").splitlines()
        except OSError:
            return ()
        if _LOG_MARK in lines:
            lines = lines[len(lines) - lines[::-1].index(_LOG_MARK) :]
        return tuple(lines[-LOG_TAIL_LINES:])


def _shown(legal: Sequence[Action]) -> str:
    shown = ", ".join(str(action) for action in legal[:8])
    return shown + (f" ... ({len(legal)} in all)" if len(legal) > 8 else "")
