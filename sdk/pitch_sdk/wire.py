"""Conversions between the engine's values and the wire messages (``proto/pitch/v1``).

The only module that touches protobuf objects on both sides of the stream: the referee
turns views and actions into messages, the SDK turns them back, and bot authors never
see a message. ``action_from_proto`` is the referee's edge check: a message that is not
a well-formed action raises ``InvalidActionError``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import TypeVar, cast

from ._proto import pitch_pb2 as pb
from .actions import (
    Action,
    Bid,
    Decision,
    Discard,
    InvalidActionError,
    NameTrump,
    PickUp,
    Play,
    StockChoice,
    StockMove,
)
from .cards import (
    DECK_SIZE,
    JOKER,
    SEATS,
    SECOND_JOKER,
    CardMask,
    Seat,
    canonical_jokers,
)
from .options import RuleOptions
from .progress import HandResult, Outcome, Phase, Termination, Trick
from .table import (
    Dealt,
    Decided,
    GameStart,
    HandScored,
    PlayerInfo,
    SeatEvent,
    TimeControl,
)
from .views import HIDDEN_LOOK, PLAYER_VIEW_FIELDS, LookEvent, PlayerView, view_maker

_EnumT = TypeVar("_EnumT", pb.StockMove, pb.Phase, pb.Decision)

PROTOCOL_VERSION = 1
"""The version of the wire contract this SDK speaks, sent in the bot's hello."""


# --- cards and options --------------------------------------------------------------


def checked_mask(mask: int) -> CardMask:
    """A card set from the wire, whose bits must all be card codes.

    Raises:
        InvalidActionError: a bit above the 54 cards is set.
    """
    if mask >> DECK_SIZE:
        raise InvalidActionError(f"card set {mask:#x} has bits beyond the 54 card codes")
    return mask


def options_to_proto(options: RuleOptions) -> pb.RuleOptions:
    """The rule options as a message."""
    return pb.RuleOptions(
        scoring=options.scoring,
        dealer_steal=options.dealer_steal,
        target=options.target,
        hand_cap=options.hand_cap,
    )


def options_from_proto(message: pb.RuleOptions) -> RuleOptions:
    """The rule options a message holds (one shared value per set of options)."""
    return _options(message.scoring, message.dealer_steal, message.target, message.hand_cap)


# Every view carries the rules, and they never change within a game: both ends keep them.
_cached_options_message = functools.lru_cache(maxsize=16)(options_to_proto)
_options = functools.lru_cache(maxsize=16)(RuleOptions)

# Enum lookups by value, without the cost of calling the enum class at every view.
_PHASES = {phase.value: phase for phase in Phase}
_DECISIONS = {decision.value: decision for decision in Decision}
_STOCK_MOVES = {move.value: move for move in StockMove}


# --- actions ------------------------------------------------------------------------


def action_to_proto(action: Action) -> pb.Action:
    """An action as a message."""
    message = pb.Action()
    set_action(message, action)
    return message


def set_action(message: pb.Action, action: Action) -> None:
    """Set ``action`` in ``message``: in place, inside the message that holds it (an
    ``Action`` made apart is copied in when put in another message)."""
    if isinstance(action, Play):
        message.play = action.card
    elif isinstance(action, Bid):
        message.bid = action.amount
    elif isinstance(action, NameTrump):
        message.trump = action.suit
    elif isinstance(action, Discard):
        message.discard = action.cards
    elif isinstance(action, PickUp):
        message.pickup = action.cards
    else:
        message.stock.move = _enum(pb.StockMove, action.move)
        if action.give_up is not None:
            message.stock.give_up = action.give_up


def action_from_proto(message: pb.Action) -> Action:
    """The engine action a message stands for; legality is the engine's business.

    Raises:
        InvalidActionError: no action is set, or a value is out of range.
    """
    kind = message.WhichOneof("action")
    if kind == "play":
        play = _PLAY_OF_CODE.get(message.play)
        if play is None:
            raise InvalidActionError(f"card code {message.play} is out of range (0-53)")
        return play
    if kind == "bid":
        bid = _BID_OF_AMOUNT.get(message.bid)
        if bid is None:
            raise InvalidActionError(f"bid {message.bid} is out of range (0 = pass, 4-13)")
        return bid
    if kind == "trump":
        trump = _TRUMP_OF_SUIT.get(message.trump)
        if trump is None:
            raise InvalidActionError(f"suit {message.trump} is out of range (0-3)")
        return trump
    if kind == "discard":
        return Discard(canonical_jokers(checked_mask(message.discard)))
    if kind == "pickup":
        return PickUp(canonical_jokers(checked_mask(message.pickup)))
    if kind == "stock":
        return _stock_from_proto(message.stock)
    raise InvalidActionError("the answer holds no action (no field of Action is set)")


