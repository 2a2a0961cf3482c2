"""The double-dummy solver: alpha-beta over strength slots, transposition tables with
sure-point bounds, and equivalent cards played once.

**Equivalent cards.** Two trumps of one seat are interchangeable when no other unplayed
trump (in any hand, a floating joker counting as both joker slots) and not the best card
of the trick in progress ranks between them, and they carry the same points for the
trick's winner. Swapping them anywhere in a line of play changes no comparison the rules
make (the two are never compared with each other: one seat plays one card a trick) and
no point, so the seat plays only the lowest of each such run. The deuce counts 0 here
(its point is fixed, see ``position.py``), so it merges with the fours above it.

**Transposition table.** At the start of a trick the value depends only on the hands
and the leader (what was taken before is added outside), so the table keys on those and
keeps a lower and an upper bound from each fail-soft search. Inside a trick a second
table keys on the plain hands and the trick so far: the null-window probes of MTD(f) meet
the same positions again, and each starts from the bounds and the best card the last one
found. A position met for the first time starts from the points each team surely takes
(``bounds.py``), which settle many positions before a card is chosen.

**Move order.** A card a table found best comes first. Then a leader tries its highest
cards first (a floating joker by its strength, between the jack and the Jick); a seat
whose partner holds the trick tries its point cards first; any other seat tries the
cheapest card that takes the trick, then its cheapest losers.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from ..actions import Play
from ..cards import JOKER, SEATS, STRENGTH, TEAM_OF, Card, seats_from
from ..rules import GameState
from .bounds import mid_trick_bounds, trick_start_bounds
from .outcome import HandOutcome, outcome_of, require_play
from .position import FLOATING, HIGH_JOKER, LOW_JOKER, slot_points, slot_position

Key = tuple[object, ...]
"""A position as a transposition table's key."""

_FLOATING_BIT = 1 << FLOATING
_BOTH_JOKER_SLOTS = (1 << HIGH_JOKER) | (1 << LOW_JOKER)
_FIXED_SLOTS = _FLOATING_BIT - 1
_JOKER_SLOTS = _FLOATING_BIT | _BOTH_JOKER_SLOTS
_SETTLE = _FLOATING_BIT | 1 << LOW_JOKER
"""Flips a floating joker to the low joker's slot (and back)."""
_SLOT_POINTS = tuple(slot_points(1 << slot) for slot in range(FLOATING + 1))
_STRENGTH_OF_SLOT = tuple(HIGH_JOKER if slot == FLOATING else slot for slot in range(FLOATING + 1))
_PLAYERS_FROM = tuple(seats_from(seat) for seat in SEATS)


def solve(state: GameState) -> HandOutcome:
    """The double-dummy outcome of the hand from ``state``: each team's points with every
    card seen and every seat playing its best for its team.

    ``nodes`` counts the positions where a seat chose a card.

    Raises:
        ValueError: ``state`` is not in the play of a hand.
    """
    return Solver().solve(state)


