"""What one seat may know: its own cards and the public history of the hand.

``PlayerView`` is what bots receive. It is perfect-recall for its seat within the
current hand (every public event, plus the seat's own private ones: its cards, its
fill, the stock cards it turned) and carries the public results of earlier hands.
It never holds another seat's hidden cards; ``view_of`` is the only place that decides
what is hidden.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Protocol

from .actions import Action, Decision, StockChoice, StockMove
from .cards import Card, CardMask, PerSeat, Seat, Suit
from .options import RuleOptions
from .progress import LOOKING, HandResult, Outcome, Phase, Trick

if TYPE_CHECKING:
    # For the annotation only: at run time the engine imports this module, never the
    # other way round (``test_views_do_not_import_the_engine`` pins it).
    from .rules import GameState


@dataclass(frozen=True, slots=True)
class LookEvent:
    """One card turned in the look through the stock.

    For another seat's look, ``card`` and the card given up are hidden (``None``):
    only the kind of choice (take, leave, stop) is public.
    """

    seat: Seat
    """The seat that turned the card."""
    move: StockMove
    """What it did with it: take, leave or stop."""
    card: Card | None
    """The card turned; ``None`` for another seat's."""
    give_up: Card | None
    """The card given up for a take; ``None`` for another seat's, and for leave and stop."""


class DeferredFields(Protocol):
    """Where a view made with some fields left out finds them (``view_maker``)."""

    def field(self, name: str) -> object:
        """The value of the view's field ``name``. Raises ``AttributeError`` for a name
        that is no field it holds."""


class _Deferring:
    """What lets a ``PlayerView`` leave fields out until they are read: a field whose
    slot was never set is asked of ``_deferred`` at its first read and kept. The view is
    the same class and equal, hashed, printed, copied and pickled the same (each of
    those reads its fields); a view made whole never comes here."""

    __slots__ = ("_deferred",)

    if not TYPE_CHECKING:  # to type checkers a view has its fields and nothing else

        def __getattr__(self, name: str) -> object:
            if name == "_deferred":
                raise AttributeError(name)
            try:
                deferred = self._deferred
            except AttributeError:
                raise AttributeError(
                    f"'{type(self).__name__}' object has no attribute '{name}'"
                ) from None
            value = deferred.field(name)
            object.__setattr__(self, name, value)  # frozen to its users, as __init__ sets
            return value


@dataclass(frozen=True, slots=True)
class PlayerView(_Deferring):
    """Everything ``seat`` knows at this moment of the game.

    Seats are absolute (0-3; partners opposite, ``pitch_sdk.cards.partner``) and teams
    are 0 (seats 0 and 2) and 1 (seats 1 and 3), whoever is looking: your own are
    ``seat`` and ``pitch_sdk.cards.team_of(seat)``. Card sets are masks
    (``pitch_sdk.cards.cards_in`` lists them). Fields about the hand in progress hold
    what was public to the table plus this seat's own private cards, never another
    seat's; a field of something that has not happened yet is empty (0, -1 or ``()``).
    """

    seat: Seat
    """The seat this view belongs to: yours."""
    options: RuleOptions
    """The rules in force for this game."""
    hand_number: int
    """The hand being played, from 1 (0 before the first deal)."""
    dealer: Seat
    """The dealer of this hand."""
    scores: tuple[int, int]
    """Each team's game score (indexed by team) from the hands scored so far; negative
    after a lost bid."""
    phase: Phase
    """Where the hand is: bidding, naming trumps, discarding, ... playing, over."""
    to_move: int
    """The seat that decides now: this one or another (``pitch_sdk.rules.CHANCE`` while a
    deal is due, ``pitch_sdk.rules.TERMINAL`` once the game is over)."""
    decision: Decision | None
    """The decision this seat faces, if it is this seat's turn."""
    legal_actions: tuple[Action, ...]
    """This seat's legal actions; empty when it is not its turn."""
    hand: CardMask
    """This seat's own cards, as held now."""
    hand_sizes: tuple[int, int, int, int]
    """How many cards each seat holds now (indexed by seat)."""
    bids: tuple[tuple[Seat, int], ...]
    """(seat, amount) in bidding order; 0 is a pass."""
    bidder: Seat
    """The seat that won the bidding; -1 until bidding ends."""
    bid: int
    """The highest bid so far (the contract once bidding ends); 0 before any bid."""
    trump: Suit
    """The trump suit named by the bidder; -1 until trump is named."""
    discarded: tuple[CardMask, CardMask, CardMask, CardMask]
    """Non-trumps each seat put face up in the centre."""
    discarded_down: tuple[CardMask, CardMask, CardMask, CardMask]
    """Trumps each seat discarded face up to get down to six."""
    picked: tuple[CardMask, CardMask, CardMask, CardMask]
    """Centre point cards each seat picked up."""
    centre: CardMask
    """The face-up cards now in the centre."""
    fill_sizes: tuple[int, int, int, int]
    """How many cards each seat received in the fill."""
    fill: CardMask
    """The cards this seat received in the fill."""
    stock_size: int
    """Cards in the face-down stock: 18 until the fill, then none (the looker holds them)."""
    look: tuple[LookEvent, ...]
    """The look through the stock so far, hidden cards masked for other seats."""
    look_card: Card | None
    """The stock card this seat has just turned, when it is deciding on it."""
    look_remaining: int
    """Cards in the looker's pile, the turned one included."""
    tricks: tuple[Trick, ...]
    """The finished tricks of this hand, in order, each with its plays and winner."""
    trick: tuple[tuple[Seat, Card], ...]
    """The trick in progress: (seat, card) in play order."""
    leader: Seat
    """The seat that led the trick in progress (-1 before play)."""
    jokers_played: int
    """How many jokers have been played this hand (0-2): the first one played is the
    high joker, the second the low one (``pitch_sdk.cards.STRENGTH_LOW_JOKER``)."""
    taken: tuple[int, int]
    """Points each team has taken so far in this hand."""
    last_hand: HandResult | None
    """The most recently finished hand; earlier ones are history a decision never needs
    (their effect is in ``scores``), and a bot that wants them keeps them from
    ``Bot.on_hand_end``."""
    outcome: Outcome | None
    """How the game ended; ``None`` while it goes on."""


