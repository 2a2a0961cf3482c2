"""One game between four connected bots: the engine decides, the bots answer, the
referee times them, and every fault is written into the record exactly once.

The referee enforces time itself: each decision has a limit, and overruns are paid
from a per-game reserve, so one slow moment on a loaded machine does not lose a game.
A fault (no answer in time, a dead bot, a malformed or illegal answer) is handled by the
match's policy: forfeit (the offending team loses at once) or substitute a random legal
action and go on.
"""

from __future__ import annotations

import enum
import random
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pitch_sdk._proto import pitch_pb2 as pb
from pitch_sdk.actions import Action, IllegalActionError, InvalidActionError
from pitch_sdk.cards import SEATS, Seat
from pitch_sdk.options import RuleOptions
from pitch_sdk.record import GameRecorder
from pitch_sdk.rules import CHANCE
from pitch_sdk.wire import (
    action_from_proto,
    action_to_proto,
    deal_event,
    decided_event,
    hidden_for,
    options_to_proto,
    outcome_to_proto,
    scored_event,
    view_to_proto,
)

from .errors import (
    BotError,
    BotProtocolError,
    BotStartError,
    BotTerminatedError,
    BotTimeoutError,
)
from .process import BotProcess
from .seeds import bot_seed


class FaultPolicy(enum.Enum):
    FORFEIT = "forfeit"
    """The offending team loses the game at once (the default)."""
    SUBSTITUTE = "substitute"
    """A random legal action is played instead, and the game goes on."""


@dataclass(frozen=True)
class TimeControl:
    limit_ms: int = 1000
    """Each decision's own limit."""
    reserve_ms: int = 10_000
    """A per-game reserve per seat; time over the limit is paid from it."""


RESTART_KINDS = frozenset({"start_failed", "no_hello", "timeout", "crashed", "disconnected"})
"""Faults after which the bot is replaced by a fresh process before the next game."""

FAULT_KINDS = (
    "start_failed",
    "no_hello",
    "timeout",
    "disconnected",
    "crashed",
    "malformed",
    "wrong_request",
    "stale_answer",
    "oversized",
    "illegal_action",
)


@dataclass
class GameResult:
    record: dict[str, Any]
    faults: list[dict[str, Any]] = field(default_factory=list)
    needs_restart: set[Seat] = field(default_factory=set)
    """Seats whose bot must be restarted before the next game (crashed, hung, gone)."""


@dataclass
class _Table:
    """What the loop tracks per game besides the engine: reserves and events."""

    reserves_ms: list[float]
    events: list[tuple] = field(default_factory=list)
    sent_upto: list[int] = field(default_factory=lambda: [0, 0, 0, 0])

    def new_events_for(self, seat: Seat) -> list[pb.Event]:
        pending = self.events[self.sent_upto[seat] :]
        self.sent_upto[seat] = len(self.events)
        return [_event_for(entry, seat) for entry in pending]


def _event_for(entry: tuple, viewer: Seat) -> pb.Event:
    kind = entry[0]
    if kind == "deal":
        _, hand, dealer, hands = entry
        return deal_event(hand, dealer, hands[viewer])
    if kind == "decided":
        _, hand, seat, action, forced = entry
        return decided_event(hand, seat, hidden_for(action, seat, viewer), forced)
    return scored_event(entry[1])


async def play_game(
    bots: Sequence[BotProcess],
    *,
    game_id: str,
    seed: int | str,
    options: RuleOptions | None = None,
    first_dealer: Seat = 0,
    time_control: TimeControl = TimeControl(),
    fault_policy: FaultPolicy = FaultPolicy.FORFEIT,
    secret: bytes | str | None = None,
) -> GameResult:
    """Play one game; ``bots[seat]`` plays ``seat``. Never raises for a bot's misdeeds.

    The bots' seeds are derived from ``secret`` (see ``seeds.bot_seed``): the same secret
    gives seeded bots the same seeds again; without one, a fresh secret is drawn and
    the bots' seeds do not replay.
    """
    secret = secrets.token_bytes(32) if secret is None else secret
    seeds = [bot_seed(secret, game_id, seed, seat) for seat in SEATS]
    players = [
        {"seat": seat, "name": bots[seat].name, "version": _version(bots[seat])}
        | {"seed": seeds[seat]}  # for `pitch rerun`; records are out of every bot's reach
        | ({"log": str(bots[seat].log_path)} if bots[seat].log_path else {})
        for seat in SEATS
    ]
    recorder = GameRecorder(options, seed=seed, first_dealer=first_dealer, players=players)
    state = recorder.state
    table = _Table([float(time_control.reserve_ms)] * 4)
    result = GameResult(recorder.record())
    substitutes = random.Random(f"substitute:{seed}")
    gone: set[Seat] = set()  # seats whose bot cannot play on in this game
    _announce_start(bots, game_id, recorder, first_dealer, time_control, seeds)
    for seat in SEATS:
        if bots[seat].start_error is not None and not state.is_over():
            await _record_fault(result, recorder, seat, bots[seat].start_error, bots[seat], None)
            gone.add(seat)
            if fault_policy is FaultPolicy.FORFEIT:
                recorder.forfeit(seat)
    while not state.is_over():
        seat = state.current_seat()
        if seat == CHANCE:
            recorder.deal()
            table.events.append(("deal", state.hand_number, state.dealer, tuple(state.hands)))
            continue
        legal = state.legal_actions()
        hand_before = len(state.hand_results)
        if len(legal) == 1:
            action = legal[0]
            recorder.decide(action)
        elif seat in gone:
            action = substitutes.choice(legal)
            recorder.decide(action)
        else:
            started = time.perf_counter()
            try:
                action, ms = await _ask(
                    bots[seat], seat, state, legal, table, game_id, time_control
                )
                recorder.decide(action, ms=ms)
            except (BotError, InvalidActionError, IllegalActionError) as error:
                elapsed_ms = (time.perf_counter() - started) * 1000
                kind = await _record_fault(result, recorder, seat, error, bots[seat], elapsed_ms)
                if kind in RESTART_KINDS:
                    gone.add(seat)
                if fault_policy is FaultPolicy.FORFEIT:
                    recorder.forfeit(seat)
                    break
                action = substitutes.choice(legal)
                recorder.decide(action)
        table.events.append(("decided", state.hand_number, seat, action, len(legal) == 1))
        if len(state.hand_results) > hand_before:
            table.events.append(("scored", state.hand_results[-1]))
    _announce_end(bots, game_id, recorder, table)
    result.record = recorder.record()
    return result