class Solver:
    """Double-dummy solves that share their transposition tables.

    Both tables key on every seat's cards (a trick start on the hands and the leader, a
    position inside a trick on the hands and the trick so far), so an entry holds for
    any position with that key, whatever deal or line of play it came from: the cards
    of ``card_outcomes`` reuse one another's work, and so may the solves of one deal's
    candidates. (Different deals rarely meet the same four hands: kept across 16
    sampled deals, the tables saved 0.2% of the nodes.) ``MAX_ENTRIES`` caps the
    memory: past it the tables start afresh.
    """

    MAX_ENTRIES = 300_000
    """Entries in the two tables together past which they are emptied before a solve."""

    def __init__(self) -> None:
        self._search = _Search()
        self._nodes = 0
        """The search's node count when the last figure was read."""

    def solve(self, state: GameState) -> HandOutcome:
        """The double-dummy outcome of the hand from ``state`` (see ``solve``).

        Raises:
            ValueError: ``state`` is not in the play of a hand.
        """
        require_play(state)
        search = self._fresh_search()
        position = slot_position(state)
        best_strength, best_seat = position.best
        hands = list(position.hands)
        if best_seat < 0:  # what each team surely takes bounds the value
            low, high = trick_start_bounds(hands)
        else:
            low, high = mid_trick_bounds(
                hands, position.queue, 0, best_strength, best_seat, position.trick_points
            )

        def probe(alpha: int, beta: int) -> int:  # each tries the last one's best card first
            return search.play(
                hands, position.queue, 0, best_strength, best_seat, position.trick_points,
                alpha, beta, search.chosen,
            )  # fmt: skip

        value = _mtdf(probe, low, high)
        return outcome_of(state, value + position.constant_team0, search.nodes - self._nodes)

    def card_outcomes(self, state: GameState) -> dict[Card, HandOutcome]:
        """The double-dummy outcome of the hand after each legal card of the seat to
        play (a joker as ``JOKER``), every seat at its best from there: the values of
        all the root's moves from one search, like DDS's SolveBoard asked for every
        card. Each outcome's ``nodes`` is the search's since the previous card.

        Raises:
            ValueError: ``state`` is not in the play of a hand.
        """
        require_play(state)
        search = self._fresh_search()
        position = slot_position(state)
        hands = list(position.hands)
        queue = position.queue
        seat = queue[0]
        best_strength, best_seat = position.best
        strength_of_card = STRENGTH[state.trump]
        outcomes = {}
        last = -1
        for action in state.legal_actions():
            assert isinstance(action, Play)  # the state is in the play
            card = action.card
            slot = _joker_slot(hands[seat]) if card >= JOKER else strength_of_card[card]
            bit = 1 << slot
            settled = _settle_floating(hands, seat) if slot == FLOATING else -1
            hands[seat] ^= bit
            strength = _STRENGTH_OF_SLOT[slot]
            if strength > best_strength:
                new_strength, new_seat = strength, seat
            else:
                new_strength, new_seat = best_strength, best_seat
            gained = position.trick_points + _SLOT_POINTS[slot]
            probe: Callable[[int, int], int]
            if len(queue) == 1:
                low, high = 0, gained + sum(slot_points(hand) for hand in hands)
                probe = partial(search.after_trick, hands, new_seat, gained)
            else:
                low, high = mid_trick_bounds(hands, queue, 1, new_strength, new_seat, gained)
                probe = partial(search.play, hands, queue, 1, new_strength, new_seat, gained)
            value = last = _mtdf(probe, low, high, last)
            hands[seat] ^= bit
            if settled >= 0:
                hands[settled] ^= _SETTLE
            nodes = search.nodes - self._nodes
            self._nodes = search.nodes
            outcomes[card] = outcome_of(state, value + position.constant_team0, nodes)
        return outcomes

    def _fresh_search(self) -> _Search:
        """The search with its tables, emptied first if they have grown past the cap."""
        search = self._search
        if len(search.table) + len(search.in_trick) > self.MAX_ENTRIES:
            search = self._search = _Search()
        self._nodes = search.nodes
        return search


def _mtdf(probe: Callable[[int, int], int], low: int, high: int, guess: int = -1) -> int:
    """The value between ``low`` and ``high`` by MTD(f): null-window probes
    (``probe(alpha, beta)``, a fail-soft search), each bounding it from one side."""
    if not low <= guess <= high:
        guess = (low + high) // 2
    while low < high:
        beta = guess + 1 if guess == low else guess
        guess = probe(beta - 1, beta)
        if guess < beta:
            high = guess
        else:
            low = guess
    return low


def _joker_slot(hand: int) -> int:
    """The slot of the joker a seat plays from ``hand``: the higher if it holds both."""
    return (hand & _JOKER_SLOTS).bit_length() - 1


def _settle_floating(hands: list[int], seat: int) -> int:
    """Settle the other floating joker low as ``seat`` plays its own; the other's seat."""
    for other in SEATS:
        if other != seat and hands[other] & _FLOATING_BIT:
            hands[other] ^= _SETTLE
            return other
    return -1


_RANKINGS: dict[int, tuple[tuple[int, ...], tuple[int, ...], int]] = {}
"""Memo of ``_ranking``: a search meets the same few sets of unplayed cards again and again."""


def _ranking(unplayed: int) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """The slots of ``unplayed`` lowest first, their points, and, while the jokers float,
    which of the cards rank above them."""
    slots = tuple(slot for slot in range(FLOATING + 1) if unplayed >> slot & 1)
    above_jokers = (unplayed & _FIXED_SLOTS) >> 12 if unplayed & _FLOATING_BIT else -1
    ranking = (slots, tuple(_SLOT_POINTS[slot] for slot in slots), above_jokers)
    _RANKINGS[unplayed] = ranking
    return ranking


