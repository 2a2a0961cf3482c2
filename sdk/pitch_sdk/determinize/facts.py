"""Facts: digest a view into the stage of the hand and every inference the samplers use.

Each fact is one every true state shares (the list is in the package docstring).
"""

from __future__ import annotations

from functools import lru_cache

from ..cards import (
    DECK_SIZE,
    JOKER,
    JOKERS_MASK,
    SEATS,
    SECOND_JOKER,
    TRUMPS,
    Card,
    CardMask,
    Seat,
    partner,
    seats_from,
    team_of,
)
from ..rules import CARDS_DEALT
from ..views import PlayerView
from .bits import STOP_MOVE, TAKE
from .model import _Entry, _Facts, _Stage
from .own_look import _my_look_options

STOCK_CARDS = DECK_SIZE - 4 * CARDS_DEALT
"""The cards of the stock after the deal: 18."""


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
        playing = [seat for seat, _ in view.trick]
        mover = _mover(view)
        if mover >= 0 and mover not in playing:
            frontier = order.index(mover)
            must_hold.add(mover)
        else:  # only the seats passed over are known
            frontier = order.index(playing[-1]) + 1 if playing else 0
        voids.update(seat for seat in order[:frontier] if seat not in playing)
        if not playing:
            must_hold.add(view.leader)
        team_need = tuple(t for t in (0, 1) if all(team_of(seat) != t for seat in playing))
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
    won = [0, 0]
    for trick in view.tricks:
        for team, points in enumerate(trick.points_by_team(view.trump)):
            won[team] += points
    return view.taken[0] - won[0], view.taken[1] - won[1]
