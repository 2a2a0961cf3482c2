"""Determinization: a complete engine state sampled from what one seat knows.

Search bots (PIMC, Monte Carlo) need a whole ``GameState`` to simulate, but a seat only
has its ``PlayerView``. ``determinize(view, rng)`` places every card the seat cannot see
(the other hands, the face-down stock, another looker's pile, the cards that left play
face down, the other seats' fill and stock-look cards) at random, so that

    determinize(view, rng).view(view.seat) == view

for every view of every reachable state, legal actions included. The state is a normal
engine state: ``copy()`` it and play it out with ``advance()``.

How a sample is made. The hand's public history fixes most of the structure, so the
sampler works in the order the rules do, by stage:

* nothing dealt yet: the state is empty;
* bidding (trumps not named): the unseen cards are shuffled into the other hands and the
  stock;
* after trumps, before the fill: the other hands hold only trumps (every non-trump was
  discarded face up), so they get unseen trumps and the stock gets the rest;
* after the fill (look, play, a finished hand): the *current* places are sampled first
  (the other hands, the rest of the looker's pile, the hidden face-down cards), then the
  hidden history is rebuilt backwards from them (what each other looker turned, took and
  gave up; then each seat's fill and the trumps it kept from the deal). The history
  gives a full deck order: ``deck`` deals exactly this hand and stock.

What is inferred from the view (each is a fact every true state shares):

* hand sizes, fill sizes and the pile size are public, and every card the seat has seen
  (the centre, picked-up cards, played cards, its own hand, fill and look) stays where
  it is known to be; cards another seat picked up stay in its hand;
* a seat skipped in a trick, a trick winner whose partner led next, and a bidder whose
  partner led the first trick hold no trump afterwards;
* the seat to play holds a trump, and during a trick each team that has not yet played
  to it still holds a trump (otherwise the hand would have ended); at the end of a
  hand some team holds no trump, and the trumps left in hands are worth exactly the
  points the team-out rule scored;
* after the fill a seat's non-trumps can only be fill cards: at most ``fill_sizes[seat]``;
* another seat's stock take turned a point card, and its give-up was in its hand;
* the jokers are identical, but a seat asked for ``JK`` always gives the lower code
  first, so a seat that played or discarded the second joker did not hold the first;
* after a forfeit in the middle of a hand, the forfeiting seat is taken to be the seat
  that was to move (the referee only forfeits a seat whose own decision faulted).

Sampling is uniform where it is cheap to be exact: how many non-trumps and trumps each
hidden hand gets (at a hand's end, also how many trumps worth 0, 1 and 3 points each
team keeps; in a look, how many trumps lie face down for give-ups) is drawn with the
exact number of placements it allows, so voids, must-hold rules and point sums cost no
rejection; then the cards of each kind are shuffled. What is left (which pile cards
another looker turned and took, its give-ups, joker codes) is checked by rejection with
at most ``MAX_ATTEMPTS`` tries. Not weighted: how many hidden histories lead to the same
cards, and the bids (a bid says something about a hand, but how much is up to the
bots). Two simplifications: another looker is assumed to have kept the cards it picked
up (and a partner the bidder's stop card it took) unless it is shown to hold no trump,
in which case it gave them up in its look.

The view's digest and the weight tables are cached, since a search bot samples the same
view many times; a sample then costs roughly 0.1-0.3 ms.

If no try meets every constraint (or they are provably unmeetable for this sampler), a
documented best effort is returned: the current places are shuffled under the size rules
only and the hidden history is patched up (a take may record a non-point card, a fill
may miss a non-trump). The view-equality property and card conservation still hold; if
the history cannot be made into 9-card hands, ``deck`` is left empty (``()``).
"""

from __future__ import annotations

import enum
import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import permutations, product
from math import comb
from typing import NamedTuple

from .actions import StockChoice, StockMove
from .cards import (
    DECK_SIZE,
    DEUCE,
    JOKER,
    JOKERS_MASK,
    POINT_CARDS,
    POINTS,
    SEATS,
    SECOND_JOKER,
    STRENGTH,
    STRENGTH_LOW_JOKER,
    SUITS,
    TRUMPS,
    Card,
    CardMask,
    Seat,
    cards_in,
    left_of,
    mask_of,
    mask_points,
    partner,
    seats_from,
    team_of,
)
from .rules import (
    CARDS_DEALT,
    HAND_SIZE,
    GameState,
)
from .views import PlayerView

__all__ = ["MAX_ATTEMPTS", "determinize", "sample_state"]

MAX_ATTEMPTS = 64
"""Strict samples tried before the best-effort fallback."""

STOCK_CARDS = DECK_SIZE - 4 * CARDS_DEALT
ALL_MASK = (1 << DECK_SIZE) - 1
LOW_JOKER_BIT = 1 << JOKER
"""The first joker code: the one the engine gives when a seat holding both is asked for JK."""
TAKE, LEAVE_MOVE, STOP_MOVE = StockMove.TAKE, StockMove.LEAVE, StockMove.STOP
POINT_CLASSES = tuple(
    tuple(
        mask_of(card for card in cards_in(TRUMPS[suit]) if POINTS[suit][card] == value)
        for value in (0, 1, 3)
    )
    for suit in SUITS
)
"""``POINT_CLASSES[trump]``: the trumps worth 0, 1 and 3 points."""
_BIT = tuple(1 << card for card in range(DECK_SIZE))
_BYTE_CARDS = tuple(
    tuple(tuple(8 * shift + i for i in range(8) if byte >> i & 1) for byte in range(256))
    for shift in range(7)
)
"""``_BYTE_CARDS[k][byte]``: the cards of bits ``8k .. 8k+7`` set in ``byte``."""


def _cards(mask: CardMask) -> list[Card]:
    """The cards of a mask, lowest first (a table per byte: faster than ``cards_in``)."""
    cards: list[Card] = []
    for table in _BYTE_CARDS:
        if not mask:
            break
        cards += table[mask & 255]
        mask >>= 8
    return cards


def _mask(cards: Iterable[Card]) -> CardMask:
    """The mask of distinct cards (a sum of bits: faster than ``mask_of``)."""
    return sum(map(_BIT.__getitem__, cards))


def determinize(view: PlayerView, rng: random.Random) -> GameState:
    """A complete game state consistent with everything ``view.seat`` knows.

    The hidden cards are drawn from ``rng``, so a search bot gets a fresh, independent
    sample per call; the result shares nothing mutable with other calls, so it can be
    played out in place or ``copy()``-ed.

    Args:
        view: what the seat knows (``state.view(seat)`` or what a bot was sent).
        rng: the source of randomness (a bot passes its own seeded ``self.rng``).

    Returns:
        A state ``s`` with ``s.view(view.seat) == view``.

    Raises:
        ValueError: the view cannot come from any game (its counts do not add up).
    """
    return sample_state(view, rng)[0]


