"""One game between four bot processes, at the SDK's ``Table``.

The table deals, asks, applies the fault policy and writes the record, as it does for
bots in one process. What this module adds is the seat of a bot in another process,
``RemotePlayer``: requests and events over the bot's stream, the referee's clock (each
decision has a limit, and overruns are paid from a per-game reserve, so one slow moment
on a loaded machine does not lose a game), and ``fault_of``: every way a bot can fail,
named by one ``FaultKind``.
"""

from __future__ import annotations

import asyncio
import math
import operator
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field

from pitch_sdk.actions import Action, InvalidActionError
from pitch_sdk.cards import SEATS, Seat
from pitch_sdk.faults import Fault, FaultKind
from pitch_sdk.gamerecord import Fault as RecordedFault
from pitch_sdk.gamerecord import GameRecord
from pitch_sdk.options import RuleOptions
from pitch_sdk.progress import HandResult, Trick
from pitch_sdk.protocol import messages as pb
from pitch_sdk.table import (
    Answer,
    Dealt,
    Decided,
    FaultPolicy,
    GameStart,
    SeatEvent,
    Table,
    TimeControl,
    Turn,
    Watcher,
)
from pitch_sdk.views import LookEvent, PlayerView
from pitch_sdk.wire import (
    VIEW_SETUP_FIELDS,
    action_from_proto,
    action_to_proto,
    event_to_proto,
    game_start_to_proto,
    hand_result_to_proto,
    look_to_proto,
    outcome_to_proto,
    trick_to_proto,
    view_moment_to_proto,
    view_setup_to_proto,
)

from . import framing
from .errors import BotError, BotProtocolError, BotStartError, BotTimeoutError
from .logindex import LogTag
from .process import BotProcess
from .seeds import bot_seed

CRASH_WAIT_S = 3.0
"""How long a closed stream waits for the bot's process to end before the bot is called
disconnected rather than crashed: a bot that raises closes its stream first, then takes
a moment to die (printing its traceback, its runtime's shutdown), longer on a loaded
machine. Only a bot that closes its stream and lives on pays the whole wait."""

__all__ = [
    "EventMessages",
    "FaultPolicy",
    "GameResult",
    "RemotePlayer",
    "TimeControl",
    "TimingGrid",
    "ViewMessages",
    "fault_of",
    "play_game",
]


@dataclass
class GameResult:
    record: GameRecord
    faults: list[RecordedFault] = field(default_factory=list)
    needs_restart: set[Seat] = field(default_factory=set)
    """Seats whose bot must be restarted before the next game (crashed, hung, gone)."""


async def play_game(
    bots: Sequence[BotProcess],
    *,
    game_id: str,
    seed: int | str,
    options: RuleOptions | None = None,
    first_dealer: Seat = 0,
    time_control: TimeControl | None = None,
    fault_policy: FaultPolicy = FaultPolicy.FORFEIT,
    secret: bytes | str | None = None,
    watchers: Sequence[Watcher] = (),
    timing_grid_ms: int = 0,
) -> GameResult:
    """Play one game; ``bots[seat]`` plays ``seat``. Never raises for a bot's misdeeds.

    The bots' seeds are derived from ``secret`` (see ``seeds.bot_seed``): the same secret
    gives seeded bots the same seeds again; without one, a fresh secret is drawn and
    the bots' seeds do not replay. ``timing_grid_ms`` (0: none) releases every request
    on the game's ``TimingGrid``, and the game's end too: sent at once, it would come as
    long after the last request as its bot thought, a partner's think time to the
    millisecond.
    """
    secret = secrets.token_bytes(32) if secret is None else secret
    seeds = [bot_seed(secret, game_id, seed, seat) for seat in SEATS]
    notes = [
        {"seed": seeds[seat]}  # for `pitch rerun`; records are out of every bot's reach
        | ({"log": log} if (log := bots[seat].log_name) else {})
        for seat in SEATS
    ]
    grid = TimingGrid(timing_grid_ms) if timing_grid_ms > 0 else None
    messages, views = EventMessages(), ViewMessages()
    players = [RemotePlayer(bot, grid, messages, views) for bot in bots]
    table = Table(
        players,
        seed=seed,
        options=options,
        first_dealer=first_dealer,
        game_id=game_id,
        time_control=time_control or TimeControl(),
        fault_policy=fault_policy,
        bot_seeds=seeds,
        notes=notes,
        watchers=watchers,
    )
    played = await table.play()
    if grid is not None:
        await grid.release()
        for player in players:
            player.send_held_end()
    return GameResult(played.record, played.faults, played.gone)


