"""The rules of 13-point partner pitch as a state machine (docs/rules.md is the authority).

``GameState`` holds a whole game: a sequence of hands, each dealt from a deck order the
caller supplies (the only chance event), then decided seat by seat. At every point
``current_seat()`` says who decides (a seat, ``CHANCE`` for the next deal, or
``TERMINAL``), ``decision()`` says what kind of decision it is, and ``legal_actions()``
lists every legal option. ``apply()`` checks an action and raises a precise error;
``push()`` skips the check for search and ``pop()`` undoes it; ``copy()`` is the cheap,
history-free clone for simulation. ``view(seat)`` (``views.py``) is the only way hidden
cards leave the engine.

Steps that need no decision (discarding non-trumps, the fill from the stock) happen
inside the action that leads to them. Beyond the SDK's own modules, this module imports
only the standard library.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import combinations
from operator import itemgetter
from typing import TYPE_CHECKING, cast

from .actions import (
    LEAVE,
    PASS,
    STOP,
    Action,
    Bid,
    Decision,
    Discard,
    IllegalActionError,
    InvalidActionError,
    NameTrump,
    PickUp,
    Play,
    StockChoice,
    StockMove,
)
from .cards import (
    DECK_SIZE,
    DEUCE,
    JOKER,
    JOKERS_MASK,
    POINT_CARDS,
    POINTS,
    SECOND_JOKER,
    STRENGTH,
    STRENGTH_LOW_JOKER,
    SUITS,
    TEAM_OF,
    TRUMPS,
    Card,
    CardMask,
    PerSeat,
    Seat,
    Suit,
    Team,
    canonical_jokers,
    card_name,
    cards_in,
    distinct_cards,
    left_of,
    mask_points,
    partner,
    resolve_jokers,
    seats_from,
    team_of,
)
from .options import RuleOptions
from .progress import (
    BIDDING,
    DEAL,
    DISCARDING,
    LOOKING,
    OVER,
    PICKING_UP,
    PLAYING,
    TRUMP_NAMING,
    HandResult,
    Outcome,
    Termination,
    Trick,
)
from .views import PlayerView, view_of

CHANCE = -1
"""``current_seat()`` before a deal: the caller supplies the deck order."""
TERMINAL = -2
"""``current_seat()`` once the game is over."""

HAND_SIZE = 6
"""The trumps each seat plays with: hands are brought to six before play."""
CARDS_DEALT = 9
"""The cards each seat is dealt; the other 18 are the stock."""
MIN_BID, DEALER_MIN_BID, MAX_BID = 4, 5, 13


_DECISION_OF_PHASE = {
    BIDDING: Decision.BID,
    TRUMP_NAMING: Decision.TRUMP,
    DISCARDING: Decision.DISCARD,
    PICKING_UP: Decision.PICKUP,
    LOOKING: Decision.STOCK,
    PLAYING: Decision.PLAY,
}


_ALL_CODES = set(range(DECK_SIZE))
_BIT = tuple(1 << card for card in range(DECK_SIZE))
# Deal 3 cards at a time, three times round, starting left of the dealer: the k-th seat
# from the dealer's left receives the cards at these positions of the deck order.
_DEALT_POSITIONS = tuple(
    itemgetter(*(rnd * 12 + k * 3 + i for rnd in range(3) for i in range(3))) for k in range(4)
)
_PLAYS = tuple(Play(card) for card in range(DECK_SIZE))
_BIDS = tuple(Bid(amount) for amount in range(MAX_BID + 1))
_PASS_OR_BID_FROM = tuple((PASS, *_BIDS[max(lowest, MIN_BID) :]) for lowest in range(MAX_BID + 2))
"""``_PASS_OR_BID_FROM[n]``: pass, or any bid from ``n`` up (none above 13)."""
_TRUMP_NAMES = tuple(NameTrump(suit) for suit in SUITS)
_TAKES = tuple(StockChoice(StockMove.TAKE, card) for card in range(DECK_SIZE))


def _choices(held: CardMask, sizes: range) -> list[CardMask]:
    """Every distinct subset of ``held`` with a size in ``sizes``, jokers taken as identical."""
    held = canonical_jokers(held)
    cards = list(cards_in(held))
    subsets = []
    for size in sizes:
        for combo in combinations(cards, size):
            mask = 0
            for card in combo:
                mask |= 1 << card
            if mask & JOKERS_MASK != 1 << SECOND_JOKER:
                subsets.append(mask)
    return subsets


def _plays_from(held: CardMask) -> tuple[Play, ...]:
    """The plays to offer from ``held`` trumps: identical jokers are one option, ``JK``."""
    return tuple(_PLAYS[card] for card in cards_in(distinct_cards(held)))


_PLAYS_OF_HELD: dict[CardMask, tuple[Play, ...]] = {}
"""Memo of ``_plays_from``: play lists are asked for millions of times in search."""


# --- what a position is ---------------------------------------------------------------
#
# The one list of the fields that change as a game is played. ``pop()``, ``copy()``,
# ``key()`` and the snapshot that ``push()`` keeps are written out from it (see
# ``_position_methods``), so a field cannot be saved by one and forgotten by another.

_GAME_FIELDS = ("phase", "to_move", "dealer", "hand_number", "scores", "hand_results", "outcome")
"""Where the game stands and what it has scored (``__init__`` sets these)."""

_HAND_FIELDS = (
    "deck", "hands", "stock", "bids", "bid", "bidder", "trump", "discarded",
    "discarded_down", "picked", "centre", "fill", "gone", "queue", "looker", "look_cards",
    "look_log", "leader", "trick", "trick_best", "tricks", "jokers_played", "taken", "dead",
)  # fmt: skip
"""The hand being played (``_clear_hand`` sets these afresh at every deal)."""

_FIELDS = _GAME_FIELDS + _HAND_FIELDS
"""A position: every field of a ``GameState`` but ``options`` (fixed for the game) and
``_stack`` (the history)."""

_LIST_FIELDS = frozenset({"hands"})
"""Fields holding a list that the engine changes in place (a play takes the card out of
``hands[seat]``): a snapshot or a clone gets its own copy, and ``key()`` a tuple. Every
other field holds an immutable value (an int, a tuple, an enum member, a frozen record),
shared as it is between a state, its snapshots and its clones."""


def _position_methods() -> tuple[Callable[..., object], ...]:
    """``_snapshot``, ``pop``, ``copy`` and ``key``, written out field by field from
    ``_FIELDS`` (as ``dataclasses`` writes ``__init__``).

    Written out rather than looping over the names: these are the playout primitives of
    search bots, and a loop of ``getattr``/``setattr`` costs several times more.
    """

    copied = _LIST_FIELDS
    saved = ", ".join(f"self.{n}.copy()" if n in copied else f"self.{n}" for n in _FIELDS)
    keyed = ", ".join(f"tuple(self.{n})" if n in copied else f"self.{n}" for n in _FIELDS)
    restored = ", ".join(f"self.{n}" for n in _FIELDS)
    cloned = "".join(
        f"\n    clone.{n} = self.{n}.copy()" if n in copied else f"\n    clone.{n} = self.{n}"
        for n in _FIELDS
    )
    source = f'''
def _snapshot(self) -> "tuple":
    """The position, in ``_FIELDS`` order; ``pop()`` restores it."""
    return ({saved},)

def pop(self) -> "None":
    """Undo the last ``push``, ``apply``, ``deal`` or ``forfeit``."""
    ({restored},) = self._stack.pop()

def copy(self) -> "GameState":
    """A history-free clone: cheap, for simulation from this point."""
    clone = GameState.__new__(GameState)
    clone.options = self.options
    clone._stack = []{cloned}
    return clone

def key(self) -> "tuple":
    """A hashable identity of the position (the options and everything but history)."""
    return (self.options, {keyed})
'''
    namespace: dict[str, Callable[..., object]] = {}
    code = compile(source, "<rules._position_methods>", "exec")
    exec(code, globals(), namespace)  # globals(): the methods see this module, GameState too
    return namespace["_snapshot"], namespace["pop"], namespace["copy"], namespace["key"]


class GameState:
    """A game of 13-point partner pitch, from the first deal to the result.

    The fields of the hand in progress (``hands``, ``stock``, ``bids``, ``trump``,
    ``tricks``...) hold every card, hidden ones included: a bot sees a state only
    through ``view(seat)``, or one it sampled with ``pitch_sdk.determinize``.

    Args:
        options: the rules in force (the standard rules by default).
        first_dealer: the dealer of the first hand; the deal passes to the left.
    """

    __slots__ = (
        "options",  # the rules in force: fixed for the game, shared by clones, part of key()
        "_stack",  # the snapshots that pop() restores; a clone starts without any
        *_FIELDS,
    )

    def __init__(self, options: RuleOptions | None = None, first_dealer: Seat = 0) -> None:
        self.options = options or RuleOptions()
        """The rules in force, fixed for the game."""
        self.dealer = first_dealer
        """The dealer of the hand in progress (or of the next one, before its deal)."""
        self.hand_number = 0
        """1 for the first hand; 0 before the first deal."""
        self.scores = (0, 0)
        """Each team's game score from the hands scored so far."""
        self.hand_results: tuple[HandResult, ...] = ()
        """Every finished hand, in order."""
        self.outcome: Outcome | None = None
        """How the game ended; ``None`` while it goes on."""
        self._stack: list[tuple[object, ...]] = []
        self._clear_hand()
        self.phase = DEAL
        """Where the hand is: which kind of decision is due, a deal, or the end."""
        self.to_move = CHANCE
        """The same as ``current_seat()``."""

    def _clear_hand(self) -> None:
        self.deck: tuple[Card, ...] = ()
        self.hands = [0, 0, 0, 0]
        self.stock: tuple[Card, ...] = ()
        self.bids: tuple[tuple[Seat, int], ...] = ()
        self.bid = 0
        self.bidder = -1
        self.trump = -1
        self.discarded: PerSeat = (0, 0, 0, 0)
        """Non-trumps each seat put face up in the centre."""
        self.discarded_down: PerSeat = (0, 0, 0, 0)
        """Trumps each seat discarded face up to get down to six."""
        self.picked: PerSeat = (0, 0, 0, 0)
        self.centre = 0
        self.fill: PerSeat = (0, 0, 0, 0)
        """Cards each seat received from the stock in the fill (private to the seat)."""
        self.gone = 0
        """Cards that left play face down in the look through the stock."""
        self.queue: tuple[Seat, ...] = ()
        self.looker = -1
        self.look_cards: tuple[Card, ...] = ()
        self.look_log: tuple[tuple[Seat, Card, StockChoice], ...] = ()
        self.leader = -1
        self.trick: tuple[tuple[Seat, Card], ...] = ()
        self.trick_best = (-1, -1)
        self.tricks: tuple[Trick, ...] = ()
        self.jokers_played = 0
        self.taken = (0, 0)
        self.dead = 0

    # --- questions --------------------------------------------------------------------

    def current_seat(self) -> int:
        """The seat that decides now, ``CHANCE`` (a deal is due) or ``TERMINAL``."""
        return self.to_move

    def decision(self) -> Decision | None:
        """The kind of decision the current seat faces; ``None`` at chance or terminal."""
        return _DECISION_OF_PHASE.get(self.phase)

    def is_over(self) -> bool:
        """Whether the game has ended (``outcome`` says how)."""
        return self.outcome is not None

    def legal_actions(self) -> tuple[Action, ...]:
        """Every legal action for the current seat, in a fixed order; empty when none.

        Examples:
            >>> from pitch_sdk.cards import parse_card
            >>> state = GameState()
            >>> state.deal(range(54))
            >>> [str(action) for action in state.legal_actions()][:3]
            ['pass', 'bid 4', 'bid 5']
        """
        phase = self.phase
        if phase is PLAYING:
            held = self.hands[self.to_move] & TRUMPS[self.trump]
            plays = _PLAYS_OF_HELD.get(held)
            if plays is None:
                plays = _PLAYS_OF_HELD[held] = _plays_from(held)
            return plays
        if phase == LOOKING:
            return self._stock_actions()
        if phase == BIDDING:
            return self._bid_actions()
        if phase == TRUMP_NAMING:
            return _TRUMP_NAMES
        if phase == DISCARDING:
            held = self.hands[self.to_move]
            extra = held.bit_count() - HAND_SIZE
            return tuple(Discard(mask) for mask in _choices(held, range(extra, extra + 1)))
        if phase == PICKING_UP:
            room = HAND_SIZE - self.hands[self.to_move].bit_count()
            offered = self._pickup_offer(self.to_move)
            return tuple(PickUp(mask) for mask in _choices(offered, range(room + 1)))
        return ()

    def _bid_actions(self) -> tuple[Action, ...]:
        seat, high = self.to_move, self.bid
        if seat == self.dealer and high == 0:
            return _BIDS[DEALER_MIN_BID:]
        lowest = max(MIN_BID, high + 1)
        if seat == self.dealer and self.options.dealer_steal:
            lowest = high
        return _PASS_OR_BID_FROM[lowest]

    def _stock_actions(self) -> tuple[Action, ...]:
        seat, turned = self.to_move, self.look_cards[0]
        actions: list[Action] = []
        if POINTS[self.trump][turned]:
            actions.extend(_TAKES[card] for card in cards_in(distinct_cards(self.hands[seat])))
        actions.append(LEAVE)
        if seat == self.bidder or len(self.look_cards) > 1:
            actions.append(STOP)
        return tuple(actions)

    def _pickup_offer(self, seat: Seat) -> CardMask:
        """Point cards in the centre that other seats discarded down to six."""
        others = 0
        for other in range(4):
            if other != seat:
                others |= self.discarded_down[other]
        return self.centre & others & POINT_CARDS[self.trump]

    def is_legal(self, action: Action) -> bool:
        """Whether ``action`` is one of ``legal_actions()``."""
        return action in self.legal_actions()

    def trumps_held(self, seat: Seat) -> CardMask:
        """The trumps in ``seat``'s hand; none before trumps are named."""
        return self.hands[seat] & TRUMPS[self.trump] if self.trump >= 0 else 0

    # --- changes ----------------------------------------------------------------------

    def deal(self, deck: object) -> None:
        """Deal a new hand from ``deck``: all 54 card codes, top card first.

        Raises:
            IllegalActionError: no deal is due now.
            InvalidActionError: the deck is not an order of the 54 cards.
        """
        if self.to_move != CHANCE:
            raise IllegalActionError("no deal is due: the game is over or a seat must decide")
        try:
            order: tuple[object, ...] = tuple(deck) if isinstance(deck, Iterable) else ()
        except TypeError:
            order = ()
        # Check the types too: 1.0 and True compare equal to card code 1.
        if len(order) != DECK_SIZE or set(map(type, order)) != {int} or set(order) != _ALL_CODES:
            raise InvalidActionError("a deck order must hold each of the 54 card codes once")
        self._push_snapshot()
        self._deal(cast(tuple[Card, ...], order))  # 54 ints, checked above

    def _deal(self, order: tuple[Card, ...]) -> None:
        self._clear_hand()
        self.hand_number += 1
        self.deck = order
        hands = [0, 0, 0, 0]
        for seat, positions in zip(seats_from(left_of(self.dealer)), _DEALT_POSITIONS, strict=True):
            hands[seat] = sum(map(_BIT.__getitem__, positions(order)))
        self.hands = hands
        self.stock = order[4 * CARDS_DEALT :]
        self.phase = BIDDING
        self.to_move = left_of(self.dealer)

    def apply(self, action: Action, *, undoable: bool = True) -> None:
        """Play ``action`` for the current seat after checking it is legal; ``pop()``
        undoes it unless ``undoable`` is false (a game's record, never undone, keeps no
        step to undo at each decision).

        Raises:
            InvalidActionError: the action is malformed or of the wrong kind for this decision.
            IllegalActionError: the action is not legal now.
        """
        expected = self.decision()
        if expected is None:
            raise IllegalActionError(
                "no decision is due: " + ("the game is over" if self.outcome else "deal first")
            )
        problem = _malformed(action)
        if problem:
            raise InvalidActionError(problem)
        if action.decision != expected:
            raise InvalidActionError(
                f"seat {self.to_move} must make a {expected.name.lower()} decision, not {action!s}"
            )
        if action not in self.legal_actions():
            raise IllegalActionError(
                f"{action} is not legal for seat {self.to_move}: {self._why()}"
            )
        if undoable:
            self.push(action)
        else:
            self.advance(action)

    def _why(self) -> str:
        legal = self.legal_actions()
        shown = ", ".join(str(a) for a in legal[:12]) + (" ..." if len(legal) > 12 else "")
        return f"legal are {shown}"

    def push(self, action: Action) -> None:
        """Play ``action`` without checking it (for search); ``pop()`` undoes it."""
        self._push_snapshot()
        try:
            self.advance(action)
        except IllegalActionError:
            self._stack.pop()
            raise

    def advance(self, action: Action) -> None:
        """Play ``action`` without checking it and without keeping an undo step.

        The fastest door, for random playouts on a ``copy()``; ``pop()`` cannot undo it.
        """
        phase = self.phase
        if phase is PLAYING:
            self._play(action.card)  # type: ignore[union-attr]
        elif phase == LOOKING:
            self._stock_choice(action)  # type: ignore[arg-type]
        elif phase == BIDDING:
            self._bid(action.amount)  # type: ignore[union-attr]
        elif phase == TRUMP_NAMING:
            self._name_trump(action.suit)  # type: ignore[union-attr]
        elif phase == DISCARDING:
            self._discard(action.cards)  # type: ignore[union-attr]
        elif phase == PICKING_UP:
            self._pick_up(action.cards)  # type: ignore[union-attr]
        else:
            raise IllegalActionError("no decision is due now")

    def forfeit(self, seat: Seat) -> None:
        """End the game at once: ``seat``'s team loses (a platform rule for faulty bots).

        Raises:
            IllegalActionError: the game is already over.
        """
        if self.outcome is not None:
            raise IllegalActionError("cannot forfeit: the game is already over")
        self._push_snapshot()
        self.outcome = Outcome(Termination.FORFEIT, 1 - team_of(seat), seat)
        self.phase = OVER
        self.to_move = TERMINAL

    # --- undo and clones --------------------------------------------------------------
    #
    # The four that must name every field are written out from _FIELDS when the module
    # loads (see _position_methods); a type checker sees their signatures here, and the
    # API reference (read from the source) their docstrings, the generated ones' words.

    if TYPE_CHECKING:

        def _snapshot(self) -> tuple[object, ...]: ...
        def pop(self) -> None:
            """Undo the last ``push``, ``apply``, ``deal`` or ``forfeit``."""

        def copy(self) -> GameState:
            """A history-free clone: cheap, for simulation from this point."""

        def key(self) -> tuple[object, ...]:
            """A hashable identity of the position (the options and everything but history)."""

    else:
        _snapshot, pop, copy, key = _position_methods()

    def _push_snapshot(self) -> None:
        self._stack.append(self._snapshot())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GameState) and self.key() == other.key()

    __hash__ = None  # type: ignore[assignment]  # mutable

    def view(self, seat: Seat) -> PlayerView:
        """What ``seat`` may know now, and nothing else."""
        return view_of(self, seat)

    # --- bidding ----------------------------------------------------------------------

    def _bid(self, amount: int) -> None:
        seat = self.to_move
        self.bids += ((seat, amount),)
        if amount:
            self.bid, self.bidder = amount, seat
        if seat == self.dealer:
            self.phase, self.to_move = TRUMP_NAMING, self.bidder
        else:
            self.to_move = left_of(seat)

    # --- trumps, discards, pick-up and fill ---------------------------------------------

    def _name_trump(self, suit: Suit) -> None:
        self.trump = suit
        trumps = TRUMPS[suit]
        first, second, third, fourth = self.hands
        self.discarded = (first & ~trumps, second & ~trumps, third & ~trumps, fourth & ~trumps)
        self.hands = hands = [first & trumps, second & trumps, third & trumps, fourth & trumps]
        self.centre = (first | second | third | fourth) & ~trumps
        self.queue = tuple(
            seat for seat in seats_from(left_of(self.dealer)) if hands[seat].bit_count() > HAND_SIZE
        )
        if self.queue:
            self.phase, self.to_move = DISCARDING, self.queue[0]
        else:
            self._start_fill()  # nothing was discarded down, so there is nothing to pick up

    def _discard(self, chosen: CardMask) -> None:
        seat = self.to_move
        cards = resolve_jokers(chosen, self.hands[seat])
        self.hands[seat] ^= cards
        self.discarded_down = _with_added(self.discarded_down, seat, cards)
        self.centre |= cards
        self.queue = self.queue[1:]
        if self.queue:
            self.to_move = self.queue[0]
        else:
            self.queue = seats_from(left_of(self.dealer))
            self._next_pickup()

    def _next_pickup(self) -> None:
        """Ask the next seat (in order from the dealer's left) that may pick anything up."""
        while self.queue:
            seat = self.queue[0]
            if self.hands[seat].bit_count() < HAND_SIZE and self._pickup_offer(seat):
                self.phase, self.to_move = PICKING_UP, seat
                return
            self.queue = self.queue[1:]
        self._start_fill()

    def _pick_up(self, chosen: CardMask) -> None:
        seat = self.to_move
        cards = resolve_jokers(chosen, self.centre)
        self.hands[seat] |= cards
        self.centre ^= cards
        self.picked = _with_added(self.picked, seat, cards)
        self.queue = self.queue[1:]
        self._next_pickup()

    def _start_fill(self) -> None:
        """The dealer fills every hand to six from the stock, then the bidder looks through."""
        self.queue = ()
        stock = self.stock
        fill = [0, 0, 0, 0]
        for seat in seats_from(left_of(self.dealer)):
            need = max(0, HAND_SIZE - self.hands[seat].bit_count())
            fill[seat] = sum(map(_BIT.__getitem__, stock[:need]))
            self.hands[seat] |= fill[seat]
            stock = stock[need:]
        self.fill = (fill[0], fill[1], fill[2], fill[3])
        self.stock = ()
        if stock:
            self.phase, self.to_move = LOOKING, self.bidder
            self.looker, self.look_cards = self.bidder, stock
        else:
            self._start_play()

    # --- the look through the stock ---------------------------------------------------

    def _stock_choice(self, choice: StockChoice) -> None:
        seat, turned = self.to_move, self.look_cards[0]
        self.look_log += ((seat, turned, choice),)
        if choice.move is StockMove.TAKE:
            given = resolve_jokers(1 << choice.give_up, self.hands[seat])  # type: ignore[operator]
            self.hands[seat] ^= given | 1 << turned
            self.gone |= given
            self.look_cards = self.look_cards[1:]
        elif choice.move is StockMove.LEAVE:
            self.gone |= 1 << turned
            self.look_cards = self.look_cards[1:]
        elif seat == self.bidder:
            self.looker = self.to_move = partner(seat)  # the partner looks at the rest
            return
        else:
            for card in self.look_cards:
                self.gone |= 1 << card
            self.look_cards = ()
        if not self.look_cards:
            self._start_play()

    # --- play -------------------------------------------------------------------------

    def _start_play(self) -> None:
        self.phase = PLAYING
        self.looker = -1
        if not self._team_out():
            bidder = self.bidder
            self._lead(bidder if self.trumps_held(bidder) else partner(bidder))

    def _play(self, card: Card) -> None:
        seat = self.to_move
        hands = self.hands
        if card >= JOKER:
            card = resolve_jokers(1 << card, hands[seat]).bit_length() - 1
            strength = STRENGTH_LOW_JOKER + 1 - self.jokers_played  # the first played is high
            self.jokers_played += 1
        else:
            strength = STRENGTH[self.trump][card]
        hands[seat] ^= 1 << card
        self.trick += ((seat, card),)
        if strength > self.trick_best[0]:
            self.trick_best = (strength, seat)
        self.queue = following = self.queue[1:]
        if following:
            self.to_move = following[0]
        else:
            self._finish_trick()

    def _lead(self, seat: Seat) -> None:
        """``seat`` leads a trick; everyone holding a trump follows in turn to the left."""
        trumps = TRUMPS[self.trump]
        hands = self.hands
        self.leader = self.to_move = seat
        self.queue = tuple([player for player in seats_from(seat) if hands[player] & trumps])

    def _finish_trick(self) -> None:
        winner = self.trick_best[1]
        points = POINTS[self.trump]
        deuce = DEUCE[self.trump]
        taken = list(self.taken)
        for seat, card in self.trick:
            if points[card]:
                # The deuce goes to the team that played it; every other point to the winner.
                taken[TEAM_OF[seat if card == deuce else winner]] += points[card]
        self.taken = (taken[0], taken[1])
        self.tricks += (Trick(self.leader, self.trick, winner),)
        self.trick, self.trick_best = (), (-1, -1)
        if not self._team_out():
            self._lead(winner if self.trumps_held(winner) else partner(winner))

    def _team_out(self) -> bool:
        """End the hand if both players of a team hold no trump; the other team then scores
        the point cards its players still hold."""
        trumps = TRUMPS[self.trump]
        hands = self.hands
        held = (hands[0] | hands[2]) & trumps, (hands[1] | hands[3]) & trumps
        if held[0] and held[1]:
            return False
        taken = list(self.taken)
        for team in (0, 1):
            taken[team] += mask_points(held[team], self.trump)
        self.taken = (taken[0], taken[1])
        self._end_hand()
        return True

    # --- scoring and the end of the game ------------------------------------------------

    def _end_hand(self) -> None:
        trump, bidding_team = self.trump, team_of(self.bidder)
        self.dead = mask_points(self.centre | self.gone, trump)
        taken = self.taken
        gains, made = hand_gains(bidding_team, self.bid, taken, self.options.scoring)
        self.scores = (self.scores[0] + gains[0], self.scores[1] + gains[1])
        self.hand_results += (
            HandResult(
                self.hand_number, self.dealer, self.bidder, self.bid, trump,
                taken, self.dead, self.scores, made,
            ),
        )  # fmt: skip
        self.outcome = self._game_outcome(bidding_team)
        if self.outcome:
            self.phase, self.to_move = OVER, TERMINAL
        else:
            self.phase, self.to_move = DEAL, CHANCE
            self.dealer = left_of(self.dealer)

    def _game_outcome(self, bidding_team: Team) -> Outcome | None:
        if self.bid == MAX_BID and self.taken[bidding_team] == MAX_BID:
            return Outcome(Termination.MOON, bidding_team)
        target = self.options.target
        over = [score >= target for score in self.scores]
        if over[0] and over[1]:
            return Outcome(Termination.TARGET, bidding_team)  # the bidder goes out first
        if over[0] or over[1]:
            return Outcome(Termination.TARGET, 0 if over[0] else 1)
        if self.hand_number >= self.options.hand_cap:
            first, second = self.scores
            winner = None if first == second else (0 if first > second else 1)
            return Outcome(Termination.HAND_CAP, winner)
        return None

    def __repr__(self) -> str:
        where = "over" if self.outcome else f"seat {self.to_move} to {self.phase.name.lower()}"
        return (
            f"<GameState hand {self.hand_number}, dealer {self.dealer}, scores "
            f"{self.scores[0]}-{self.scores[1]}, {where}, trump "
            f"{'-' if self.trump < 0 else 'CDHS'[self.trump]}, "
            f"hands {[' '.join(card_name(c) for c in cards_in(h)) for h in self.hands]}>"
        )