def sample_state(view: PlayerView, rng: random.Random) -> tuple[GameState, bool]:
    """``determinize``, also saying whether the sample met every constraint.

    Returns:
        The state, and ``True`` for a strict sample or ``False`` for the best-effort
        fallback (kept separate so tests can measure how often the fallback is needed).

    Raises:
        ValueError: the view cannot come from any game (its counts do not add up).
    """
    try:
        facts = _cached_facts(view)
    except TypeError:  # a hand-made view with unhashable parts: no caching
        facts = _facts_of(view)
    try:
        for _ in range(MAX_ATTEMPTS):
            world = _sample_world(facts, rng, strict=True)
            if world is not None:
                return _assemble(facts, world), True
    except _Infeasible:
        pass
    world = _sample_world(facts, rng, strict=False)
    if world is None:  # pragma: no cover - the relaxed sampler only fails on bad views
        raise ValueError("the view is not consistent with the rules")
    return _assemble(facts, world), False


class _Infeasible(Exception):
    """The strict constraints cannot be met for this view, whatever the random draws."""


class _Stage(enum.IntEnum):
    """How far the hand has come; each stage hides different cards."""

    UNDEALT = 0
    BIDDING = 1
    BEFORE_FILL = 2
    AFTER_FILL = 3


@dataclass(frozen=True, slots=True)
class _Entry:
    """One look-through event with the position of its card in the looked-through pile."""

    index: int
    seat: Seat
    move: StockMove
    card: Card | None
    give_up: Card | None
    pos: int


@dataclass(slots=True)
class _World:
    """The hidden slots of a sampled state (the public ones are copied from the view)."""

    hands: list[CardMask]
    stock: tuple[Card, ...] = ()
    look_cards: tuple[Card, ...] = ()
    gone: CardMask = 0
    fill: tuple[CardMask, CardMask, CardMask, CardMask] = (0, 0, 0, 0)
    look_log: tuple = ()
    deck: tuple[Card, ...] = ()


@dataclass(slots=True)
class _Facts:
    """What the view implies: computed once per view (cached) and only read by the tries."""

    view: PlayerView
    stage: _Stage
    me: Seat
    hidden: tuple[Seat, ...]
    dealer: Seat
    """The dealer of the hand the slots describe (a finished hand's, between hands)."""
    finished: bool
    trumps: CardMask
    played: tuple[CardMask, ...]
    kept: tuple[int, ...]
    """Trumps each seat kept from its deal after discarding down to six."""
    no_low_joker_in_kept: frozenset[Seat] = frozenset()
    # After the fill only:
    entries: tuple[_Entry, ...] = ()
    pile_size: int = 0
    pile_start: int = 0
    lookers: frozenset[Seat] = frozenset()
    takes: tuple[int, ...] = (0, 0, 0, 0)
    """Takes per seat in the look."""
    voids: frozenset[Seat] = frozenset()
    must_hold: frozenset[Seat] = frozenset()
    team_need: tuple[int, ...] = ()
    team_out: bool = False
    held_points: tuple[int, int] = (0, 0)
    no_low_joker_in_hand: frozenset[Seat] = frozenset()
    my_options: tuple[tuple[dict[int, Card], CardMask], ...] = ()
    """Legal joker codes of the seat's own give-ups, with its hand before the look."""
    my_fallback: tuple[dict[int, Card], CardMask] = field(default_factory=lambda: ({}, 0))
    layouts: dict = field(default_factory=dict)
    """Memo of ``_Layout`` per (own joker-code choice, strictness)."""


# --- facts ------------------------------------------------------------------------------


@lru_cache(maxsize=16)
def _cached_facts(view: PlayerView) -> _Facts:
    """``_facts_of``, kept for the last few views: a search bot samples one view often."""
    return _facts_of(view)


def _facts_of(view: PlayerView) -> _Facts:
    """Digest the view: the stage of the hand and every inference the samplers use."""
    me = view.seat
    finished = view.last_hand is not None and view.last_hand.number == view.hand_number
    facts = _Facts(
        view=view,
        stage=_stage_of(view),
        me=me,
        hidden=tuple(seat for seat in SEATS if seat != me),
        dealer=view.last_hand.dealer if view.last_hand and finished else view.dealer,
        finished=finished,
        trumps=TRUMPS[view.trump] if view.trump >= 0 else 0,
        played=_played_by_seat(view),
        kept=tuple(
            CARDS_DEALT - view.discarded[seat].bit_count() - view.discarded_down[seat].bit_count()
            for seat in SEATS
        ),
    )
    facts.no_low_joker_in_kept = frozenset(
        seat
        for seat in facts.hidden
        if view.discarded_down[seat] & JOKERS_MASK == 1 << SECOND_JOKER
    )
    if facts.stage is _Stage.AFTER_FILL:
        _add_after_fill_facts(facts)
    return facts


def _stage_of(view: PlayerView) -> _Stage:
    if view.hand_number == 0:
        return _Stage.UNDEALT
    if view.trump < 0:
        return _Stage.BIDDING
    if view.stock_size:
        return _Stage.BEFORE_FILL
    return _Stage.AFTER_FILL


def _played_by_seat(view: PlayerView) -> tuple[CardMask, ...]:
    played = [0, 0, 0, 0]
    for trick in view.tricks:
        for seat, card in trick.plays:
            played[seat] |= 1 << card
    for seat, card in view.trick:
        played[seat] |= 1 << card
    return tuple(played)


def _add_after_fill_facts(facts: _Facts) -> None:
    view = facts.view
    facts.pile_size = STOCK_CARDS - sum(view.fill_sizes)
    facts.entries, facts.pile_start = _look_entries(view, facts.pile_size)
    if facts.pile_start + view.look_remaining != facts.pile_size:
        raise ValueError("the view is not consistent with the rules: the look does not add up")
    lookers = {entry.seat for entry in facts.entries}
    if view.look_remaining:
        lookers.add(_current_looker(view))
    facts.lookers = frozenset(lookers)
    facts.takes = tuple(
        sum(1 for e in facts.entries if e.seat == seat and e.move is TAKE) for seat in SEATS
    )
    _add_play_facts(facts)
    facts.no_low_joker_in_hand = frozenset(
        seat for seat in facts.hidden if _first_joker_played(view, seat) == SECOND_JOKER
    )
    facts.my_options, facts.my_fallback = _my_look_options(facts)