def _canonical(hands: list[int], leader: int) -> tuple[Key, tuple[int, ...]]:
    """A trick start's key with the played cards squeezed out (only the order of the
    unplayed cards and their points matter, so positions that differ only in which
    cards already fell share one entry), and the slot of each rank."""
    unplayed = hands[0] | hands[1] | hands[2] | hands[3]
    slots, points, above_jokers = _RANKINGS.get(unplayed) or _ranking(unplayed)
    ranks = [0, 0, 0, 0]
    for rank, slot in enumerate(slots):
        bit = 1 << slot
        for seat in SEATS:
            if hands[seat] & bit:  # (both floating jokers share a slot)
                ranks[seat] |= 1 << rank
    return (*ranks, leader, points, above_jokers), slots


def _last_trick(hands: list[int], queue: tuple[int, ...]) -> int:
    """Team 0's points from a trick in which every seat holds at most one card."""
    best_strength = winner = -1
    points = jokers = 0
    for seat in queue:
        slot = hands[seat].bit_length() - 1
        strength = _STRENGTH_OF_SLOT[slot]
        if slot == FLOATING:  # the first joker played is high, the second low
            strength -= jokers
            jokers += 1
        if strength > best_strength:
            best_strength, winner = strength, seat
        points += _SLOT_POINTS[slot]
    return 0 if winner & 1 else points


_WITH_PARTNER = tuple(
    -32 * _SLOT_POINTS[slot] + _STRENGTH_OF_SLOT[slot] for slot in range(FLOATING + 1)
)
"""Where a card comes in the order of a seat whose partner holds the trick: its point
cards first, the dearest first, then its cheapest cards."""
_AGAINST = tuple(
    tuple(
        1024 + 32 * _SLOT_POINTS[slot] + _STRENGTH_OF_SLOT[slot]
        if _STRENGTH_OF_SLOT[slot] < best_strength
        else _STRENGTH_OF_SLOT[slot]
        for slot in range(FLOATING + 1)
    )
    for best_strength in range(FLOATING + 1)
)
"""Where a card comes in the order of a seat whose opponents hold the trick with a card
of a given strength: the cheapest card that takes it first, then the cheapest losers,
point cards last."""