PLAYER_VIEW_FIELDS = tuple(field.name for field in fields(PlayerView))
"""The names of a view's fields, in order."""


def view_maker(names: Sequence[str] | None = None) -> Callable[..., PlayerView]:
    """A maker of ``PlayerView``s that sets each field straight through its slot, written
    out from the fields (as ``dataclasses`` writes ``__init__``; keyword arguments, all
    required). A frozen dataclass's own ``__init__`` goes through ``object.__setattr__``
    for every field, which costs twice as much, and a view is made for every decision of
    every game. The view is the same: same class, same fields, frozen to its users.

    Given ``names`` (some of the fields), the maker takes those and ``deferred``, a
    ``DeferredFields`` that gives each other field when it is first read: a bot's view
    from the wire decodes only what the bot reads (``wire.view_from_proto``)."""
    chosen = list(PLAYER_VIEW_FIELDS if names is None else names)
    if unknown := set(chosen) - set(PLAYER_VIEW_FIELDS):
        raise ValueError(f"not fields of PlayerView: {sorted(unknown)}")
    namespace: dict[str, object] = {"_new": object.__new__, "PlayerView": PlayerView}
    namespace.update({f"_set_{name}": getattr(PlayerView, name).__set__ for name in chosen})
    arguments = chosen if names is None else [*chosen, "deferred"]
    source = f"def make_view(*, {', '.join(arguments)}):\n    view = _new(PlayerView)\n"
    source += "".join(f"    _set_{name}(view, {name})\n" for name in chosen)
    if names is not None:
        namespace["_set_deferred"] = _Deferring._deferred.__set__  # type: ignore[attr-defined]
        source += "    _set_deferred(view, deferred)\n"
    exec(source + "    return view\n", namespace)
    return namespace["make_view"]  # type: ignore[return-value]


make_view = view_maker()
"""Make a ``PlayerView`` from all its fields, by keyword, at half the cost of the class's
own constructor: for the engine (``view_of``), which makes one at every decision."""


def view_of(state: GameState, seat: Seat) -> PlayerView:
    """Build ``seat``'s view of ``state``; hidden cards never enter it."""
    my_turn = state.to_move == seat
    looking_now = my_turn and state.phase == LOOKING
    return make_view(
        seat=seat,
        options=state.options,
        hand_number=state.hand_number,
        dealer=state.dealer,
        scores=state.scores,
        phase=state.phase,
        to_move=state.to_move,
        decision=state.decision() if my_turn else None,
        legal_actions=tuple(state.legal_actions()) if my_turn else (),
        hand=state.hands[seat],
        hand_sizes=_counts(state.hands),
        bids=state.bids,
        bidder=state.bidder,
        bid=state.bid,
        trump=state.trump,
        discarded=state.discarded,
        discarded_down=state.discarded_down,
        picked=state.picked,
        centre=state.centre,
        fill_sizes=_counts(state.fill),
        fill=state.fill[seat],
        stock_size=len(state.stock),
        look=_look_as_seen(state.look_log, seat),
        look_card=state.look_cards[0] if looking_now else None,
        look_remaining=len(state.look_cards),
        tricks=state.tricks,
        trick=state.trick,
        leader=state.leader,
        jokers_played=state.jokers_played,
        taken=state.taken,
        last_hand=state.hand_results[-1] if state.hand_results else None,
        outcome=state.outcome,
    )


def _counts(masks: Sequence[CardMask]) -> PerSeat:
    """The number of cards in each seat's mask."""
    return (masks[0].bit_count(), masks[1].bit_count(), masks[2].bit_count(), masks[3].bit_count())


def _look_as_seen(
    look_log: tuple[tuple[Seat, Card, StockChoice], ...], viewer: Seat
) -> tuple[LookEvent, ...]:
    """The look through the stock as ``viewer`` may see it: the cards of its own turns,
    only the kind of choice for other seats'.

    The engine's log is a tuple replaced at each stock decision, and the events are
    frozen, so one tuple of events serves every view of the same log: each viewer keeps
    its last one (the same object means the same log) instead of building it for every
    view of a hand (the log keeps the whole look until the next deal)."""
    last = _LAST_LOOK.get(viewer)
    if last is not None and last[0] is look_log:
        return last[1]
    events = tuple(
        LookEvent(seat, choice.move, card, choice.give_up)
        if seat == viewer
        else HIDDEN_LOOK[seat][choice.move]
        for seat, card, choice in look_log
    )
    _LAST_LOOK[viewer] = (look_log, events)
    return events


_LAST_LOOK: dict[Seat, tuple[object, tuple[LookEvent, ...]]] = {}
"""Per viewer: the last look log seen and its events (``_look_as_seen``)."""
HIDDEN_LOOK = tuple(
    {move: LookEvent(seat, move, None, None) for move in StockMove} for seat in range(4)
)
"""Another seat's look event: only the kind of choice, one shared value per seat and move."""
