"""Cards, suits, seats and teams as small integers, and card sets as 54-bit masks.

This module owns the names of things: ``Card`` codes and their two-character names
(``AS``, ``TH``, ``3D``, ``2C``, ``JK``), suits, seats and teams, and the trump-relative
facts of a card for a given trump suit (is it a trump, how strong, how many points).
It imports nothing outside the standard library and does no I/O.

A card code is ``suit * 13 + rank`` for the 52 suited cards (rank 0 is the two, rank 12
the ace) and 52 or 53 for the two jokers. The jokers are identical: both are named
``JK``, and wherever a choice between them would arise the engine treats them as one.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TypeAlias

Card: TypeAlias = int
"""A card code: ``suit * 13 + rank`` for the suited cards, ``JOKER`` or ``SECOND_JOKER``."""
Suit: TypeAlias = int
"""A suit: ``CLUBS`` (0), ``DIAMONDS`` (1), ``HEARTS`` (2) or ``SPADES`` (3); a
``trump`` of -1 means none named yet."""
Seat: TypeAlias = int
"""A seat at the table, 0-3 in playing order; partners sit opposite (``partner``)."""
Team: TypeAlias = int
"""A team: 0 (seats 0 and 2) or 1 (seats 1 and 3)."""
CardMask: TypeAlias = int
"""A set of cards as a 54-bit integer: bit ``card`` is set for each card in the set.
Read one with ``cards_in``, build one with ``mask_of``, count it with ``count``."""
PerSeat: TypeAlias = tuple[int, int, int, int]
"""One number per seat, in seat order (cards as a ``CardMask``, or counts)."""

CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
SUITS: tuple[Suit, ...] = (CLUBS, DIAMONDS, HEARTS, SPADES)
"""The four suits, in code order."""
SUIT_LETTERS = "CDHS"
"""``SUIT_LETTERS[suit]``: the suit's letter in card names (``AS``, ``TH``)."""
SUIT_SYMBOLS = "♣♦♥♠"
"""``SUIT_SYMBOLS[suit]``: the suit's symbol, for people."""
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
"""``SUIT_NAMES[suit]``: the suit's name in words."""

RANK_LETTERS = "23456789TJQKA"
"""``RANK_LETTERS[rank]``: the rank's letter in card names (``T`` is the ten)."""
TWO, THREE, TEN, JACK, QUEEN, KING, ACE = 0, 1, 8, 9, 10, 11, 12

JOKER: Card = 52
"""The first joker's code; a lone joker in an action is always this one."""
SECOND_JOKER: Card = 53
"""The second joker's code: identical in play to the first."""
DECK_SIZE = 54
"""52 suited cards and two jokers."""
ALL_CARDS: tuple[Card, ...] = tuple(range(DECK_SIZE))
"""Every card code, 0-53."""
JOKERS_MASK: CardMask = (1 << JOKER) | (1 << SECOND_JOKER)
"""Both jokers as a mask."""

SEATS: tuple[Seat, ...] = (0, 1, 2, 3)
"""The four seats, in playing order."""
TEAMS: tuple[Team, ...] = (0, 1)
"""The two teams."""


def left_of(seat: Seat) -> Seat:
    """The next seat in playing order."""
    return (seat + 1) & 3


def partner(seat: Seat) -> Seat:
    """The seat opposite, on the same team."""
    return (seat + 2) & 3


def team_of(seat: Seat) -> Team:
    """Team 0 is seats 0 and 2, team 1 is seats 1 and 3."""
    return seat & 1


TEAM_OF: tuple[Team, ...] = tuple(team_of(seat) for seat in SEATS)
"""``team_of`` as a table, for the hot paths of the engine."""


def seats_of(team: Team) -> tuple[Seat, Seat]:
    """The two seats of ``team``: (0, 2) or (1, 3)."""
    return (team, team + 2)


def other_team(team: Team) -> Team:
    """The opposing team."""
    return team ^ 1


def seats_from(first: Seat) -> tuple[Seat, Seat, Seat, Seat]:
    """The four seats in playing order, starting with ``first``."""
    return _SEATS_FROM[first]


_SEATS_FROM: tuple[PerSeat, ...] = tuple(
    (first, (first + 1) & 3, (first + 2) & 3, (first + 3) & 3) for first in range(4)
)


def make_card(rank: int, suit: Suit) -> Card:
    """The code of the card of ``rank`` (0 = two ... 12 = ace) in ``suit``."""
    return suit * 13 + rank


def suit_of(card: Card) -> Suit | None:
    """The printed suit of a card; ``None`` for a joker."""
    return None if card >= JOKER else card // 13


def rank_of(card: Card) -> int | None:
    """The printed rank (0 = two ... 12 = ace); ``None`` for a joker."""
    return None if card >= JOKER else card % 13