def _look_entries(view: PlayerView, pile_size: int) -> tuple[tuple[_Entry, ...], int]:
    """Number the look events with the pile position of the card each one turned.

    A bidder's stop hands the same card to the partner, so it does not advance; a
    partner's stop ends the pile. Returns the entries and the position of the card now
    on top of the remaining pile.
    """
    pos, entries = 0, []
    for index, event in enumerate(view.look):
        entries.append(_Entry(index, event.seat, event.move, event.card, event.give_up, pos))
        if event.move is not STOP_MOVE:
            pos += 1
        elif event.seat != view.bidder:
            pos = pile_size
    return tuple(entries), pos


def _current_looker(view: PlayerView) -> Seat:
    """The seat holding the pile: the partner once the bidder has stopped."""
    stopped = any(e.seat == view.bidder and e.move is STOP_MOVE for e in view.look)
    return partner(view.bidder) if stopped else view.bidder


def _first_joker_played(view: PlayerView, seat: Seat) -> Card | None:
    plays = [card for trick in view.tricks for who, card in trick.plays if who == seat]
    plays += [card for who, card in view.trick if who == seat]
    return next((card for card in plays if card >= JOKER), None)


def _add_play_facts(facts: _Facts) -> None:
    """What the tricks say about who holds trumps now (see the module docstring)."""
    view = facts.view
    active = not facts.finished and view.leader >= 0
    leaders = [trick.leader for trick in view.tricks] + ([view.leader] if active else [])
    voids: set[Seat] = set()
    if leaders and leaders[0] != view.bidder:
        voids.add(view.bidder)  # the partner leads only when the bidder holds no trump
    for i, trick in enumerate(view.tricks):
        in_trick = {seat for seat, _ in trick.plays}
        voids.update(seat for seat in SEATS if seat not in in_trick)
        if i + 1 < len(leaders) and leaders[i + 1] != trick.winner:
            voids.add(trick.winner)
    must_hold: set[Seat] = set()
    team_need: tuple[int, ...] = ()
    if active:
        order = seats_from(view.leader)
        in_trick = [seat for seat, _ in view.trick]
        mover = _mover(view)
        if mover >= 0 and mover not in in_trick:
            frontier = order.index(mover)
            must_hold.add(mover)
        else:  # only the seats passed over are known
            frontier = order.index(in_trick[-1]) + 1 if in_trick else 0
        voids.update(seat for seat in order[:frontier] if seat not in in_trick)
        if not in_trick:
            must_hold.add(view.leader)
        team_need = tuple(t for t in (0, 1) if all(team_of(seat) != t for seat in in_trick))
    facts.voids = frozenset(voids)
    facts.must_hold = frozenset(must_hold)
    facts.team_need = team_need
    facts.team_out = facts.finished
    if facts.finished:
        facts.held_points = _held_points(view)


def _mover(view: PlayerView) -> Seat:
    """The seat to move; after a forfeit, the forfeiting seat (-1 if none).

    The referee forfeits a seat when its own decision faults (or before the first deal),
    so in the middle of a hand the forfeiting seat is the one that was to move.
    """
    if view.to_move >= 0:
        return view.to_move
    if view.outcome is not None and view.outcome.forfeited_by is not None:
        return view.outcome.forfeited_by
    return -1


def _held_points(view: PlayerView) -> tuple[int, int]:
    """Points each team scored for trumps still held when the hand ended."""
    points, deuce = POINTS[view.trump], DEUCE[view.trump]
    won = [0, 0]
    for trick in view.tricks:
        for seat, card in trick.plays:
            if points[card]:
                won[team_of(seat if card == deuce else trick.winner)] += points[card]
    return view.taken[0] - won[0], view.taken[1] - won[1]


# --- the viewer's own look -------------------------------------------------------------


_MyLook = tuple[dict[int, Card], CardMask]
"""The joker codes of the seat's own ``JK`` give-ups (entry index -> code), and its hand
before the look."""


def _my_look_options(facts: _Facts) -> tuple[tuple[_MyLook, ...], _MyLook]:
    """The joker codes the seat's own ``take`` give-ups can have, with its hand before.

    Give-ups are recorded as ``JK`` for either joker, and which one left play is hidden
    even from the seat; any choice that keeps its history legal will do. Returns the
    legal choices and a best-effort one for the fallback.
    """
    view, me = facts.view, facts.me
    mine = [e for e in facts.entries if e.seat == me]
    joker_takes = [e for e in mine if e.move is TAKE and (e.give_up or 0) >= JOKER]
    taken = mask_of(e.card for e in mine if e.move is TAKE)  # type: ignore[misc]
    lost = JOKERS_MASK & (view.fill | view.picked[me] | taken) & ~(view.hand | facts.played[me])
    allowed = JOKERS_MASK & ~(_visible_cards(facts) & ~lost)
    options: list[_MyLook] = []
    fallback: _MyLook | None = None
    for codes in permutations((JOKER, SECOND_JOKER), len(joker_takes)):
        chosen = mask_of(codes)
        assignment = {e.index: code for e, code in zip(joker_takes, codes, strict=True)}
        before, legal = _undo_my_takes(facts, assignment)
        if lost & ~chosen or chosen & ~allowed:
            continue  # a joker seen elsewhere, or one of its own not accounted for
        fallback = fallback or (assignment, before)
        if legal:
            options.append((assignment, before))
    if fallback is None:
        assignment = {e.index: JOKER for e in joker_takes}
        fallback = (assignment, _undo_my_takes(facts, assignment)[0])
    return tuple(options), fallback


def _visible_cards(facts: _Facts) -> CardMask:
    """Every card whose code the seat has seen (its own give-ups are written as JK)."""
    view = facts.view
    seen = view.centre | view.hand | view.fill
    for seat in SEATS:
        seen |= view.discarded[seat] | view.discarded_down[seat] | view.picked[seat]
        seen |= facts.played[seat]
    seen |= mask_of(e.card for e in facts.entries if e.seat == facts.me)  # type: ignore[misc]
    if view.look_card is not None:
        seen |= 1 << view.look_card
    return seen


def _undo_my_takes(facts: _Facts, codes: dict[int, Card]) -> tuple[CardMask, bool]:
    """The seat's hand before its look, undoing its takes (``codes`` names joker give-ups).

    Also says whether that history is legal for the engine: each turned card was taken,
    each give-up was held (a lone ``JK`` gives the first joker), and the hand before the
    look splits into picked cards, fill and kept trumps.
    """
    view, me = facts.view, facts.me
    hand = view.hand | facts.played[me]
    legal = True
    for entry in reversed(facts.entries):
        if entry.seat != me or entry.move is not TAKE:
            continue
        card, give_up = entry.card, codes.get(entry.index, entry.give_up)
        after = hand & ~(1 << card)  # type: ignore[operator]
        if not hand >> card & 1 or after >> give_up & 1:  # type: ignore[operator]
            legal = False
        if give_up == SECOND_JOKER and after & LOW_JOKER_BIT:
            legal = False
        hand = after | 1 << give_up  # type: ignore[operator]
    kept = hand & ~view.picked[me] & ~view.fill
    if (view.picked[me] | view.fill) & ~hand or kept & ~facts.trumps:
        legal = False
    return hand, legal and kept.bit_count() == facts.kept[me]