def _stock_from_proto(message: pb.StockChoice) -> StockChoice:
    try:
        move = StockMove(message.move)
    except ValueError:
        raise InvalidActionError(f"stock move {message.move} is not take, leave or stop") from None
    if move is StockMove.TAKE:
        if not message.HasField("give_up"):
            raise InvalidActionError("a stock take must name the card given up")
        return StockChoice(move, _card(message.give_up))
    return StockChoice(move)


def _card(code: int) -> int:
    if code >= DECK_SIZE:
        raise InvalidActionError(f"card code {code} is out of range (0-53)")
    return JOKER if code == SECOND_JOKER else code


# Every play, bid and suit an action can hold, made once: both ends decode actions at
# every request (the bot its legal actions, the referee its answer), and a lookup costs
# a third of making the frozen value. Out-of-range codes are not keys.
_PLAY_OF_CODE = {code: Play(_card(code)) for code in range(DECK_SIZE)}
_BID_OF_AMOUNT = {amount: Bid(amount) for amount in range(14)}
_TRUMP_OF_SUIT = {suit: NameTrump(suit) for suit in range(4)}


# --- views --------------------------------------------------------------------------


def trick_to_proto(leader: Seat, plays: Sequence[tuple[Seat, int]], winner: int) -> pb.Trick:
    """A trick; ``winner`` is -1 while it is in progress."""
    return pb.Trick(
        leader=max(leader, 0),
        seats=[seat for seat, _ in plays],
        cards=[card for _, card in plays],
        winner=winner,
    )


def _plays(trick: pb.Trick) -> tuple[tuple[Seat, int], ...]:
    return tuple(zip(trick.seats[:], trick.cards[:], strict=True))


def _four(values: Sequence[int]) -> tuple[int, int, int, int]:
    """A per-seat list's four entries: indexed, as iterating a repeated field element by
    element costs three times as much."""
    return (values[0], values[1], values[2], values[3])


def _two(values: Sequence[int]) -> tuple[int, int]:
    """A per-team list's two entries (as ``_four``)."""
    return (values[0], values[1])


def hand_result_to_proto(result: HandResult) -> pb.HandResult:
    """A finished hand's summary as a message."""
    return pb.HandResult(
        number=result.number,
        dealer=result.dealer,
        bidder=result.bidder,
        bid=result.bid,
        trump=result.trump,
        points=list(result.points),
        dead=result.dead,
        scores=list(result.scores),
        made=result.made,
    )


def hand_result_from_proto(message: pb.HandResult) -> HandResult:
    """The finished hand's summary a message holds."""
    return HandResult(
        message.number,
        message.dealer,
        message.bidder,
        message.bid,
        message.trump,
        (message.points[0], message.points[1]),
        message.dead,
        (message.scores[0], message.scores[1]),
        message.made,
    )


def outcome_to_proto(outcome: Outcome | None) -> pb.Outcome | None:
    """A game's outcome as a message; ``None`` while the game goes on."""
    if outcome is None:
        return None
    message = pb.Outcome(termination=outcome.termination.value)
    if outcome.winner is not None:
        message.winner = outcome.winner
    if outcome.forfeited_by is not None:
        message.forfeited_by = outcome.forfeited_by
    return message


def outcome_from_proto(message: pb.Outcome) -> Outcome:
    """The outcome a message holds."""
    return Outcome(
        Termination(message.termination),
        message.winner if message.HasField("winner") else None,
        message.forfeited_by if message.HasField("forfeited_by") else None,
    )


def view_to_proto(view: PlayerView) -> pb.PlayerView:
    """A seat's view as a message (the legal actions travel beside it, in the request)."""
    message = view_setup_to_proto(view)
    message.MergeFrom(view_moment_to_proto(view))
    message.bids.extend(pb.BidMade(seat=seat, amount=amount) for seat, amount in view.bids)
    message.look.extend(look_to_proto(event) for event in view.look)
    message.tricks.extend(trick_to_proto(*trick) for trick in view.tricks)
    if view.last_hand is not None:
        message.last_hand.CopyFrom(hand_result_to_proto(view.last_hand))
    return message


def view_setup_to_proto(view: PlayerView) -> pb.PlayerView:
    """The fields of a view that change only from one stage of a hand to the next (the
    deal, each bid, the trump, the discards, the fill) and are the same for the four
    seats: the referee encodes them again only when one of ``VIEW_SETUP_FIELDS`` changed
    (``pitch_referee.game_loop.ViewMessages``), and they merge with the rest."""
    return pb.PlayerView(
        rules=_cached_options_message(view.options),
        hand_number=view.hand_number,
        dealer=view.dealer,
        scores=list(view.scores),
        bidder=view.bidder,
        bid=view.bid,
        trump=view.trump,
        discarded=view.discarded,
        discarded_down=view.discarded_down,
        picked=view.picked,
        centre=view.centre,
        fill_sizes=list(view.fill_sizes),
        stock_size=view.stock_size,
    )