def off_suit(suit: Suit) -> Suit:
    """The other suit of the same colour: hearts <-> diamonds, spades <-> clubs."""
    return {CLUBS: SPADES, SPADES: CLUBS, HEARTS: DIAMONDS, DIAMONDS: HEARTS}[suit]


def card_name(card: Card) -> str:
    """The two-character name of a card.

    Examples:
        >>> card_name(make_card(ACE, SPADES)), card_name(make_card(TEN, HEARTS)), card_name(JOKER)
        ('AS', 'TH', 'JK')
    """
    if card >= JOKER:
        return "JK"
    return RANK_LETTERS[card % 13] + SUIT_LETTERS[card // 13]


def parse_card(text: str) -> Card:
    """Parse a two-character card name; ``JK`` gives the first joker code.

    Examples:
        >>> parse_card("AS") == make_card(ACE, SPADES), parse_card("jk") == JOKER
        (True, True)

    Raises:
        ValueError: the text is not a card name.
    """
    name = text.strip().upper()
    if name == "JK":
        return JOKER
    if len(name) == 2 and name[0] in RANK_LETTERS and name[1] in SUIT_LETTERS:
        return make_card(RANK_LETTERS.index(name[0]), SUIT_LETTERS.index(name[1]))
    raise ValueError(
        f"not a card name: {text!r} (expected rank+suit like 'AS', 'TH', '3D', or 'JK')"
    )


def parse_suit(text: str) -> Suit:
    """Parse a suit letter or name (``H``, ``hearts``, ``♥``).

    Raises:
        ValueError: the text is not a suit.
    """
    key = text.strip()
    for suit in SUITS:
        if key.upper() == SUIT_LETTERS[suit] or key.lower() == SUIT_NAMES[suit]:
            return suit
        if key == SUIT_SYMBOLS[suit]:
            return suit
    raise ValueError(f"not a suit: {text!r} (expected one of C, D, H, S)")


def card_symbol(card: Card) -> str:
    """A name with the suit symbol, for people: ``A♠``, ``10♥``, ``JK``."""
    if card >= JOKER:
        return "JK"
    rank = RANK_LETTERS[card % 13]
    return ("10" if rank == "T" else rank) + SUIT_SYMBOLS[card // 13]


# --- card sets as bit masks -------------------------------------------------------------


def mask_of(cards: Iterable[Card]) -> CardMask:
    """The set of ``cards`` as a mask."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def cards_in(mask: CardMask) -> Iterator[Card]:
    """The cards of a mask, lowest code first.

    A generator: wrap it in ``list()`` or ``sorted()`` to index or reuse it.

    Examples:
        >>> [card_name(card) for card in cards_in(parse_cards("AS 2C JK"))]
        ['2C', 'AS', 'JK']
    """
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def count(mask: CardMask) -> int:
    """How many cards ``mask`` holds."""
    return mask.bit_count()


def canonical_jokers(mask: CardMask) -> CardMask:
    """A mask with a lone joker written as the first joker code.

    The jokers are identical, so two sets that differ only in which joker they hold
    are the same choice; actions always name a lone joker with ``JOKER``.
    """
    if mask & JOKERS_MASK == 1 << SECOND_JOKER:
        return mask ^ JOKERS_MASK
    return mask


def distinct_cards(mask: CardMask) -> CardMask:
    """The distinct single-card choices in ``mask``: any joker offered once, as ``JOKER``."""
    if mask & (1 << SECOND_JOKER):
        return mask & ~(1 << SECOND_JOKER) | 1 << JOKER
    return mask


def resolve_jokers(chosen: CardMask, held: CardMask) -> CardMask:
    """Map a canonical choice onto the joker codes actually ``held``."""
    if chosen & (1 << JOKER) and not chosen & (1 << SECOND_JOKER) and not held & (1 << JOKER):
        return chosen ^ JOKERS_MASK
    return chosen


def format_cards(mask: CardMask) -> str:
    """Space-separated names, jokers last; ``-`` for the empty set."""
    return " ".join(card_name(card) for card in cards_in(mask)) or "-"


def parse_cards(text: str) -> CardMask:
    """Parse space- or comma-separated card names; ``-`` or nothing is the empty set.

    A second ``JK`` names the second joker.

    Raises:
        ValueError: a name is not a card, or a card is named twice.
    """
    mask = 0
    for word in text.replace(",", " ").split():
        if word == "-":
            continue
        card = parse_card(word)
        if card == JOKER and mask & (1 << JOKER):
            card = SECOND_JOKER
        if mask & (1 << card):
            raise ValueError(f"card {word!r} named twice in {text!r}")
        mask |= 1 << card
    return mask


# --- trump-relative facts -----------------------------------------------------------------

# Strength of a trump in its trump suit, highest wins. The two joker slots are filled by
# whichever joker is played first (HIGH) and second (LOW) in the hand.
STRENGTH_HIGH_JOKER = 11
"""The strength of the joker played first in a hand (``STRENGTH`` gives both jokers this)."""
STRENGTH_LOW_JOKER = 10
"""The strength of the joker played second in a hand, after the other one."""
_SUIT_STRENGTH = {ACE: 16, KING: 15, QUEEN: 14, JACK: 13, TEN: 9}
JICK_STRENGTH = 12
"""The strength of the Jick (the jack of the trump suit's colour): below the jack."""
OFF_THREE_STRENGTH = 1
"""The strength of the off three: above only the trump deuce."""


def _trump_tables(trump: Suit) -> tuple[CardMask, tuple[int, ...], tuple[int, ...], CardMask]:
    strength = [-1] * DECK_SIZE
    points = [0] * DECK_SIZE
    for rank in range(13):
        card = make_card(rank, trump)
        # 10..3 map onto 9..2 and the deuce onto 0, below the off three.
        strength[card] = _SUIT_STRENGTH.get(rank, rank + 1 if rank >= THREE else 0)
    off = off_suit(trump)
    jick, off_three = make_card(JACK, off), make_card(THREE, off)
    strength[jick] = JICK_STRENGTH
    strength[off_three] = OFF_THREE_STRENGTH
    strength[JOKER] = strength[SECOND_JOKER] = STRENGTH_HIGH_JOKER
    for card, value in (
        (make_card(ACE, trump), 1),
        (make_card(JACK, trump), 1),
        (jick, 1),
        (JOKER, 1),
        (SECOND_JOKER, 1),
        (make_card(TEN, trump), 1),
        (make_card(THREE, trump), 3),
        (off_three, 3),
        (make_card(TWO, trump), 1),
    ):
        points[card] = value
    trumps = mask_of(card for card in ALL_CARDS if strength[card] >= 0)
    point_cards = mask_of(card for card in ALL_CARDS if points[card])
    return trumps, tuple(strength), tuple(points), point_cards


_TABLES = tuple(_trump_tables(suit) for suit in SUITS)
TRUMPS: tuple[CardMask, ...] = tuple(t[0] for t in _TABLES)
"""``TRUMPS[trump]``: the 17 trumps as a mask when ``trump`` is named: the suit's 13
cards, the Jick, the off three and both jokers."""
STRENGTH: tuple[tuple[int, ...], ...] = tuple(t[1] for t in _TABLES)
"""``STRENGTH[trump][card]``: the card's rank among the trumps of suit ``trump``, higher
wins a trick; -1 for a non-trump.

From the top: ace 16, king 15, queen 14, jack 13, Jick 12, jokers 11 (the joker played
second in a hand ranks 10, ``STRENGTH_LOW_JOKER``, below the first), ten 9, nine to four
8 to 3, the three 2, the off three 1 and the deuce 0.

Examples:
    >>> STRENGTH[SPADES][parse_card("AS")], STRENGTH[SPADES][parse_card("JC")]
    (16, 12)
    >>> STRENGTH[SPADES][parse_card("AH")]
    -1
"""
POINTS: tuple[tuple[int, ...], ...] = tuple(t[2] for t in _TABLES)
"""``POINTS[trump][card]``: the points the card is worth with ``trump`` named: 3 for the
three and the off three, 1 for the ace, jack, Jick, each joker, ten and deuce, 0 for any
other card (13 in all).

Examples:
    >>> POINTS[HEARTS][parse_card("3D")], POINTS[HEARTS][parse_card("TH")]
    (3, 1)
"""
POINT_CARDS: tuple[CardMask, ...] = tuple(t[3] for t in _TABLES)
"""``POINT_CARDS[trump]``: the nine point cards (jokers both included) as a mask."""
DEUCE: tuple[Card, ...] = tuple(make_card(TWO, suit) for suit in SUITS)
"""``DEUCE[trump]``: the trump deuce, whose point goes to the team that played it."""
TOTAL_POINTS = 13
"""The points in every hand, all point cards together."""


def is_trump(card: Card, trump: Suit) -> bool:
    """Whether ``card`` is one of the 17 trumps when ``trump`` is named."""
    return bool(TRUMPS[trump] >> card & 1)


def points_of(card: Card, trump: Suit) -> int:
    """``POINTS[trump][card]``: the card's points with ``trump`` named."""
    return POINTS[trump][card]


def mask_points(mask: CardMask, trump: Suit) -> int:
    """The points of all the cards in ``mask`` with ``trump`` named."""
    table = POINTS[trump]
    return sum(table[card] for card in cards_in(mask & POINT_CARDS[trump]))
