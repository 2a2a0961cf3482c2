"""One table for every game: the driver that deals, asks each player in turn, applies the
fault policy and writes the record.

Every way a game is played sits at this table. A ``Player`` is one seat: a ``Bot`` in
this process (``selfplay``), a bot process behind the referee (``pitch_referee``), a
recorded game (``pitch rerun``). A ``Watcher`` sees every event as it happens, hidden
cards included (a live viewer, a test). The table alone decides what each player may
know: it hands each seat its own cards and hides other seats' stock exchanges, so no
player implementation can leak them.

A player is asked with ``await player.decide(turn)``. Players in this process never
wait on anything, so ``play_in_process`` runs a table without an event loop; the
referee's players wait on the network inside its event loop.
"""

from __future__ import annotations

import enum
import random
import time
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, TypeAlias, TypeVar

from . import gamerecord
from .actions import Action, IllegalActionError, InvalidActionError, StockChoice
from .cards import SEATS, Card, CardMask, Seat
from .faults import Fault, FaultKind
from .gamerecord import GameRecord
from .options import RuleOptions
from .progress import HandResult, Outcome
from .record import GameRecorder
from .rules import CHANCE
from .views import PlayerView


class FaultPolicy(enum.Enum):
    """What the table does when a player faults."""

    FORFEIT = "forfeit"
    """The offending team loses the game at once (the default)."""
    SUBSTITUTE = "substitute"
    """A random legal action is played instead, and the game goes on."""


@dataclass(frozen=True)
class TimeControl:
    """A game's time rules: each decision's limit, and a reserve for running over it."""

    limit_ms: int = 1000
    """Each decision's own limit."""
    reserve_ms: int = 10_000
    """A per-game reserve per seat; time over the limit is paid from it."""


@dataclass(frozen=True)
class TimeBudget:
    """The time one decision may take: its own limit, plus what is left of the reserve."""

    limit_ms: int
    """The decision's own limit: a bot that stays inside it never spends its reserve."""
    reserve_ms: int
    """What is left of the seat's reserve for this game."""

    @property
    def total_ms(self) -> int:
        """The most the decision may take before it is a timeout."""
        return self.limit_ms + self.reserve_ms


@dataclass(frozen=True)
class PlayerInfo:
    """Who plays a seat, as every seat is told at the start."""

    seat: Seat
    """The seat."""
    name: str
    """The player's name."""
    version: str
    """The player's version."""


@dataclass(frozen=True)
class GameStart:
    """What a seat is told before a game's first deal."""

    game_id: str
    """The game's id in its match (empty when the table was given none)."""
    seat: Seat
    """The seat told: the one this player plays."""
    rules: RuleOptions
    """The rules in force."""
    players: tuple[PlayerInfo, ...]
    """One per seat, in seat order."""
    first_dealer: Seat
    """The dealer of the first hand."""
    time_control: TimeControl
    """The game's time rules."""
    seed: str
    """A seed for the seat's own randomness: the same game and seat get the same seed
    again, and it reveals nothing about the deals. Empty when the table was given none."""


@dataclass(frozen=True)
class Turn:
    """A decision put to a seat: what it knows (the legal actions included), and its time."""

    view: PlayerView
    """The seat's view, its legal actions included."""
    budget: TimeBudget
    """The time the decision may take."""


@dataclass(frozen=True)
class Answer:
    """A player's answer to a ``Turn``."""

    action: Action
    """The action chosen; the table checks that it is legal."""
    ms: float | None
    """How long the player took, as measured where it is timed; ``None``: not timed."""


@dataclass(frozen=True)
class Started:
    """The game begins (watchers only): ``heading`` is the record before any hand (its
    format, rules, seed, first dealer and players), so a watcher can write a record."""

    game_id: str
    """The game's id."""
    heading: Mapping[str, Any]
    """The record's fields before any hand."""


