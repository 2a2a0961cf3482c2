"""The viewer's own look: the joker codes of its own give-ups and its hand before the look.

Part of the facts, split out because it is the one fact with choices in it: the seat's
own ``JK`` give-ups hide which joker left play, even from the seat.
"""

from __future__ import annotations

from itertools import permutations

from ..cards import JOKER, JOKERS_MASK, SEATS, SECOND_JOKER, Card, CardMask, mask_of
from .bits import LOW_JOKER_BIT, TAKE
from .model import _Facts

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