class TimingGrid:
    """Release times on a fixed grid from the game's start, shared by its four seats.

    A bot sees when its requests come, and the time from its answer to its next request
    holds its partner's think time: partners could signal by answering slowly or quickly.
    Released only on a tick of the grid, a request comes at the same time whether the
    decisions before it took 1 ms or nearly a tick, so a partner's think time is not seen
    finer than the grid. What is left, and what it costs: docs/sandbox.md.
    """

    def __init__(self, grid_ms: int) -> None:
        if grid_ms <= 0:
            raise ValueError("a timing grid's step is at least 1 ms")
        self.step_s = grid_ms / 1000
        self.start = asyncio.get_running_loop().time()

    async def release(self) -> None:
        """Wait for the grid's next tick (now, if this is one)."""
        loop = asyncio.get_running_loop()
        elapsed = loop.time() - self.start
        tick = self.start + math.ceil(elapsed / self.step_s) * self.step_s
        await asyncio.sleep(max(0.0, tick - loop.time()))


class EventMessages:
    """Each event encoded and framed once for the four seats of a game: the table tells
    every seat the same event object, but for a deal (each seat's own cards) and a stock
    exchange as the others see it (an object of its own)."""

    def __init__(self) -> None:
        self._last: tuple[SeatEvent, bytes] | None = None

    def of(self, event: SeatEvent, seat: Seat) -> bytes:
        """``event`` as ``seat`` is told it: an encoded ``pb.Event`` framed as one of a
        ``pb.DecisionRequest``'s ``events`` (``framing.retag`` makes it a game end's)."""
        last = self._last
        if last is not None and last[0] is event:
            return last[1]
        encoded = event_to_proto(event, seat).SerializeToString()
        framed = framing.field(framing.REQUEST_EVENTS, encoded)
        if not isinstance(event, Dealt):
            self._last = (event, framed)
        return framed