VIEW_SETUP_FIELDS = (
    "options",
    "hand_number",
    "dealer",
    "scores",
    "bidder",
    "bid",
    "trump",
    "discarded",
    "discarded_down",
    "picked",
    "centre",
    "fill_sizes",
    "stock_size",
)
"""The view's fields that ``view_setup_to_proto`` encodes."""


def view_moment_to_proto(view: PlayerView) -> pb.PlayerView:
    """The fields of a seat's view that may change at every decision or are its own
    (its seat, its fill), but for its bids, look, finished tricks and last hand: those
    four change once a bid, a look or a trick, and but for the look are the same for
    the four seats, so the referee encodes them once
    (``pitch_referee.game_loop.ViewMessages``)."""
    message = pb.PlayerView(
        seat=view.seat,
        phase=_enum(pb.Phase, view.phase),
        to_move=view.to_move,
        decision=_enum(pb.Decision, view.decision or 0),
        hand=view.hand,
        hand_sizes=view.hand_sizes,
        fill=view.fill,
        look_remaining=view.look_remaining,
        leader=view.leader,
        jokers_played=view.jokers_played,
        taken=view.taken,
    )
    # The trick in progress set in place: a Trick made apart is copied in, at twice the cost.
    trick = message.trick
    trick.leader = max(view.leader, 0)
    trick.winner = -1
    if plays := view.trick:
        trick.seats.extend([seat for seat, _ in plays])
        trick.cards.extend([card for _, card in plays])
    if view.look_card is not None:
        message.look_card = view.look_card
    if (outcome := outcome_to_proto(view.outcome)) is not None:
        message.outcome.CopyFrom(outcome)
    return message


def _enum(kind: type[_EnumT], value: int) -> _EnumT:
    """An engine enum's value as the message's enum (the same numbers, by the protocol)."""
    return cast(_EnumT, int(value))


def look_to_proto(event: LookEvent) -> pb.LookEvent:
    """A step of the look through the stock, as its viewer saw it."""
    message = pb.LookEvent(seat=event.seat, move=_enum(pb.StockMove, event.move))
    if event.card is not None:
        message.card = event.card
    if event.give_up is not None:
        message.give_up = event.give_up
    return message


def view_from_proto(message: pb.PlayerView, legal: Sequence[Action] = ()) -> PlayerView:
    """Rebuild the engine's ``PlayerView`` (with ``legal`` as its legal actions).

    A bot does this at every request, so the view decodes its single numbers at once and
    each of its other fields (the lists, tricks, look, rules, results) only when the bot
    first reads it (``views.view_maker``): decoding a whole view was four fifths of the
    SDK's work per request, and most bots read a few of its fields. It is the same
    ``PlayerView`` to the bot, equal to the one the referee's engine made. The view
    keeps ``message`` to read from: change neither afterwards."""
    return _make_wire_view(
        seat=message.seat,
        hand_number=message.hand_number,
        dealer=message.dealer,
        phase=_PHASES[message.phase],
        to_move=message.to_move,
        decision=_DECISIONS[message.decision] if message.decision else None,
        legal_actions=tuple(legal),
        hand=message.hand,
        bidder=message.bidder,
        bid=message.bid,
        trump=message.trump,
        centre=message.centre,
        fill=message.fill,
        stock_size=message.stock_size,
        look_card=message.look_card if message.HasField("look_card") else None,
        look_remaining=message.look_remaining,
        leader=message.leader,
        jokers_played=message.jokers_played,
        deferred=_ViewMessage(message),
    )


class _ViewMessage:
    """A view's message, which decodes a field of the view when the bot first reads it."""

    __slots__ = ("message",)

    def __init__(self, message: pb.PlayerView) -> None:
        self.message = message

    def field(self, name: str) -> object:
        decode = _DEFERRED_FIELDS.get(name)
        if decode is None:
            raise AttributeError(f"'PlayerView' object has no attribute '{name}'")
        return decode(self.message)