class _Search:
    """The search: the transposition tables and the node count."""

    def __init__(self) -> None:
        self.table: dict[Key, tuple[int, int, int]] = {}
        """Per trick start: a lower and an upper bound, and the rank of the best lead."""
        self.in_trick: dict[Key, tuple[int, int, int]] = {}
        """Per position inside a trick: a lower and an upper bound, and the best card."""
        self.nodes = 0
        self.chosen = -1
        """The card the last ``play`` found best (read by ``lead`` for the table)."""

    def lead(self, hands: list[int], leader: int, alpha: int, beta: int) -> int:
        """Team 0's points from a trick's start, within the table's bounds."""
        queue = tuple([seat for seat in _PLAYERS_FROM[leader] if hands[seat]])
        seat0, seat1, seat2, seat3 = hands  # h & h - 1 is 0 for a hand of one card or none
        if not (seat0 & seat0 - 1 or seat1 & seat1 - 1 or seat2 & seat2 - 1 or seat3 & seat3 - 1):
            return _last_trick(hands, queue)  # one card a seat at most
        key, slots = _canonical(hands, leader)
        low, high, best_rank = self.table.get(key) or (*trick_start_bounds(hands), -1)
        if low >= beta or low == high:
            return low
        if high <= alpha:
            return high
        alpha, beta = max(alpha, low), min(beta, high)
        first = slots[best_rank] if best_rank >= 0 else -1
        value = self.play(hands, queue, 0, -1, -1, 0, alpha, beta, first)
        if value <= alpha:
            high = value
        elif value >= beta:
            low = value
        else:
            low = high = value
        self.table[key] = (low, high, slots.index(self.chosen))
        return value

    def play(
        self, hands: list[int], queue: tuple[int, ...], turn: int, best_strength: int,
        best_seat: int, points: int, alpha: int, beta: int, first: int = -1,
    ) -> int:  # fmt: skip
        """Team 0's points from the ``turn``-th card of a trick, within the bounds known
        for the position; ``first`` is a card to try before the others."""
        if best_seat < 0:
            return self.choose(
                hands, queue, turn, best_strength, best_seat, points, alpha, beta, first
            )
        key = (*hands, queue, turn, best_strength, best_seat, points)
        entry = self.in_trick.get(key)
        if entry:
            low, high, first = entry
        else:
            low, high = mid_trick_bounds(hands, queue, turn, best_strength, best_seat, points)
        if low >= beta or low == high:
            return low
        if high <= alpha:
            return high
        alpha, beta = max(alpha, low), min(beta, high)
        value = self.choose(
            hands, queue, turn, best_strength, best_seat, points, alpha, beta, first
        )
        if value <= alpha:
            high = value
        elif value >= beta:
            low = value
        else:
            low = high = value
        self.in_trick[key] = (low, high, self.chosen)
        return value

    def choose(
        self, hands: list[int], queue: tuple[int, ...], turn: int, best_strength: int,
        best_seat: int, points: int, alpha: int, beta: int, first: int = -1,
    ) -> int:  # fmt: skip
        """Team 0's points from the ``turn``-th card of a trick, by fail-soft alpha-beta;
        ``first`` is a card to try before the others (a table's best card)."""
        self.nodes += 1
        seat = queue[turn]
        maximizing = not TEAM_OF[seat]
        last = turn + 1 == len(queue)
        best = -1 if maximizing else 14
        chosen = -1
        moves = self._moves(hands, seat, best_strength, best_seat)
        if first in moves:
            moves.remove(first)
            moves.insert(0, first)
        for slot in moves:
            bit = 1 << slot
            # the first joker played is high, the other now low
            settled = _settle_floating(hands, seat) if slot == FLOATING else -1
            hands[seat] ^= bit
            strength = _STRENGTH_OF_SLOT[slot]
            if strength > best_strength:
                new_strength, new_seat = strength, seat
            else:
                new_strength, new_seat = best_strength, best_seat
            gained = points + _SLOT_POINTS[slot]
            if last:
                value = self.after_trick(hands, new_seat, gained, alpha, beta)
            else:
                value = self.play(
                    hands, queue, turn + 1, new_strength, new_seat, gained, alpha, beta
                )
            hands[seat] ^= bit
            if settled >= 0:
                hands[settled] ^= _SETTLE
            if maximizing:
                if value > best:
                    best, chosen = value, slot
                    if best > alpha:
                        alpha = best
                        if alpha >= beta:
                            break
            elif value < best:
                best, chosen = value, slot
                if best < beta:
                    beta = best
                    if alpha >= beta:
                        break
        self.chosen = chosen
        return best

    def after_trick(self, hands: list[int], winner: int, points: int, alpha: int, beta: int) -> int:
        """Score a finished trick, then end the hand or lead the next trick."""
        gained = 0 if winner & 1 else points
        if not hands[1] | hands[3]:  # a team out of trumps: the other scores what it holds
            return gained + slot_points(hands[0]) + slot_points(hands[2])
        if not hands[0] | hands[2]:
            return gained
        leader = winner if hands[winner] else winner ^ 2
        return gained + self.lead(hands, leader, alpha - gained, beta - gained)

    @staticmethod
    def _moves(hands: list[int], seat: int, best_strength: int, best_seat: int) -> list[int]:
        """The seat's cards with one of each run of equivalents, the likeliest best first."""
        hand = hands[seat]
        every = hands[0] | hands[1] | hands[2] | hands[3]
        others = every & ~hand
        if every & _FLOATING_BIT:  # the other floating joker is in another hand
            others |= _BOTH_JOKER_SLOTS
        if best_strength >= 0:
            others |= 1 << best_strength
        moves = []
        previous = -1
        fixed = hand & _FIXED_SLOTS
        while fixed:
            low = fixed & -fixed
            slot = low.bit_length() - 1
            fixed ^= low
            if not (
                previous >= 0
                and _SLOT_POINTS[previous] == _SLOT_POINTS[slot]
                and not others & (low - (2 << previous))
            ):
                moves.append(slot)
            previous = slot
        if hand & _FLOATING_BIT:  # between the jack's slot and the Jick's, by strength
            moves.insert(sum(slot < HIGH_JOKER for slot in moves), FLOATING)
        if best_seat < 0:
            moves.reverse()  # lead from the top
        elif TEAM_OF[best_seat] == TEAM_OF[seat]:
            moves.sort(key=_WITH_PARTNER.__getitem__)
        else:
            moves.sort(key=_AGAINST[best_strength].__getitem__)
        return moves