# --- sampling ---------------------------------------------------------------------------


def _sample_world(facts: _Facts, rng: random.Random, *, strict: bool) -> _World | None:
    """One try: a world, or ``None`` when a strict constraint failed (try again)."""
    if facts.stage is _Stage.UNDEALT:
        return _World(hands=[0, 0, 0, 0])
    if facts.stage is _Stage.BIDDING:
        return _sample_bidding(facts, rng)
    if facts.stage is _Stage.BEFORE_FILL:
        return _sample_before_fill(facts, rng, strict=strict)
    return _AfterFill(facts, rng, strict).sample()


def _mixed(cards: list[Card], rng: random.Random) -> list[Card]:
    """``cards`` in random order (sorting on random keys costs less than ``shuffle``)."""
    draw = rng.random
    return sorted(cards, key=lambda _: draw())


def _shuffled(mask: CardMask, rng: random.Random) -> list[Card]:
    """The cards of ``mask`` in random order."""
    draw = rng.random
    return sorted(_cards(mask), key=lambda _: draw())


def _sample_bidding(facts: _Facts, rng: random.Random) -> _World:
    """Before trumps nothing is known but the seat's own nine cards."""
    view = facts.view
    pool = _shuffled(ALL_MASK & ~view.hand, rng)
    hands = [0, 0, 0, 0]
    hands[facts.me] = view.hand
    for seat in facts.hidden:
        size = view.hand_sizes[seat]
        hands[seat], pool = _mask(pool[:size]), pool[size:]
    stock = tuple(pool)
    return _World(hands=hands, stock=stock, deck=_deck_order(facts.dealer, hands, stock))


def _sample_before_fill(facts: _Facts, rng: random.Random, *, strict: bool) -> _World | None:
    """After trumps and before the fill every hand holds only trumps; the stock the rest."""
    view = facts.view
    picked = 0
    for seat in SEATS:
        picked |= view.picked[seat]
    pool = ALL_MASK & ~(view.centre | picked | view.hand)
    trumps = _shuffled(pool & facts.trumps, rng)
    hands = [0, 0, 0, 0]
    hands[facts.me] = view.hand
    for seat in facts.hidden:
        need = view.hand_sizes[seat] - view.picked[seat].bit_count()
        hands[seat] = view.picked[seat] | _mask(trumps[:need])
        trumps = trumps[need:]
        if strict and seat in facts.no_low_joker_in_kept and hands[seat] & LOW_JOKER_BIT:
            return None
    stock = (pool & ~facts.trumps) | _mask(trumps)
    stock_order = tuple(_shuffled(stock, rng))
    dealt = [
        view.discarded[seat] | view.discarded_down[seat] | (hands[seat] & ~view.picked[seat])
        for seat in SEATS
    ]
    return _World(
        hands=hands, stock=stock_order, deck=_deck_order(facts.dealer, dealt, stock_order)
    )