_DEFERRED_FIELDS: dict[str, Callable[[pb.PlayerView], object]] = {
    "options": lambda message: options_from_proto(message.rules),
    "scores": lambda message: _two(message.scores),
    "hand_sizes": lambda message: _four(message.hand_sizes),
    "bids": lambda message: tuple([(bid.seat, bid.amount) for bid in message.bids]),
    "discarded": lambda message: _four(message.discarded),
    "discarded_down": lambda message: _four(message.discarded_down),
    "picked": lambda message: _four(message.picked),
    "fill_sizes": lambda message: _four(message.fill_sizes),
    "look": lambda message: tuple([_look_event(event) for event in message.look]),
    "tricks": lambda message: tuple(
        [Trick(trick.leader, _plays(trick), trick.winner) for trick in message.tricks]
    ),
    "trick": lambda message: _plays(message.trick),
    "taken": lambda message: _two(message.taken),
    "last_hand": lambda message: _last_hand(message) if message.HasField("last_hand") else None,
    "outcome": lambda message: (
        outcome_from_proto(message.outcome) if message.HasField("outcome") else None
    ),
}
"""How each field of a view that is not a single number is decoded, when first read."""

_make_wire_view = view_maker([name for name in PLAYER_VIEW_FIELDS if name not in _DEFERRED_FIELDS])
"""Makes a view from its single numbers, deferring the rest to ``_DEFERRED_FIELDS``."""


def _look_event(message: pb.LookEvent) -> LookEvent:
    """A step of the look; another seat's (no card shown) is one of a few shared values."""
    if message.HasField("card"):
        give_up = message.give_up if message.HasField("give_up") else None
        return LookEvent(message.seat, _STOCK_MOVES[message.move], message.card, give_up)
    if message.HasField("give_up"):  # not sent without the card: made as it came
        return LookEvent(message.seat, _STOCK_MOVES[message.move], None, message.give_up)
    return HIDDEN_LOOK[message.seat][_STOCK_MOVES[message.move]]


def _last_hand(view: pb.PlayerView) -> HandResult:
    """The view's last hand, decoded once while it stays the same (every request of a
    hand carries it, and decoding it was a sixth of a view's decoding)."""
    global _decoded_last_hand
    message = view.last_hand
    decoded = _decoded_last_hand
    if decoded is None or decoded[0] != message:
        decoded = _decoded_last_hand = (message, hand_result_from_proto(message))
    return decoded[1]


_decoded_last_hand: tuple[pb.HandResult, HandResult] | None = None
"""The last hand ``_last_hand`` decoded, with its message."""


# --- a game's start, and its events ------------------------------------------------


def game_start_to_proto(game: GameStart) -> pb.GameStart:
    """What a seat is told at a game's start, as a message."""
    return pb.GameStart(
        game_id=game.game_id,
        seat=game.seat,
        rules=options_to_proto(game.rules),
        players=[pb.Player(seat=p.seat, name=p.name, version=p.version) for p in game.players],
        first_dealer=game.first_dealer,
        time_limit_ms=game.time_control.limit_ms,
        time_reserve_ms=game.time_control.reserve_ms,
        seed=game.seed,
    )


def game_start_from_proto(message: pb.GameStart) -> GameStart:
    """What a seat was told at a game's start."""
    return GameStart(
        game_id=message.game_id,
        seat=message.seat,
        rules=options_from_proto(message.rules),
        players=tuple(PlayerInfo(p.seat, p.name, p.version) for p in message.players),
        first_dealer=message.first_dealer,
        time_control=TimeControl(message.time_limit_ms, message.time_reserve_ms),
        seed=message.seed,
    )


def event_to_proto(event: SeatEvent, seat: Seat) -> pb.Event:
    """An event as ``seat`` was given it by the table (``Table`` hides what it may not see)."""
    if isinstance(event, Dealt):
        return pb.Event(hand=event.hand, deal=pb.Deal(dealer=event.dealer, hand=event.hands[seat]))
    if isinstance(event, Decided):
        message = pb.Event(hand=event.hand)  # filled in place, as the answer (set_action)
        decided = message.decided
        decided.seat = event.seat
        set_action(decided.action, event.action)
        decided.forced = event.forced
        return message
    scored = pb.HandScored(result=hand_result_to_proto(event.result))
    return pb.Event(hand=event.result.number, hand_scored=scored)


def event_from_proto(message: pb.Event, seat: Seat) -> SeatEvent | None:
    """The event ``seat`` received; ``None`` for a kind this SDK does not know."""
    kind = message.WhichOneof("event")
    if kind == "deal":
        hands = tuple(message.deal.hand if viewer == seat else 0 for viewer in SEATS)
        return Dealt(message.hand, message.deal.dealer, hands)  # type: ignore[arg-type]
    if kind == "decided":
        decided = message.decided
        return Decided(message.hand, decided.seat, _public_action(decided.action), decided.forced)
    if kind == "hand_scored":
        return HandScored(hand_result_from_proto(message.hand_scored.result))
    return None


def _public_action(message: pb.Action) -> Action:
    """Another seat's stock take arrives without the card it gave up."""
    if message.WhichOneof("action") == "stock" and not message.stock.HasField("give_up"):
        return StockChoice(StockMove(message.stock.move))
    return action_from_proto(message)