def _malformed(action: object) -> str | None:
    """Why ``action`` is not a well-formed action, or ``None`` when it is.

    Checked before anything formats the action: a bad field (a card code out of range, a
    negative mask) must give a clear error, not a crash or an endless loop.
    """
    if isinstance(action, Bid):
        field, ok = "amount", type(action.amount) is int
    elif isinstance(action, NameTrump):
        field, ok = "suit", _is_code(action.suit, len(SUITS))
    elif isinstance(action, (Discard, PickUp)):
        field, ok = "cards", _is_code(action.cards, 1 << DECK_SIZE)
    elif isinstance(action, Play):
        field, ok = "card", _is_code(action.card, DECK_SIZE)
    elif isinstance(action, StockChoice):
        if not isinstance(action.move, StockMove):
            return f"malformed StockChoice: move {action.move!r} is not a StockMove"
        taking = action.move is StockMove.TAKE
        field = "give_up"
        ok = _is_code(action.give_up, DECK_SIZE) if taking else action.give_up is None
    else:
        return f"not an action: {action!r} (text is read with parse_action)"
    if ok:
        return None
    return f"malformed {type(action).__name__}: bad {field} {getattr(action, field)!r}"


def _is_code(value: object, limit: int) -> bool:
    return type(value) is int and 0 <= value < limit


def hand_gains(
    bidding_team: Team, bid: int, taken: tuple[int, int], scoring: str
) -> tuple[tuple[int, int], bool]:
    """Each team's score change for a hand in which the teams took ``taken`` points, and
    whether the bid was made: a set bidding team loses its bid; a made bid scores the
    points taken (or only the bid, under ``scoring: bid``); the other team scores what it
    took."""
    made = taken[bidding_team] >= bid
    gain = -bid if not made else bid if scoring == "bid" else taken[bidding_team]
    gains = [0, 0]
    gains[bidding_team], gains[1 - bidding_team] = gain, taken[1 - bidding_team]
    return (gains[0], gains[1]), made


def _with_added(values: PerSeat, index: int, value: int) -> PerSeat:
    added = list(values)
    added[index] |= value
    return (added[0], added[1], added[2], added[3])