def _deck_order(
    dealer: Seat, dealt: list[CardMask], stock: tuple[Card, ...] | list[Card]
) -> tuple[Card, ...]:
    """A deck order that deals ``dealt`` (nine cards a seat) and then ``stock``.

    Each seat's nine cards are placed in code order: which of its positions a card had
    changes nothing in the hand. Returns ``()`` when the parts do not make a deck (only
    in the fallback).
    """
    order: list[Card] = [0] * DECK_SIZE
    for k, seat in enumerate(seats_from(left_of(dealer))):
        cards = _cards(dealt[seat])
        if len(cards) != CARDS_DEALT:
            return ()
        for i, card in enumerate(cards):
            order[(i // 3) * 12 + k * 3 + i % 3] = card
    order[4 * CARDS_DEALT :] = stock
    if len(order) != DECK_SIZE or len(set(order)) != DECK_SIZE:
        return ()
    return tuple(order)


class _Spec(NamedTuple):
    """How many unseen cards of each kind may go where (hashable, for the cache)."""

    seats: tuple[Seat, ...]
    """The hidden seats."""
    rooms: tuple[int, ...]
    """Free places in each hidden hand (after the pinned cards)."""
    lows: tuple[int, ...]
    """Least non-trumps in each hidden hand (all of them for a void seat)."""
    highs: tuple[int, ...]
    """Most non-trumps in each hidden hand (a seat's non-trumps are fill cards)."""
    pinned: tuple[int, ...]
    """Trumps already pinned in each hidden hand."""
    pinned_points: tuple[int, int]
    """Points of the trumps each team holds for sure (pinned or the viewer's own)."""
    non_trumps: int
    classes: tuple[int, int, int]
    """Unseen trumps worth 0, 1 and 3 points."""
    base: tuple[int, int, int, int]
    """Trump counts known per seat (the viewer's own)."""
    rules: tuple[frozenset[Seat], frozenset[Seat], tuple[int, ...], bool]
    """Voids, seats that must hold a trump, teams that must, and whether a team is out."""
    gone: int
    """Free face-down places."""
    gives: tuple[tuple[int, int], ...]
    """Per hidden seat: its hidden give-ups not covered by reserved cards, its fill size."""
    points: tuple[int, int] | None
    """At a hand's end: the points of the trumps each team still holds."""


@lru_cache(maxsize=4096)
def _count_table(spec: _Spec) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    """Every allowed count of non-trumps per hidden hand, with its exact weight.

    A count's weight is the number of card placements it allows under every count
    constraint (a product of binomials), so drawing counts by weight and then cards
    uniformly within each kind is uniform over all placements that meet them. Cached:
    a search bot determinizes the same view many times.
    """
    splits, cumulative, total = [], [], 0
    ranges = (range(lo, hi + 1) for lo, hi in zip(spec.lows, spec.highs, strict=True))
    for split in product(*ranges):
        ways = _split_weight(spec, split)
        if ways:
            total += ways
            splits.append(split)
            cumulative.append(total)
    return tuple(splits), tuple(cumulative)


def _split_weight(spec: _Spec, split: tuple[int, ...]) -> int:
    trumps = [room - non for room, non in zip(spec.rooms, split, strict=True)]
    counts = list(spec.base)
    for seat, pins, count in zip(spec.seats, spec.pinned, trumps, strict=True):
        counts[seat] = pins + count
    if min(trumps) < 0 or not _trump_counts_ok(counts, *spec.rules):
        return 0
    non_ways = _multinomial(spec.non_trumps, split)
    trump_ways = sum(weight for _, weight in _trump_draws(spec, tuple(trumps)))
    if not non_ways or not trump_ways:
        return 0
    rest_non = spec.non_trumps - sum(split)
    rest_trumps = sum(spec.classes) - sum(trumps)
    gone_ways = sum(w for _, w in _gone_draws(spec, split, rest_non, rest_trumps))
    return non_ways * trump_ways * gone_ways


def _multinomial(total: int, parts: Iterable[int]) -> int:
    """Ways to deal ``parts`` cards from ``total`` distinct ones (0 if there are too few)."""
    ways = 1
    for part in parts:
        if part > total:
            return 0
        ways *= comb(total, part)
        total -= part
    return ways


def _trump_draws(spec: _Spec, trumps: tuple[int, ...]) -> list[tuple[tuple, int]]:
    """How the hidden hands' trumps can be drawn, with weights.

    Without a points rule every draw of ``trumps`` cards per hand is alike: one entry.
    At a hand's end each team's trumps must hold given points, so the draw is split by
    how many 0-, 1- and 3-point trumps each team gets.
    """
    if spec.points is None:
        return [((), _multinomial(sum(spec.classes), trumps))]
    per_team = [0, 0]
    spread = 1
    for team in (0, 1):
        counts = [n for seat, n in zip(spec.seats, trumps, strict=True) if seat % 2 == team]
        per_team[team] = sum(counts)
        spread *= _multinomial(per_team[team], counts)
    needed = [spec.points[t] - spec.pinned_points[t] for t in (0, 1)]
    draws = []
    for first in _compositions(per_team[0], needed[0], spec.classes):
        left = tuple(c - f for c, f in zip(spec.classes, first, strict=True))
        for second in _compositions(per_team[1], needed[1], left):
            weight = spread * _class_ways(spec.classes, first) * _class_ways(left, second)
            draws.append(((first, second), weight))
    return draws


def _compositions(
    count: int, points: int, classes: tuple[int, ...]
) -> Iterator[tuple[int, int, int]]:
    """(zeros, ones, threes) adding up to ``count`` cards and ``points`` points."""
    for threes in range(min(classes[2], max(points, -1) // 3) + 1):
        ones = points - 3 * threes
        zeros = count - ones - threes
        if 0 <= ones <= classes[1] and 0 <= zeros <= classes[0]:
            yield zeros, ones, threes


def _class_ways(classes: tuple[int, ...], taken: tuple[int, ...]) -> int:
    ways = 1
    for have, take in zip(classes, taken, strict=True):
        ways *= comb(have, take)
    return ways


def _gone_draws(
    spec: _Spec, split: tuple[int, ...], rest_non: int, rest_trumps: int
) -> list[tuple[int, int]]:
    """How many trumps can go face down, with weights.

    A looker whose non-trumps already fill its fill size can only have given up trumps,
    so the face-down cards hold at least that many.
    """
    need = 0
    for (gives, fill), non in zip(spec.gives, split, strict=True):
        need += max(0, gives - (fill - non))
    low, high = max(need, spec.gone - rest_non, 0), min(rest_trumps, spec.gone)
    return [
        (count, comb(rest_trumps, count) * comb(rest_non, spec.gone - count))
        for count in range(low, high + 1)
    ]


def _trump_counts_ok(
    counts: list[int],
    voids: frozenset[Seat],
    must_hold: frozenset[Seat],
    team_need: tuple[int, ...],
    team_out: bool,
) -> bool:
    """Whether trump counts per seat fit what the tricks and the hand's end showed."""
    if any(counts[seat] for seat in voids) or not all(counts[seat] for seat in must_hold):
        return False
    if any(not (counts[team] or counts[team + 2]) for team in team_need):
        return False
    return not (team_out and (counts[0] or counts[2]) and (counts[1] or counts[3]))


def _weighted(rng: random.Random, draws: list[tuple[object, int]]) -> object:
    total = sum(weight for _, weight in draws)
    pick = rng.randrange(total)
    for value, weight in draws:
        pick -= weight
        if pick < 0:
            return value
    raise AssertionError("unreachable")  # pragma: no cover


@dataclass(frozen=True, slots=True)
class _Layout:
    """Where the known cards are and how much room is left around them.

    It depends only on the view and on the codes chosen for the seat's own joker
    give-ups, so it is worked out once and reused by every try.
    """

    gone: CardMask
    """Face-down cards the seat knows."""
    pile: tuple[tuple[int, Card], ...]
    """Known cards of the looked-through pile, by position."""
    pinned: tuple[CardMask, ...]
    """Known cards in each hidden hand."""
    reserved: tuple[tuple[tuple[Card, int], ...], ...]
    """Per seat: known cards it must have given up in a take after entry ``since``."""
    pool: CardMask
    """The unseen cards."""
    rooms: tuple[int, ...]
    """Free places in each hidden hand."""
    pile_free: tuple[int, ...]
    """Positions of the remaining pile whose card is unknown."""
    gone_free: int
    """Face-down cards that are unknown."""
    spec: _Spec | None
    """The counting problem (strict tries only)."""


class _AfterFill:
    """One try at the look, the play or a finished hand: current places, then history."""

    def __init__(self, facts: _Facts, rng: random.Random, strict: bool) -> None:
        self.facts, self.view, self.rng, self.strict = facts, facts.view, rng, strict
        self.me = facts.me
        if facts.my_options:
            option = rng.randrange(len(facts.my_options))
            self.my_codes, self.my_before = facts.my_options[option]
        elif strict:
            raise _Infeasible
        else:
            option = -1
            self.my_codes, self.my_before = facts.my_fallback
        self.gone_known = 0
        self.pile: dict[int, Card] = {}
        self.pinned = [0, 0, 0, 0]
        self.reserved: list[list[tuple[Card, int]]] = [[], [], [], []]
        """Per seat: known cards it must have given up in a take after entry ``since``."""
        self.hands = [0, 0, 0, 0]
        self.gone_pool: list[Card] = []
        self.before: dict[Seat, CardMask] = {}
        """Each seat's hand as the look is undone, last turn first."""
        self.takes_left = [0, 0, 0, 0]
        """Hidden takes per seat not undone yet."""
        self.gone_all = 0
        """Every face-down card: known ones, reserved give-ups and the sampled rest."""
        layout = facts.layouts.get((option, strict))
        if layout is None:
            layout = facts.layouts[option, strict] = self._lay_out()
        self.layout = layout
        self.gone_known = layout.gone
        self.pile = dict(layout.pile)
        self.pinned = list(layout.pinned)
        self.reserved = [list(cards) for cards in layout.reserved]

    def sample(self) -> _World | None:
        if not self._place_unknown():
            return None
        history = self._undo_look()
        if history is None:
            return None
        before, log = history
        split = self._split_fills(before)
        if split is None or not self._points_fit():
            return None
        kept, fill = split
        return self._world(kept, fill, log)

    # - what the seat knows -

    def _lay_out(self) -> _Layout:
        """Place the known cards and measure the room left for the unseen ones."""
        facts, view = self.facts, self.view
        self._place_known()
        located = view.centre | view.hand | self.gone_known | mask_of(self.pile.values())
        for seat in SEATS:
            located |= facts.played[seat] | self.pinned[seat]
            located |= mask_of(card for card, _ in self.reserved[seat])
        pool = ALL_MASK & ~located
        rooms = [view.hand_sizes[seat] - self.pinned[seat].bit_count() for seat in facts.hidden]
        pile_free = [p for p in range(facts.pile_start, facts.pile_size) if p not in self.pile]
        gone_free = pool.bit_count() - sum(rooms) - len(pile_free)
        if min(rooms, default=0) < 0 or gone_free < 0:
            raise ValueError("the view is not consistent with the rules: cards do not add up")
        if self.strict and self._gone_size_wrong(gone_free):
            raise _Infeasible
        return _Layout(
            gone=self.gone_known,
            pile=tuple(self.pile.items()),
            pinned=tuple(self.pinned),
            reserved=tuple(tuple(cards) for cards in self.reserved),
            pool=pool,
            rooms=tuple(rooms),
            pile_free=tuple(pile_free),
            gone_free=gone_free,
            spec=self._spec(pool, rooms, gone_free) if self.strict else None,
        )

    def _place_known(self) -> None:
        """Pin every card whose place the seat knows or the public history implies."""
        facts, view, me = self.facts, self.view, self.me
        for entry in facts.entries:
            if entry.seat != me:
                continue
            self.pile[entry.pos] = entry.card  # type: ignore[assignment]
            if entry.move is LEAVE_MOVE:
                self.gone_known |= 1 << entry.card  # type: ignore[operator]
            elif entry.move is TAKE:
                self.gone_known |= 1 << self.my_codes.get(entry.index, entry.give_up)  # type: ignore[operator]
            elif me != view.bidder:
                self.gone_known |= 1 << entry.card  # type: ignore[operator]
        if view.look_card is not None:
            self.pile[facts.pile_start] = view.look_card
        for seat in facts.hidden:
            self.pinned[seat] = view.picked[seat] & ~facts.played[seat]
            if seat in facts.voids and self.pinned[seat]:
                if seat in facts.lookers:  # a void looker must have given them up
                    self.reserved[seat] = [(card, -1) for card in _cards(self.pinned[seat])]
                    self.pinned[seat] = 0
                elif self.strict:
                    raise _Infeasible
        if me == view.bidder:
            self._place_my_stop_card()

    def _place_my_stop_card(self) -> None:
        """The bidder's stop card is the first card its partner turned."""
        facts, me = self.facts, self.me
        stop = next((e for e in facts.entries if e.seat == me and e.move is STOP_MOVE), None)
        if stop is None:
            return
        mate = partner(me)
        first = next((e for e in facts.entries if e.seat == mate), None)
        card = stop.card
        if first is None:  # the partner is looking at it now: it is on the pile
            return
        if first.move is not TAKE:
            self.gone_known |= 1 << card  # type: ignore[operator]
        elif not self.facts.played[mate] >> card & 1:  # type: ignore[operator]
            if mate in facts.voids:
                self.reserved[mate].append((card, first.index))  # type: ignore[arg-type]
            else:
                self.pinned[mate] |= 1 << card  # type: ignore[operator]

    # - the current places -

    def _place_unknown(self) -> bool:
        """Deal the unseen cards to the hidden hands, the rest of the pile and gone."""
        facts, layout = self.facts, self.layout
        self.hands[self.me] = self.view.hand
        if self.strict:
            gone, pile = self._deal_by_kind(layout)
        else:  # fallback: sizes only
            gone, pile = self._deal_any(layout)
        for position, card in zip(layout.pile_free, pile, strict=True):
            self.pile[position] = card
        self.gone_pool = gone
        self.gone_all = self.gone_known | _mask(gone)
        for seat in SEATS:
            self.gone_all |= _mask(card for card, _ in self.reserved[seat])
        if self.strict:
            return not any(self.hands[seat] & LOW_JOKER_BIT for seat in facts.no_low_joker_in_hand)
        return True

    def _deal_any(self, layout: _Layout) -> tuple[list[Card], list[Card]]:
        cards = _shuffled(layout.pool, self.rng)
        for seat, room in zip(self.facts.hidden, layout.rooms, strict=True):
            self.hands[seat] = self.pinned[seat] | _mask(cards[:room])
            cards = cards[room:]
        return cards[: layout.gone_free], cards[layout.gone_free :]

    def _deal_by_kind(self, layout: _Layout) -> tuple[list[Card], list[Card]]:
        """Draw the counts by weight (``_count_table``), then the cards of each kind."""
        facts, rng, spec = self.facts, self.rng, layout.spec
        pool, rooms, gone_free = layout.pool, layout.rooms, layout.gone_free
        assert spec is not None
        splits, cumulative = _count_table(spec)
        if not splits:
            raise _Infeasible
        split = rng.choices(splits, cum_weights=cumulative)[0]
        trump_counts = tuple(room - non for room, non in zip(rooms, split, strict=True))
        non_trumps = _shuffled(pool & ~facts.trumps, rng)
        draw = _weighted(rng, _trump_draws(spec, trump_counts))
        team_cards: list[list[Card]] = [[], []]
        if draw:  # the points rule: each team's trumps drawn by point class
            classes = [_shuffled(pool & mask, rng) for mask in POINT_CLASSES[self.view.trump]]
            for team, taken in enumerate(draw):  # type: ignore[arg-type]
                for kind, count in enumerate(taken):
                    team_cards[team] += classes[kind][:count]
                    del classes[kind][:count]
                team_cards[team] = _mixed(team_cards[team], rng)
            trumps = _mixed(classes[0] + classes[1] + classes[2], rng)
        else:
            trumps = _shuffled(pool & facts.trumps, rng)
        for seat, non, count in zip(facts.hidden, split, trump_counts, strict=True):
            source = team_cards[seat % 2] if draw else trumps
            cards = non_trumps[:non] + source[:count]
            del non_trumps[:non], source[:count]
            self.hands[seat] = self.pinned[seat] | _mask(cards)
        rest_non = len(non_trumps)
        gone_trumps = _weighted(rng, _gone_draws(spec, split, rest_non, len(trumps)))  # type: ignore[arg-type]
        gone = trumps[:gone_trumps] + non_trumps[: gone_free - gone_trumps]  # type: ignore[operator]
        pile = trumps[gone_trumps:] + non_trumps[gone_free - gone_trumps :]  # type: ignore[operator]
        return _mixed(gone, rng), _mixed(pile, rng)

    def _spec(self, pool: CardMask, rooms: list[int], gone_free: int) -> _Spec:
        """The counting problem for ``_count_table``."""
        facts, view = self.facts, self.view
        lows, highs, gives = [], [], []
        for seat, room in zip(facts.hidden, rooms, strict=True):
            high = min(room, view.fill_sizes[seat])
            lows.append(high if seat in facts.voids else 0)
            highs.append(high)
            gives.append((facts.takes[seat] - len(self.reserved[seat]), view.fill_sizes[seat]))
        base = [0, 0, 0, 0]
        base[self.me] = (view.hand & facts.trumps).bit_count()
        sure = [0, 0]
        for seat in SEATS:
            held = view.hand if seat == self.me else self.pinned[seat]
            sure[seat % 2] += mask_points(held & facts.trumps, view.trump)
        return _Spec(
            seats=facts.hidden,
            rooms=tuple(rooms),
            lows=tuple(lows),
            highs=tuple(highs),
            pinned=tuple(self.pinned[seat].bit_count() for seat in facts.hidden),
            pinned_points=(sure[0], sure[1]),
            non_trumps=(pool & ~facts.trumps).bit_count(),
            classes=tuple((pool & mask).bit_count() for mask in POINT_CLASSES[self.view.trump]),  # type: ignore[arg-type]
            base=(base[0], base[1], base[2], base[3]),
            rules=(facts.voids, facts.must_hold, facts.team_need, facts.team_out),
            gone=gone_free,
            gives=tuple(gives),
            points=facts.held_points if facts.finished else None,
        )

    def _gone_size_wrong(self, gone_free: int) -> bool:
        """Cross-check the face-down count against the look events that made it."""
        facts = self.facts
        expected = 0
        for entry in facts.entries:
            if entry.move is not STOP_MOVE:
                expected += 1
            elif entry.seat != self.view.bidder:
                expected += facts.pile_size - entry.pos
        reserved = sum(len(cards) for cards in self.reserved)
        return self.gone_known.bit_count() + reserved + gone_free != expected

    # - the hidden history of the look -

    def _undo_look(self) -> tuple[dict[Seat, CardMask], list[tuple]] | None:
        """Rebuild the other lookers' turns backwards from the hands after the look.

        Returns each seat's hand before the look and the full look log, or ``None``.
        """
        facts, me = self.facts, self.me
        before = self.before = {seat: self.hands[seat] | facts.played[seat] for seat in SEATS}
        before[me] = self.my_before
        self.takes_left = [0 if seat == me else facts.takes[seat] for seat in SEATS]
        known_pile = mask_of(self.pile.values())
        log: list[tuple] = [()] * len(facts.entries)
        for entry in reversed(facts.entries):
            if entry.seat == me:
                log[entry.index] = (me, entry.card, StockChoice(entry.move, entry.give_up))
                if entry.move is STOP_MOVE and not self._undo_leave_or_stop(entry):
                    return None  # the rest of the pile went face down unseen
                continue
            if entry.move is TAKE:
                step = self._undo_take(entry, before, known_pile)
                if step is None:
                    return None
                log[entry.index] = step
            elif not self._undo_leave_or_stop(entry):
                return None
            else:
                choice = StockChoice(entry.move)
                log[entry.index] = (entry.seat, self.pile[entry.pos], choice)
        used_up = not self.gone_pool and not any(self.reserved)
        if len(self.pile) != facts.pile_size or (self.strict and not used_up):
            return None
        return before, log

    def _undo_take(
        self, entry: _Entry, before: dict[Seat, CardMask], known_pile: CardMask
    ) -> tuple | None:
        seat, view = entry.seat, self.view
        hand = before[seat]
        self.takes_left[seat] -= 1
        if entry.pos in self.pile:  # the bidder's own stop card, taken by its partner
            card = self.pile[entry.pos]
            if not hand >> card & 1 and self.strict:
                return None
        else:
            eligible = hand & POINT_CARDS[view.trump] & ~view.picked[seat] & ~known_pile
            if self.strict and not eligible:
                return None
            choices = eligible or (hand & ~view.picked[seat]) or hand
            card = self.rng.choice(_cards(choices))
            self.pile[entry.pos] = card
        after = hand & ~(1 << card)
        give_up = self._give_up(entry, after)
        if give_up is None:
            return None
        before[seat] = after | 1 << give_up
        shown = JOKER if give_up >= JOKER else give_up
        return (seat, card, StockChoice(TAKE, shown))

    def _give_up(self, entry: _Entry, after: CardMask) -> Card | None:
        """The face-down card a take gave up: a reserved card first, else one from gone."""
        seat = entry.seat
        mine = [i for i, (_, since) in enumerate(self.reserved[seat]) if since < entry.index]
        if mine:
            latest = max(mine, key=lambda i: self.reserved[seat][i][1])
            card = self.reserved[seat].pop(latest)[0]
            if self.strict and card == SECOND_JOKER and after & LOW_JOKER_BIT:
                return None  # holding both jokers, a seat gives up the first one
            return card
        trumps = self.facts.trumps
        room = self.view.fill_sizes[seat] - (after & ~trumps).bit_count()
        spare = self._spare_trumps()
        fits = []
        for i, card in enumerate(self.gone_pool):
            if card == SECOND_JOKER and after & LOW_JOKER_BIT:
                continue  # holding both jokers, a seat gives up the first one
            if trumps >> card & 1:
                if spare > 0 or room == 0:  # a trump spent here is missing later
                    fits.append(i)
            elif room > 0 and (spare > 0 or self._short(seat, room) == self._short(seat, room - 1)):
                fits.append(i)  # a non-trump uses up fill room: later takes may need trumps
        if not fits:
            if self.strict:
                return None
            return self._any_gone_card()
        return self.gone_pool.pop(self.rng.choice(fits))

    def _short(self, seat: Seat, room: int) -> int:
        """Trump give-ups ``seat`` still needs, with ``room`` non-trumps left to give up."""
        return max(0, self.takes_left[seat] - len(self.reserved[seat]) - room)

    def _spare_trumps(self) -> int:
        """Face-down trumps not needed by the takes still to undo.

        A looker whose non-trumps already fill its fill size can only have given up
        trumps; drawing the face-down cards without keeping enough trumps for those
        give-ups would fail later for no reason.
        """
        trumps, sizes = self.facts.trumps, self.view.fill_sizes
        need = 0
        for seat in self.facts.hidden:
            if self.takes_left[seat]:
                room = sizes[seat] - (self.before[seat] & ~trumps).bit_count()
                need += self._short(seat, room)
        return sum(1 for card in self.gone_pool if trumps >> card & 1) - need

    def _draw_face_down(self) -> Card | None:
        """A face-down card for a left or stopped pile card, sparing needed trumps.

        The pool is in random order, so its last card (of the kind allowed) is a random one.
        """
        if not self.strict:
            return self._any_gone_card()
        pool = self.gone_pool
        if not any(self.takes_left) or self._spare_trumps() > 0:
            return pool.pop() if pool else None
        trumps = self.facts.trumps
        for i in range(len(pool) - 1, -1, -1):
            if not trumps >> pool[i] & 1:
                return pool.pop(i)
        return None

    def _any_gone_card(self) -> Card | None:
        if self.gone_pool:
            return self.gone_pool.pop()
        for cards in self.reserved:
            if cards:
                return cards.pop()[0]
        return None

    def _undo_leave_or_stop(self, entry: _Entry) -> bool:
        """A left card, or a partner's stop and the rest of the pile, went face down."""
        facts = self.facts
        if entry.move is STOP_MOVE and entry.seat == self.view.bidder:
            return entry.pos in self.pile  # the partner's first card, placed already
        end = entry.pos + 1 if entry.move is LEAVE_MOVE else facts.pile_size
        for position in range(entry.pos, end):
            if position not in self.pile:
                card = self._draw_face_down()
                if card is None:
                    return False
                self.pile[position] = card
        return True

    # - fills, kept trumps and the deck -

    def _split_fills(
        self, before: dict[Seat, CardMask]
    ) -> tuple[list[CardMask], list[CardMask]] | None:
        """Split each hand before the look into picked cards, fill and kept trumps."""
        facts, view, rng = self.facts, self.view, self.rng
        kept, fill = [0, 0, 0, 0], [0, 0, 0, 0]
        fill[self.me] = view.fill
        kept[self.me] = before[self.me] & ~view.picked[self.me] & ~view.fill
        for seat in facts.hidden:
            rest = before[seat] & ~view.picked[seat]
            size = view.fill_sizes[seat]
            forced = rest & ~facts.trumps  # non-trumps only come from the fill
            if seat in facts.no_low_joker_in_kept:
                forced |= rest & LOW_JOKER_BIT
            if self.strict and (
                view.picked[seat] & ~before[seat]
                or rest.bit_count() != facts.kept[seat] + size
                or forced.bit_count() > size
            ):
                return None
            first = _shuffled(forced, rng)[:size] if forced.bit_count() > size else _cards(forced)
            others = (
                _shuffled(rest & ~forced, rng)[: size - len(first)] if size > len(first) else []
            )
            fill[seat] = _mask(first + others)
            kept[seat] = rest & ~fill[seat]
        return kept, fill

    def _points_fit(self) -> bool:
        """At a hand's end the trumps left in hands are worth what the team-out rule scored."""
        facts = self.facts
        if not (self.strict and facts.finished):
            return True
        for team in (0, 1):
            held = (self.hands[team] | self.hands[team + 2]) & facts.trumps
            if mask_points(held, self.view.trump) != facts.held_points[team]:
                return False
        return True

    def _world(self, kept: list[CardMask], fill: list[CardMask], log: list[tuple]) -> _World:
        facts, view = self.facts, self.view
        stock: list[Card] = []
        for seat in seats_from(left_of(facts.dealer)):
            stock += _cards(fill[seat])  # the order within one seat's fill changes nothing
        stock += [self.pile[position] for position in range(facts.pile_size)]
        dealt = [view.discarded[seat] | view.discarded_down[seat] | kept[seat] for seat in SEATS]
        return _World(
            hands=self.hands,
            look_cards=tuple(
                self.pile[position] for position in range(facts.pile_start, facts.pile_size)
            ),
            gone=self.gone_all,
            fill=(fill[0], fill[1], fill[2], fill[3]),
            look_log=tuple(log),
            deck=_deck_order(facts.dealer, dealt, stock),
        )


# --- assembling the state ----------------------------------------------------------------


def _assemble(facts: _Facts, world: _World) -> GameState:
    """Copy the public slots from the view and the hidden ones from the world."""
    view = facts.view
    state = GameState(view.options, first_dealer=view.dealer)
    state.hand_number = view.hand_number
    state.scores = view.scores
    state.hand_results = (view.last_hand,) if view.last_hand else ()  # history is not needed
    state.outcome = view.outcome
    state.phase = view.phase
    state.to_move = view.to_move
    state.deck = world.deck
    state.hands = list(world.hands)
    state.stock = world.stock
    state.bids = view.bids
    state.bid = view.bid
    state.bidder = view.bidder
    state.trump = view.trump
    state.discarded = view.discarded
    state.discarded_down = view.discarded_down
    state.picked = view.picked
    state.centre = view.centre
    state.fill = world.fill
    state.gone = world.gone
    state.queue = _queue(facts, state.hands)
    state.looker = _current_looker(view) if view.look_remaining else -1
    state.look_cards = world.look_cards
    state.look_log = world.look_log
    state.leader = view.leader
    state.trick = view.trick
    state.trick_best = _trick_best(view)
    state.tricks = view.tricks
    state.jokers_played = view.jokers_played
    state.taken = view.taken
    state.dead = view.last_hand.dead if view.last_hand and facts.finished else 0
    return state


def _queue(facts: _Facts, hands: list[CardMask]) -> tuple[Seat, ...]:
    """The seats still to act in this round, as the engine keeps them.

    Worked out from the stage of the hand rather than the phase, so a game forfeited
    mid-round keeps the queue it had (the forfeiting seat is taken to be the one that
    was to move, as when the referee forfeits a faulty bot).
    """
    view = facts.view
    if facts.finished or facts.stage in (_Stage.UNDEALT, _Stage.BIDDING):
        return ()
    mover = _mover(view)
    if facts.stage is _Stage.BEFORE_FILL:
        order = seats_from(left_of(view.dealer))
        discarding = tuple(seat for seat in order if hands[seat].bit_count() > HAND_SIZE)
        if discarding or mover < 0:
            return discarding
        return order[order.index(mover) :]  # picking up
    if view.leader < 0:
        return ()  # the look
    trumps = TRUMPS[view.trump]
    in_trick = {seat for seat, _ in view.trick}
    return tuple(
        seat for seat in seats_from(view.leader) if seat not in in_trick and hands[seat] & trumps
    )


def _trick_best(view: PlayerView) -> tuple[int, int]:
    """(strength, seat) of the best card in the trick so far; jokers rank by play order."""
    best = (-1, -1)
    jokers_before = view.jokers_played - sum(1 for _, card in view.trick if card >= JOKER)
    for seat, card in view.trick:
        if card >= JOKER:
            strength = STRENGTH_LOW_JOKER + 1 - jokers_before
            jokers_before += 1
        else:
            strength = STRENGTH[view.trump][card]
        if strength > best[0]:
            best = (strength, seat)
    return best