@dataclass(frozen=True)
class Dealt:
    """A hand was dealt. A seat sees its own nine cards only (the others are 0)."""

    hand: int
    """The hand's number, from 1."""
    dealer: Seat
    """The hand's dealer."""
    hands: tuple[CardMask, CardMask, CardMask, CardMask]
    """Each seat's nine cards, indexed by seat (a seat's own only, as a seat sees it)."""
    deck: tuple[Card, ...] = ()
    """The deck order, top card first: for watchers only (a seat gets it empty)."""


@dataclass(frozen=True)
class Decided:
    """A seat's decision, forced ones included. A seat does not see the card another seat
    gave up to take a stock card (``give_up`` is None)."""

    hand: int
    """The hand's number."""
    seat: Seat
    """The seat that decided."""
    action: Action
    """What it decided."""
    forced: bool
    """Whether it was the only legal action (taken by the table, nobody asked)."""
    ms: float | None = None
    """How long the player took, as the record has it: for watchers only (seats get None)."""


@dataclass(frozen=True)
class HandScored:
    """A hand was scored."""

    result: HandResult
    """The hand's public summary: bid, trump, points, the score after it."""


@dataclass(frozen=True)
class Faulted:
    """A player's fault, as written into the record (watchers only)."""

    seat: Seat
    """The seat that faulted."""
    entry: Mapping[str, Any]
    """The fault as the record's ``faults`` holds it (kind, detail, decision...)."""


@dataclass(frozen=True)
class GameOver:
    """The game ended (watchers only; seats get ``Player.end``)."""

    outcome: Outcome
    """How the game ended."""
    scores: tuple[int, int]
    """The final score of each team."""


SeatEvent: TypeAlias = Dealt | Decided | HandScored
"""What players are told, each as its seat may know it."""
TableEvent: TypeAlias = Started | SeatEvent | Faulted | GameOver
"""What watchers are told, with nothing hidden."""


class Player(Protocol):
    """One seat at the table."""

    @property
    def name(self) -> str:
        """The player's name, for the record."""

    @property
    def version(self) -> str:
        """The player's version, for the record."""

    def start(self, game: GameStart) -> None:
        """The game begins. Raises ``Fault`` when this player cannot play it at all."""

    def decide(self, turn: Turn) -> Awaitable[Answer]:
        """One decision (any awaitable: an ``async def`` method, or an object the table
        awaits). Raises ``Fault`` for a timeout, a crash, an unreadable answer."""
        ...

    def observe(self, event: SeatEvent) -> None:
        """Something happened at the table; arrives before this seat's next decision."""

    def end(self, view: PlayerView) -> None:
        """The game is over; ``view.outcome`` holds the result."""


class Watcher(Protocol):
    """Anything told every event at the table as it happens, nothing hidden (a live
    journal, a test): a callable of one ``TableEvent``."""

    def __call__(self, event: TableEvent) -> None: ...


@dataclass
class TableResult:
    """What a finished game leaves."""

    record: GameRecord
    """The game record."""
    faults: list[gamerecord.Fault] = field(default_factory=list)
    """The faults, as the record holds them."""
    gone: set[Seat] = field(default_factory=set)
    """Seats whose player could not play on (crashed, hung, never started)."""