class ViewMessages:
    """What a game's requests repeat, encoded once for its four seats: each legal
    action (and each tuple of them), the bids, each finished trick and the last hand's
    result, the fields set at a hand's stages (``wire.view_setup_to_proto``), and each
    seat's view of the look. The rest of a view may change at every decision
    (``wire.view_moment_to_proto``); these parts made most of the referee's encoding
    work per decision (bench/RESULTS.md)."""

    def __init__(self) -> None:
        self._actions: dict[Action, bytes] = {}
        self._legal: dict[int, tuple[tuple[Action, ...], bytes]] = {}
        """Each tuple of legal actions seen, by its id, with its fields joined."""
        self._tricks: dict[Trick, bytes] = {}
        self._finished: tuple[tuple[Trick, ...], bytes] = ((), b"")
        self._last_hand: tuple[HandResult, bytes] | None = None
        self._bids: tuple[tuple[tuple[Seat, int], ...], bytes] = ((), b"")
        self._looks: list[tuple[tuple[LookEvent, ...], bytes]] = [((), b"")] * len(SEATS)
        """Per seat: the look as it last saw it (the engine's own tuple), encoded."""
        self._setup: tuple[tuple[object, ...], bytes] = ((), b"")
        """The views' ``VIEW_SETUP_FIELDS`` when last encoded, and their bytes."""

    def legal_actions(self, actions: tuple[Action, ...]) -> bytes:
        """``actions`` as a ``pb.DecisionRequest``'s ``legal_actions`` fields (joined
        once per tuple: the engine hands out the same tuple for the same choices)."""
        known = self._legal.get(id(actions))
        if known is not None and known[0] is actions:  # held here, so its id is its own
            return known[1]
        encoded = self._actions
        parts = []
        for action in actions:
            part = encoded.get(action)
            if part is None:
                message = action_to_proto(action).SerializeToString()
                part = encoded[action] = framing.field(framing.REQUEST_LEGAL_ACTIONS, message)
            parts.append(part)
        joined = b"".join(parts)
        self._legal[id(actions)] = (actions, joined)
        return joined

    def view(self, view: PlayerView) -> bytes:
        """``view`` as an encoded ``pb.PlayerView``."""
        parts = [
            self._setup_of(view),
            view_moment_to_proto(view).SerializeToString(),
            self._bids_of(view.bids),
            self._look_of(view.seat, view.look),
        ]
        parts.append(self._tricks_of(view.tricks))
        if view.last_hand is not None:
            parts.append(self._hand(view.last_hand))
        return b"".join(parts)

    def _setup_of(self, view: PlayerView) -> bytes:
        fields = _setup_fields(view)
        if self._setup[0] != fields:
            self._setup = (fields, view_setup_to_proto(view).SerializeToString())
        return self._setup[1]

    def _bids_of(self, bids: tuple[tuple[Seat, int], ...]) -> bytes:
        if self._bids[0] != bids:
            encoded = [pb.BidMade(seat=seat, amount=amount) for seat, amount in bids]
            number = framing.VIEW_BIDS
            fields = b"".join(framing.field(number, bid.SerializeToString()) for bid in encoded)
            self._bids = (bids, fields)
        return self._bids[1]

    def _look_of(self, seat: Seat, look: tuple[LookEvent, ...]) -> bytes:
        """The look as ``seat`` sees it: only the steps taken since its last view are
        encoded (a look only grows until the next deal)."""
        seen, encoded = self._looks[seat]
        if seen is look:
            return encoded
        if look[: len(seen)] != seen:  # a new hand's look
            seen, encoded = (), b""
        number = framing.VIEW_LOOK
        steps = [look_to_proto(event).SerializeToString() for event in look[len(seen) :]]
        encoded += b"".join([framing.field(number, step) for step in steps])
        self._looks[seat] = (look, encoded)
        return encoded

    def _tricks_of(self, tricks: tuple[Trick, ...]) -> bytes:
        """The finished tricks, joined once each time a trick is added (the engine's own
        tuple: the same object for the four seats until then)."""
        if self._finished[0] is not tricks and self._finished[0] != tricks:
            self._finished = (tricks, b"".join(self._trick(trick) for trick in tricks))
        return self._finished[1]

    def _trick(self, trick: Trick) -> bytes:
        part = self._tricks.get(trick)
        if part is None:
            message = trick_to_proto(*trick).SerializeToString()
            part = self._tricks[trick] = framing.field(framing.VIEW_TRICKS, message)
        return part

    def _hand(self, result: HandResult) -> bytes:
        last = self._last_hand
        if last is None or (last[0] is not result and last[0] != result):
            message = hand_result_to_proto(result).SerializeToString()
            last = self._last_hand = (result, framing.field(framing.VIEW_LAST_HAND, message))
        return last[1]


_setup_fields = operator.attrgetter(*VIEW_SETUP_FIELDS)
"""A view's ``VIEW_SETUP_FIELDS``, as a tuple."""