def _version(bot: BotProcess) -> str:
    return bot.connection.version if bot.connection else ""


def _announce_start(
    bots: Sequence[BotProcess],
    game_id: str,
    recorder: GameRecorder,
    first_dealer: Seat,
    time_control: TimeControl,
    seeds: Sequence[str],
) -> None:
    players = [
        pb.Player(seat=seat, name=bots[seat].name, version=_version(bots[seat])) for seat in SEATS
    ]
    for seat in SEATS:
        start = pb.GameStart(
            game_id=game_id,
            seat=seat,
            rules=options_to_proto(recorder.state.options),
            players=players,
            first_dealer=first_dealer,
            time_limit_ms=time_control.limit_ms,
            time_reserve_ms=time_control.reserve_ms,
            seed=seeds[seat],
        )
        bots[seat].send(pb.RefereeMessage(game_start=start))


def _announce_end(
    bots: Sequence[BotProcess], game_id: str, recorder: GameRecorder, table: _Table
) -> None:
    state = recorder.state
    for seat in SEATS:
        end = pb.GameEnd(
            game_id=game_id,
            outcome=outcome_to_proto(state.outcome),
            scores=list(state.scores),
            view=view_to_proto(state.view(seat)),
            events=table.new_events_for(seat),
        )
        bots[seat].send(pb.RefereeMessage(game_end=end))


async def _ask(
    bot: BotProcess,
    seat: Seat,
    state: Any,
    legal: Sequence[Action],
    table: _Table,
    game_id: str,
    time_control: TimeControl,
) -> tuple[Action, float]:
    """One round trip: returns the bot's action and the milliseconds it took."""
    if bot.start_error is not None:
        raise bot.start_error
    if bot.connection is None:
        raise BotTerminatedError("the bot is not connected")
    reserve = table.reserves_ms[seat]
    request = pb.DecisionRequest(
        game_id=game_id,
        view=view_to_proto(state.view(seat)),
        legal_actions=[action_to_proto(action) for action in legal],
        time_limit_ms=time_control.limit_ms,
        time_reserve_ms=int(reserve),
        events=table.new_events_for(seat),
    )
    answer, seconds = await bot.ask(request, (time_control.limit_ms + reserve) / 1000)
    ms = seconds * 1000
    table.reserves_ms[seat] = max(0.0, reserve - max(0.0, ms - time_control.limit_ms))
    if not answer.HasField("action"):
        raise BotProtocolError("the answer holds no action")
    try:
        return action_from_proto(answer.action), ms
    except InvalidActionError as error:
        raise BotProtocolError(str(error)) from None


async def _record_fault(
    result: GameResult,
    recorder: GameRecorder,
    seat: Seat,
    error: Exception,
    bot: BotProcess,
    elapsed_ms: float | None,
) -> str:
    """Write the fault into the record once; returns its kind."""
    kind = await _fault_kind(error, bot)
    if kind in RESTART_KINDS:
        result.needs_restart.add(seat)
    decision = recorder.state.decision()
    detail = str(error)
    if kind == "crashed" and bot.process is not None:
        detail = (
            bot.death_note() or f"the bot's process exited with status {bot.process.returncode}"
        )
    fault = {
        "seat": seat,
        "kind": kind,
        "decision_kind": decision.name.lower() if decision else None,
        "detail": detail,
    }
    if elapsed_ms is not None:
        fault["elapsed_ms"] = round(elapsed_ms, 1)
    if bot.log_path is not None:
        fault["log"] = str(bot.log_path)
    result.faults.append(fault)
    recorder.fault(fault)
    return kind


async def _fault_kind(error: Exception, bot: BotProcess) -> str:
    if isinstance(error, BotStartError):
        return error.kind
    if isinstance(error, BotTimeoutError):
        return "timeout"
    if isinstance(error, BotProtocolError):
        return error.kind
    if isinstance(error, (IllegalActionError, InvalidActionError)):
        return "illegal_action"  # well formed, but not a legal answer to this decision
    # The stream closed: a crash if the process is (about to be) gone, else a disconnect.
    return "crashed" if await bot.has_exited(within_s=0.5) else "disconnected"