class Table:
    """Four players, one engine, one record: ``await table.play()`` plays the game.

    ``decks`` gives the deck order of each hand number (default: the seeded deck of
    ``seed``); ``bot_seeds`` are the players' own seeds (see ``GameStart.seed``);
    ``notes`` are more fields of each seat's ``gamerecord.Player`` (``log``, ``seed``).
    """

    def __init__(
        self,
        players: Sequence[Player],
        *,
        seed: int | str,
        options: RuleOptions | None = None,
        first_dealer: Seat = 0,
        game_id: str = "",
        time_control: TimeControl = TimeControl(),
        fault_policy: FaultPolicy = FaultPolicy.FORFEIT,
        bot_seeds: Sequence[str] = ("", "", "", ""),
        decks: Callable[[int], Sequence[Card]] | None = None,
        notes: Sequence[Mapping[str, Any]] = ({}, {}, {}, {}),
        watchers: Sequence[Watcher] = (),
    ) -> None:
        self.players = players
        """The four players, indexed by seat."""
        self.game_id = game_id
        """The game's id, as players and watchers are told it."""
        self.first_dealer = first_dealer
        """The dealer of the first hand."""
        self.time_control = time_control
        """The game's time rules."""
        self.fault_policy = fault_policy
        """What a fault costs."""
        self.decks = decks
        """The deck order of each hand number; ``None``: the seeded deck of ``seed``."""
        self.watchers = watchers
        """Told every event, nothing hidden."""
        self.info = tuple(
            PlayerInfo(seat, players[seat].name, players[seat].version) for seat in SEATS
        )
        """Who plays each seat, as every seat is told."""
        entries = [
            gamerecord.Player(seat, self.info[seat].name, self.info[seat].version, **notes[seat])
            for seat in SEATS
        ]
        self.recorder = GameRecorder(options, seed=seed, first_dealer=first_dealer, players=entries)
        """Applies each action (checked) and writes the record."""
        self.state = self.recorder.state
        """The engine: the whole game, hidden cards included."""
        self.bot_seeds = bot_seeds
        """Each seat's own seed (``GameStart.seed``)."""
        self.reserves_ms = [float(time_control.reserve_ms)] * 4
        """What is left of each seat's reserve, in milliseconds."""
        self.result = TableResult(self.recorder.record())
        """The game's result, complete once ``play()`` returns."""
        self._substitutes = random.Random(f"substitute:{seed}")

    async def play(self) -> TableResult:
        """Play the game to its end. Never raises for a player's faults."""
        self._start()
        state = self.state
        while not state.is_over():
            seat = state.current_seat()
            if seat == CHANCE:
                self._deal()
                continue
            legal = state.legal_actions()
            hand_before = len(state.hand_results)
            ms = None
            if len(legal) == 1:
                action = legal[0]
                self.recorder.decide(action)
            elif seat in self.result.gone:
                action = self._substitutes.choice(legal)
                self.recorder.decide(action)
            else:
                answer = await self._ask(seat)
                if answer is None:
                    break  # forfeited
                action, ms = answer.action, answer.ms
            self._tell_everyone(Decided(state.hand_number, seat, action, len(legal) == 1), ms)
            if len(state.hand_results) > hand_before:
                self._tell_everyone(HandScored(state.hand_results[-1]))
        self._end()
        self.result.record = self.recorder.record()
        return self.result

    def _start(self) -> None:
        if self.watchers:
            record = self.recorder.record().to_json()
            heading = {
                key: record[key] for key in record if key not in ("hands", "faults", "result")
            }
            self._watch(Started(self.game_id, heading))
        for seat in SEATS:
            game = GameStart(
                game_id=self.game_id,
                seat=seat,
                rules=self.state.options,
                players=self.info,
                first_dealer=self.first_dealer,
                time_control=self.time_control,
                seed=self.bot_seeds[seat],
            )
            try:
                self.players[seat].start(game)
            except Fault as fault:
                if not self.state.is_over():
                    self._fault(seat, fault, None)

    def _deal(self) -> None:
        number = self.state.hand_number + 1
        self.recorder.deal(self.decks(number) if self.decks else None)
        hands = tuple(self.state.hands)
        for seat in SEATS:
            only_own = tuple(cards if viewer == seat else 0 for viewer, cards in enumerate(hands))
            self.players[seat].observe(Dealt(number, self.state.dealer, only_own))  # type: ignore[arg-type]
        self._watch(Dealt(number, self.state.dealer, hands, self.state.deck))  # type: ignore[arg-type]

    async def _ask(self, seat: Seat) -> Answer | None:
        """Ask ``seat`` and apply its answer, or its fault (a substitute, untimed);
        ``None`` when it forfeited."""
        state = self.state
        budget = TimeBudget(self.time_control.limit_ms, int(self.reserves_ms[seat]))
        started = time.perf_counter()
        try:
            answer = await self.players[seat].decide(Turn(state.view(seat), budget))
        except Fault as fault:
            return self._after_fault(seat, fault, (time.perf_counter() - started) * 1000)
        ms = answer.ms or 0.0
        if ms:  # an untimed answer (a player in this process) has nothing to pay
            self._charge(seat, ms)
        try:
            self.recorder.decide(answer.action, ms=answer.ms)
        except (IllegalActionError, InvalidActionError) as error:
            illegal = Fault(FaultKind.ILLEGAL_ACTION, str(error))
            return self._after_fault(seat, illegal, ms, charged=True)
        return answer

    def _after_fault(
        self, seat: Seat, fault: Fault, elapsed_ms: float, *, charged: bool = False
    ) -> Answer | None:
        if not charged:
            self._charge(seat, elapsed_ms)
        self._fault(seat, fault, elapsed_ms)
        if self.state.is_over():
            return None
        action = self._substitutes.choice(self.state.legal_actions())
        self.recorder.decide(action)
        return Answer(action, None)

    def _charge(self, seat: Seat, ms: float) -> None:
        """Time over the limit is paid from the seat's reserve."""
        over = max(0.0, ms - self.time_control.limit_ms)
        self.reserves_ms[seat] = max(0.0, self.reserves_ms[seat] - over)

    def _fault(self, seat: Seat, fault: Fault, elapsed_ms: float | None) -> None:
        """Write the fault into the record once, then apply the policy."""
        decision = self.state.decision()
        entry: dict[str, Any] = {
            "seat": seat,
            "kind": fault.kind.value,
            "decision_kind": decision.name.lower() if decision else None,
            "detail": fault.detail,
        }
        if elapsed_ms is not None:
            entry["elapsed_ms"] = round(elapsed_ms, 1)
        if fault.log is not None:
            entry["log"] = fault.log
        self.result.faults.append(self.recorder.fault(entry))
        if fault.kind.needs_restart:
            self.result.gone.add(seat)
        self._watch(Faulted(seat, entry))
        if self.fault_policy is FaultPolicy.FORFEIT:
            self.recorder.forfeit(seat)

    def _end(self) -> None:
        for seat in SEATS:
            self.players[seat].end(self.state.view(seat))
        assert self.state.outcome is not None
        self._watch(GameOver(self.state.outcome, tuple(self.state.scores)))  # type: ignore[arg-type]

    def _tell_everyone(self, event: Decided | HandScored, ms: float | None = None) -> None:
        """Each seat as it may know the event; watchers also get a decision's time."""
        hidden = _as_others_see(event)
        for seat, player in enumerate(self.players):
            player.observe(hidden if hidden is not None and seat != hidden.seat else event)
        if self.watchers:
            self._watch(
                replace(event, ms=ms) if isinstance(event, Decided) and ms is not None else event
            )

    def _watch(self, event: TableEvent) -> None:
        for watcher in self.watchers:
            watcher(event)


def _as_others_see(event: Decided | HandScored) -> Decided | None:
    """A stock exchange as the other seats see it, without the card given up; ``None``
    when every seat sees the event as it is (made once per event, not once per seat)."""
    if (
        isinstance(event, Decided)
        and isinstance(event.action, StockChoice)
        and event.action.give_up is not None
    ):
        return Decided(event.hand, event.seat, StockChoice(event.action.move), event.forced)
    return None


Result = TypeVar("Result")
"""What a coroutine run by ``play_in_process`` returns."""


def play_in_process(game: Coroutine[Any, Any, Result]) -> Result:
    """Run a table whose players never wait (bots in this process), without an event loop.

    This works inside a running loop too (a notebook), where ``asyncio.run`` would not.

    Raises:
        TypeError: a player awaited something: run such a table in an event loop.
    """
    try:
        game.send(None)
    except StopIteration as done:
        result: Result = done.value
        return result
    game.close()
    raise TypeError("a player at this table waits on something: await Table.play() instead")
