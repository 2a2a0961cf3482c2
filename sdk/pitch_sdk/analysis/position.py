"""A position in the play reduced to what the search needs: trumps as strength slots.

Only the order of the trumps and their points matter to the rest of the play, so each
held trump becomes one bit of an 18-bit mask, whatever the trump suit: bits 0-16 are the
strengths of ``cards.STRENGTH`` (the deuce 0 ... the ace 16, the jokers 11 and 10), and
bit 17 is a *floating* joker, held while neither joker has been played and the two are in
different hands, since which of them is high depends on which falls first. A joker whose
strength is already settled sits in its slot: 10 once one joker has been played, 11 when
it is the only joker left, 11 and 10 when one seat holds both (the seat plays them one
trick apart, so the order it plays them in changes nothing).

The deuce's point goes to the team of the seat holding it however the play goes, so the
slots carry it as 0 points and ``constant_team0`` holds it aside.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..cards import DEUCE, JOKERS_MASK, STRENGTH, TEAM_OF, TRUMPS, CardMask, Seat, cards_in
from ..rules import GameState

FLOATING = 17
"""The slot of a joker whose strength depends on which joker is played first."""
HIGH_JOKER, LOW_JOKER = 11, 10
ONE_POINT: CardMask = sum(1 << slot for slot in (16, 13, 12, HIGH_JOKER, LOW_JOKER, 9, FLOATING))
"""Slots worth one point to the trick's winner: ace, jack, Jick, jokers, ten."""
THREE_POINTS: CardMask = (1 << 2) | (1 << 1)
"""Slots worth three points to the trick's winner: the three and the off three."""


def slot_points(slots: CardMask) -> int:
    """The points the trick winner gets for the cards in ``slots``."""
    return (slots & ONE_POINT).bit_count() + 3 * (slots & THREE_POINTS).bit_count()


@dataclass(frozen=True)
class SlotPosition:
    """A position in the play of a hand, in strength slots.

    Attributes:
        hands: each seat's trumps as slots.
        queue: the seats still to play to the trick in progress, the one to move first.
        best: the strength and seat of the best card in the trick so far; (-1, -1) if none.
        trick_points: the trick winner's points among the cards already in the trick.
        constant_team0: the deuce's point when it is bound for team 0.
    """

    hands: tuple[int, int, int, int]
    queue: tuple[Seat, ...]
    best: tuple[int, Seat]
    trick_points: int
    constant_team0: int


def slot_position(state: GameState) -> SlotPosition:
    """The slot form of ``state``, which must be in the play of a hand."""
    trump = state.trump
    strength = STRENGTH[trump]
    deuce = DEUCE[trump]
    jokers_held = [(hand & JOKERS_MASK).bit_count() for hand in state.hands]
    hands = []
    for seat, hand in enumerate(state.hands):
        slots = 0
        for card in cards_in(hand & TRUMPS[trump] & ~JOKERS_MASK):
            slots |= 1 << strength[card]
        hands.append(slots | _joker_slots(jokers_held, seat, state.jokers_played))
    constant = sum(
        1 for seat, hand in enumerate(state.hands) if hand >> deuce & 1 and not TEAM_OF[seat]
    )
    trick_points = 0
    for seat, card in state.trick:
        if card == deuce:
            constant += TEAM_OF[seat] == 0
        elif card < 52:
            trick_points += slot_points(1 << strength[card])
        else:
            trick_points += 1
    return SlotPosition(
        (hands[0], hands[1], hands[2], hands[3]),
        state.queue,
        state.trick_best,
        trick_points,
        constant,
    )


def _joker_slots(jokers_held: list[int], seat: Seat, jokers_played: int) -> CardMask:
    """The slots of the jokers ``seat`` holds."""
    held = jokers_held[seat]
    if not held:
        return 0
    if jokers_played:
        return 1 << LOW_JOKER
    if held == 2:
        return (1 << HIGH_JOKER) | (1 << LOW_JOKER)
    return 1 << (FLOATING if sum(jokers_held) == 2 else HIGH_JOKER)
