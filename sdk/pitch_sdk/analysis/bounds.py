"""What each team surely takes from the start of a trick: bounds for the solver's search.

Every seat holding a trump plays one to every trick, so the hand lasts exactly as many
tricks as the shorter team's longest hand, and a team that outlasts the other scores the
cards it still holds. A team's cards that rank above every card of the other team (a
floating joker counted low in its own hands and high in the other's) are its *winners*:
a trick with one of them in it is the team's, whoever leads. So the team can play a
winner in each of its first few tricks and take, besides the winners' own points:

- every card the other team must play to those tricks, where the other team gives its
  cheapest cards;
- the cards its own seats drop into them (the seat not playing the winner gives its most
  valuable other card), and the cards a seat that outlasts the other team keeps to the end.

How many tricks in a row the winners take is limited by the hand's length, by the number
of winners, and by the shorter of the team's two hands: once that seat is out of cards only
the other seat's winners are left to take tricks. Any split of the tricks between the two
seats' winners that the hands allow is a way of playing, so the best of them is a sure
amount: a lower bound on the team's points with best play, and the total minus the other
team's sure amount an upper bound.
"""

from __future__ import annotations

from .position import FLOATING, HIGH_JOKER, LOW_JOKER, ONE_POINT, THREE_POINTS, slot_points

_FLOATING_BIT = 1 << FLOATING
_FIXED_SLOTS = _FLOATING_BIT - 1


def trick_start_bounds(hands: list[int]) -> tuple[int, int]:
    """Bounds on team 0's points from the start of a trick, the seats' trumps as slots."""
    team0 = sure_points(hands[0], hands[2], hands[1], hands[3])
    team1 = sure_points(hands[1], hands[3], hands[0], hands[2])
    return team0, sum(map(slot_points, hands)) - team1


def sure_points(one: int, two: int, three: int, four: int) -> int:
    """The points that the team holding ``one`` and ``two`` takes from a trick start
    however ``three`` and ``four`` play."""
    theirs = three | four
    top = HIGH_JOKER if theirs & _FLOATING_BIT else 0
    top = max(top, (theirs & _FIXED_SLOTS).bit_length() - 1)
    above = ~((2 << top) - 1) & _FIXED_SLOTS
    if top < LOW_JOKER:
        above |= _FLOATING_BIT
    winners_one, winners_two = one & above, two & above
    sure = slot_points(winners_one) + slot_points(winners_two)
    held_one, held_two = one.bit_count(), two.bit_count()
    tricks = min(max(held_one, held_two), max(three.bit_count(), four.bit_count()))
    wins_one, wins_two = winners_one.bit_count(), winners_two.bit_count()
    shorter = min(held_one, held_two)
    one_longer = held_one >= held_two
    taken = min(tricks, wins_one + wins_two, shorter + (wins_one if one_longer else wins_two))
    others_one, others_two = one & ~above, two & ~above
    kept_one, kept_two = max(0, held_one - tricks), max(0, held_two - tricks)
    saved = 0
    for by_one in range(max(0, taken - wins_two), min(wins_one, taken) + 1):
        by_two = taken - by_one
        if (by_one if one_longer else by_two) < taken - shorter:
            continue  # the shorter seat runs out before the tricks it would have to take
        dropped_one = min(taken, held_one) - by_one + kept_one
        dropped_two = min(taken, held_two) - by_two + kept_two
        saved = max(saved, _dearest(dropped_one, others_one) + _dearest(dropped_two, others_two))
    given = _cheapest(min(taken, three.bit_count()), three)
    given += _cheapest(min(taken, four.bit_count()), four)
    return sure + saved + given


def _cheapest(count: int, hand: int) -> int:
    """The fewest points that ``count`` cards of ``hand`` can carry."""
    ones = (hand & ONE_POINT).bit_count()
    zeros = hand.bit_count() - ones - (hand & THREE_POINTS).bit_count()
    if count <= zeros:
        return 0
    if count <= zeros + ones:
        return count - zeros
    return ones + 3 * (count - zeros - ones)


def _dearest(count: int, hand: int) -> int:
    """The most points that ``count`` cards of ``hand`` can carry."""
    threes = (hand & THREE_POINTS).bit_count()
    if count <= threes:
        return 3 * count
    return 3 * threes + min(count - threes, (hand & ONE_POINT).bit_count())