class RemotePlayer:
    """A bot process's seat: the table's calls become messages on the bot's stream."""

    def __init__(
        self,
        bot: BotProcess,
        grid: TimingGrid | None = None,
        messages: EventMessages | None = None,
        views: ViewMessages | None = None,
    ) -> None:
        self.bot = bot
        self.grid = grid
        """When set, each request waits for the grid's next tick before it is sent (the
        wait is not the bot's time: its clock starts when the request is sent)."""
        self.messages = messages or EventMessages()
        """Where events become messages (shared by a game's seats: ``play_game``)."""
        self.views = views or ViewMessages()
        """Where views and legal actions become messages (shared likewise)."""
        self.seat: Seat = 0
        self.game_id = ""
        self.events: list[bytes] = []
        """What happened since the bot's last request, as its seat may know it (each an
        encoded ``pb.Event`` framed as a request's ``events``: ``EventMessages``)."""
        self.answer_ms: float | None = None
        """How long the bot's last answer took, readable or not (``None``: no answer came)."""
        self.held_end: bytes | None = None
        """The game's end, held for the grid's next tick (``send_held_end``)."""
        self.hand = 0
        self.decided = 0
        """Decisions recorded in the hand so far: where the bot's log lines are tagged."""
        self.asked = False
        """Whether the bot is being asked for the hand's next decision."""

    @property
    def name(self) -> str:
        return self.bot.name

    @property
    def version(self) -> str:
        return self.bot.connection.version if self.bot.connection else ""

    def start(self, game: GameStart) -> None:
        self.seat, self.game_id, self.events = game.seat, game.game_id, []
        self.hand = self.decided = 0
        self.asked = False
        self.bot.log_place = self.log_tag
        self.bot.send(pb.RefereeMessage(game_start=game_start_to_proto(game)))
        if self.bot.start_error is not None:
            raise Fault(self.bot.start_error.kind, str(self.bot.start_error), log=self._log())

    def observe(self, event: SeatEvent) -> None:
        self.events.append(self.messages.of(event, self.seat))
        if isinstance(event, Decided):
            self.decided += 1
            self.asked = False
        elif isinstance(event, Dealt):
            self.hand, self.decided, self.asked = event.hand, 0, False

    def log_tag(self) -> LogTag:
        """Where the game stands for the bot's log (``logindex``): lines it writes now
        come during its decision, or after the hand's ``decided`` decisions. Made only
        when the bot writes, not at every event."""
        return LogTag(self.game_id, self.hand, self.decided, self.asked)

    async def decide(self, turn: Turn) -> Answer:
        """One round trip, timed by the bot's connection from request to answer."""
        try:
            return await self._ask(turn)
        except (BotError, InvalidActionError) as error:
            raise await fault_of(error, self.bot) from None

    async def _ask(self, turn: Turn) -> Answer:
        self.answer_ms = None
        if self.bot.start_error is not None:
            raise self.bot.start_error
        request = pb.DecisionRequest(
            game_id=self.game_id,
            time_limit_ms=turn.budget.limit_ms,
            time_reserve_ms=turn.budget.reserve_ms,
        )
        encoded = self.views.legal_actions(turn.view.legal_actions) + self._encoded(
            framing.REQUEST_VIEW, turn.view
        )
        if self.grid is not None:
            await self.grid.release()
        self.asked = True
        answer, seconds = await self.bot.ask(request, turn.budget.total_ms / 1000, encoded=encoded)
        self.bot.settle_log()  # what it wrote before answering is this decision's
        self.answer_ms = seconds * 1000
        if not answer.HasField("action"):
            raise BotProtocolError("the answer holds no action")
        return Answer(action_from_proto(answer.action), self.answer_ms)

    def end(self, view: PlayerView) -> None:
        end = pb.GameEnd(
            game_id=self.game_id, outcome=outcome_to_proto(view.outcome), scores=list(view.scores)
        )
        self.events = [framing.retag(framing.END_EVENTS, event) for event in self.events]
        encoded = self._encoded(framing.END_VIEW, view)
        message = framing.field(framing.GAME_END, end.SerializeToString() + encoded)
        if self.grid is None:
            self.bot.send(message)
        else:
            self.held_end = message

    def send_held_end(self) -> None:
        """Send the game's end held for the grid's tick (``play_game`` waits for it)."""
        if self.held_end is not None:
            self.bot.send(self.held_end)
            self.held_end = None

    def _encoded(self, view_field: int, view: PlayerView) -> bytes:
        """The view as the message's field ``view_field`` (``framing``), and the events
        since the last request (framed already); the events are then told."""
        encoded = framing.field(view_field, self.views.view(view)) + b"".join(self.events)
        self.events = []
        return encoded

    def _log(self) -> str | None:
        return self.bot.log_name


async def fault_of(error: Exception, bot: BotProcess) -> Fault:
    """The one classifier: what a bot did wrong, by kind, with what it left behind."""
    log = bot.log_name
    if isinstance(error, BotStartError):
        return Fault(error.kind, str(error), log=log)
    if isinstance(error, BotTimeoutError):
        return Fault(FaultKind.TIMEOUT, str(error), log=log)
    if isinstance(error, BotProtocolError):
        return Fault(error.kind, str(error), log=log)
    if isinstance(error, InvalidActionError):
        return Fault(FaultKind.MALFORMED, str(error), log=log)  # not an action at all
    # The stream closed: a crash if the process is (about to be) gone, else a disconnect.
    if await bot.has_exited(within_s=CRASH_WAIT_S):
        return Fault(FaultKind.CRASHED, await bot.crash_note(), log=log)
    return Fault(FaultKind.DISCONNECTED, str(error), log=log)
