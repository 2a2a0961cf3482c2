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

In the middle of a trick the bounds are plainer: a team's winners (now also above the
trick's best card when the other team holds it) and the trick itself when the team holds
it against every card still to come, or has a card still to come that beats them all.
"""

from __future__ import annotations

from .position import FLOATING, HIGH_JOKER, LOW_JOKER, ONE_POINT, THREE_POINTS

_FLOATING_BIT = 1 << FLOATING
_FIXED_SLOTS = _FLOATING_BIT - 1


def trick_start_bounds(hands: list[int]) -> tuple[int, int]:
    """Bounds on team 0's points from the start of a trick, the seats' trumps as slots."""
    seat0, seat1, seat2, seat3 = hands
    team0 = sure_points(seat0, seat2, seat1, seat3)
    team1 = sure_points(seat1, seat3, seat0, seat2)
    every = seat0 | seat1 | seat2 | seat3
    total = (every & ONE_POINT).bit_count() + 3 * (every & THREE_POINTS).bit_count()
    if every & _FLOATING_BIT:
        total += 1  # both jokers float, in two hands
    return team0, total - team1


def sure_points(one: int, two: int, three: int, four: int) -> int:
    """The points that the team holding ``one`` and ``two`` takes from a trick start
    however ``three`` and ``four`` play.

    Written for speed (the solver asks it twice at every new trick start): comparisons
    instead of ``min`` and ``max`` calls."""
    theirs = three | four
    top = (theirs & _FIXED_SLOTS).bit_length() - 1
    if theirs & _FLOATING_BIT and top < HIGH_JOKER:
        top = HIGH_JOKER
    above = ~((1 << (top + 1)) - 1) & _FIXED_SLOTS
    if top < LOW_JOKER:
        above |= _FLOATING_BIT
    winners_one, winners_two = one & above, two & above
    won = winners_one | winners_two
    sure = (won & ONE_POINT).bit_count() + 3 * (won & THREE_POINTS).bit_count()
    if winners_one & winners_two:  # both floating jokers
        sure += 1
    held_one, held_two = one.bit_count(), two.bit_count()
    held_three, held_four = three.bit_count(), four.bit_count()
    one_longer = held_one >= held_two
    longer, shorter = (held_one, held_two) if one_longer else (held_two, held_one)
    tricks = held_three if held_three >= held_four else held_four
    if longer < tricks:
        tricks = longer
    wins_one, wins_two = winners_one.bit_count(), winners_two.bit_count()
    wins = wins_one + wins_two
    if not wins and longer <= tricks:
        return sure  # no trick is sure and no card outlasts the other team
    taken = shorter + (wins_one if one_longer else wins_two)
    if wins < taken:
        taken = wins
    if tricks < taken:
        taken = tricks
    others_one, others_two = one & ~above, two & ~above
    kept_one = held_one - tricks if held_one > tricks else 0
    kept_two = held_two - tricks if held_two > tricks else 0
    played_one = taken if taken < held_one else held_one
    played_two = taken if taken < held_two else held_two
    saved = 0
    first = taken - wins_two if taken > wins_two else 0
    for by_one in range(first, (wins_one if wins_one < taken else taken) + 1):
        by_two = taken - by_one
        if (by_one if one_longer else by_two) < taken - shorter:
            continue  # the shorter seat runs out before the tricks it would have to take
        dropped = _dearest(played_one - by_one + kept_one, others_one) + _dearest(
            played_two - by_two + kept_two, others_two
        )
        if dropped > saved:
            saved = dropped
    if taken:
        sure += _cheapest(taken if taken < held_three else held_three, three) + _cheapest(
            taken if taken < held_four else held_four, four
        )
    return sure + saved


def mid_trick_bounds(
    hands: list[int], queue: tuple[int, ...], turn: int, best_strength: int, best_seat: int,
    points: int,
) -> tuple[int, int]:  # fmt: skip
    """Bounds on team 0's points from the ``turn``-th card of a trick whose best card so far
    has ``best_strength`` and was played by ``best_seat``, with ``points`` in it.

    Written for speed (the solver asks it at every new position): no allocation but the
    result, and the two floating jokers (one slot, two hands) counted by hand."""
    ours, theirs = hands[0] | hands[2], hands[1] | hands[3]
    every = ours | theirs
    total = points + (every & ONE_POINT).bit_count() + 3 * (every & THREE_POINTS).bit_count()
    if every & _FLOATING_BIT:
        total += 1  # both jokers float, in two hands
    # by team: the best card still to come to the trick, and the same without a
    # floating joker (which may come low)
    to_come0 = to_come1 = fixed_to_come0 = fixed_to_come1 = -1
    for seat in queue[turn:]:
        hand = hands[seat]
        fixed = (hand & _FIXED_SLOTS).bit_length() - 1
        top = HIGH_JOKER if hand & _FLOATING_BIT and fixed < HIGH_JOKER else fixed
        if seat & 1:
            if top > to_come1:
                to_come1 = top
            if fixed > fixed_to_come1:
                fixed_to_come1 = fixed
        else:
            if top > to_come0:
                to_come0 = top
            if fixed > fixed_to_come0:
                fixed_to_come0 = fixed
    held_by_0 = not best_seat & 1
    sure0 = _winners_points(ours, theirs, -1 if held_by_0 else best_strength)
    sure1 = _winners_points(theirs, ours, best_strength if held_by_0 else -1)
    # a team takes the trick if its best card to come beats all to come and the trick's
    # best, or if it holds the trick against every card to come
    if held_by_0:
        take0 = fixed_to_come0 > to_come1 or best_strength > to_come1
        take1 = fixed_to_come1 > to_come0 and fixed_to_come1 > best_strength
    else:
        take0 = fixed_to_come0 > to_come1 and fixed_to_come0 > best_strength
        take1 = fixed_to_come1 > to_come0 or best_strength > to_come0
    if take0:
        sure0 += points
    if take1:
        sure1 += points
    return sure0, total - sure1


def _winners_points(team: int, other: int, other_best: int) -> int:
    """The points of the cards of ``team`` (two hands' slots) above every card of
    ``other`` and above ``other_best``, the other team's card in the trick (or -1)."""
    top = (other & _FIXED_SLOTS).bit_length() - 1
    if other & _FLOATING_BIT and top < HIGH_JOKER:
        top = HIGH_JOKER
    if other_best > top:
        top = other_best
    above = ~((1 << (top + 1)) - 1) & _FIXED_SLOTS
    if top < LOW_JOKER:
        above |= _FLOATING_BIT
    won = team & above
    return (won & ONE_POINT).bit_count() + 3 * (won & THREE_POINTS).bit_count()


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
