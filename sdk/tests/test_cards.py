"""Card codes and names, card masks, seats and teams, and the trump tables."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pitch_sdk.cards import (
    ACE,
    ALL_CARDS,
    CLUBS,
    DECK_SIZE,
    DEUCE,
    DIAMONDS,
    HEARTS,
    JACK,
    JICK_STRENGTH,
    JOKER,
    JOKERS_MASK,
    OFF_THREE_STRENGTH,
    POINT_CARDS,
    POINTS,
    SECOND_JOKER,
    SPADES,
    STRENGTH,
    STRENGTH_HIGH_JOKER,
    STRENGTH_LOW_JOKER,
    SUITS,
    TEN,
    THREE,
    TOTAL_POINTS,
    TRUMPS,
    TWO,
    canonical_jokers,
    card_name,
    card_symbol,
    cards_in,
    count,
    distinct_cards,
    format_cards,
    is_trump,
    left_of,
    make_card,
    mask_of,
    mask_points,
    off_suit,
    other_team,
    parse_card,
    parse_cards,
    parse_suit,
    partner,
    points_of,
    rank_of,
    resolve_jokers,
    seats_from,
    seats_of,
    suit_of,
    team_of,
)

masks = st.integers(min_value=0, max_value=(1 << DECK_SIZE) - 1)


def card(name: str) -> int:
    return parse_card(name)


# --- names ----------------------------------------------------------------------------


@pytest.mark.parametrize("code", ALL_CARDS)
def test_card_name_and_parse_card_round_trip_every_card(code: int) -> None:
    name = card_name(code)
    assert len(name) == 2
    assert parse_card(name) == min(code, JOKER)  # both jokers are named JK
    assert parse_card(f" {name.lower()} ") == min(code, JOKER)


def test_card_names_are_rank_then_suit() -> None:
    assert card_name(make_card(ACE, SPADES)) == "AS"
    assert card_name(make_card(TEN, HEARTS)) == "TH"
    assert card_name(make_card(THREE, DIAMONDS)) == "3D"
    assert card_name(make_card(TWO, CLUBS)) == "2C"
    assert card_name(JOKER) == card_name(SECOND_JOKER) == "JK"
    assert len({card_name(code) for code in ALL_CARDS}) == 53


def test_card_symbol_writes_ten_as_10_with_the_suit_symbol() -> None:
    assert card_symbol(card("TH")) == "10♥"
    assert card_symbol(card("AS")) == "A♠"
    assert card_symbol(SECOND_JOKER) == "JK"


@pytest.mark.parametrize("text", ["", "A", "ASS", "1S", "AX", "10H", "J K"])
def test_parse_card_rejects_what_is_not_a_card_name(text: str) -> None:
    with pytest.raises(ValueError, match="not a card name"):
        parse_card(text)


def test_suit_and_rank_of_a_card_and_none_for_a_joker() -> None:
    assert (suit_of(card("QD")), rank_of(card("QD"))) == (DIAMONDS, 10)
    assert suit_of(JOKER) is None and rank_of(SECOND_JOKER) is None


@pytest.mark.parametrize(
    ("text", "suit"),
    [("H", HEARTS), ("h", HEARTS), ("hearts", HEARTS), ("♥", HEARTS), (" S ", SPADES)],
)
def test_parse_suit_reads_letters_names_and_symbols(text: str, suit: int) -> None:
    assert parse_suit(text) == suit


def test_parse_suit_rejects_what_is_not_a_suit() -> None:
    with pytest.raises(ValueError, match="not a suit: 'X'"):
        parse_suit("X")


# --- masks ----------------------------------------------------------------------------


@given(masks)
def test_format_cards_and_parse_cards_round_trip_with_a_lone_joker_as_jk(mask: int) -> None:
    assert parse_cards(format_cards(mask)) == canonical_jokers(mask)


@given(st.lists(st.sampled_from(ALL_CARDS), unique=True))
def test_mask_of_and_cards_in_round_trip_lowest_code_first(cards: list[int]) -> None:
    mask = mask_of(cards)
    assert list(cards_in(mask)) == sorted(cards)
    assert count(mask) == len(cards)


def test_parse_cards_reads_separators_the_empty_set_and_two_jokers() -> None:
    assert parse_cards("AS, KS  QS") == mask_of([card("AS"), card("KS"), card("QS")])
    assert parse_cards("-") == parse_cards("") == 0
    assert parse_cards("JK JK") == JOKERS_MASK
    assert format_cards(0) == "-"
    assert format_cards(JOKERS_MASK | 1 << card("2C")) == "2C JK JK"


def test_parse_cards_rejects_a_card_named_twice() -> None:
    with pytest.raises(ValueError, match="named twice"):
        parse_cards("AS AS")
    with pytest.raises(ValueError, match="named twice"):
        parse_cards("JK JK JK")


def test_a_lone_joker_is_canonically_the_first_joker_code() -> None:
    assert canonical_jokers(1 << SECOND_JOKER) == 1 << JOKER
    assert canonical_jokers(JOKERS_MASK) == JOKERS_MASK
    assert canonical_jokers(1 << JOKER | 1) == 1 << JOKER | 1


def test_resolve_jokers_maps_a_lone_jk_onto_the_joker_actually_held() -> None:
    assert resolve_jokers(1 << JOKER, held=1 << SECOND_JOKER) == 1 << SECOND_JOKER
    assert resolve_jokers(1 << JOKER, held=JOKERS_MASK) == 1 << JOKER
    assert resolve_jokers(JOKERS_MASK, held=JOKERS_MASK) == JOKERS_MASK
    assert resolve_jokers(1, held=1 | 1 << SECOND_JOKER) == 1


def test_distinct_cards_offers_the_two_jokers_once() -> None:
    assert distinct_cards(JOKERS_MASK | 1) == 1 << JOKER | 1
    assert distinct_cards(1 << SECOND_JOKER) == 1 << JOKER
    assert distinct_cards(1 << JOKER) == 1 << JOKER


# --- seats and teams ------------------------------------------------------------------


def test_seats_teams_and_partners() -> None:
    assert [left_of(seat) for seat in range(4)] == [1, 2, 3, 0]
    assert [partner(seat) for seat in range(4)] == [2, 3, 0, 1]
    assert [team_of(seat) for seat in range(4)] == [0, 1, 0, 1]
    assert seats_of(0) == (0, 2) and seats_of(1) == (1, 3)
    assert other_team(0) == 1 and other_team(1) == 0
    assert seats_from(3) == (3, 0, 1, 2)


# --- trumps ---------------------------------------------------------------------------


def test_off_suit_is_the_other_suit_of_the_same_colour() -> None:
    assert off_suit(HEARTS) == DIAMONDS and off_suit(DIAMONDS) == HEARTS
    assert off_suit(SPADES) == CLUBS and off_suit(CLUBS) == SPADES


@pytest.mark.parametrize("trump", SUITS)
def test_there_are_exactly_seventeen_trumps(trump: int) -> None:
    assert count(TRUMPS[trump]) == 17
    assert all(is_trump(code, trump) == (STRENGTH[trump][code] >= 0) for code in ALL_CARDS)


@pytest.mark.parametrize("trump", SUITS)
def test_the_nine_point_cards_sum_to_thirteen(trump: int) -> None:
    assert count(POINT_CARDS[trump]) == 9
    assert mask_points(POINT_CARDS[trump], trump) == TOTAL_POINTS == 13
    assert sum(POINTS[trump]) == 13
    assert POINT_CARDS[trump] & ~TRUMPS[trump] == 0


def rules_order(trump: int) -> list[int]:
    """docs/rules.md's trump rank, highest first, with the two jokers as one slot."""
    off = off_suit(trump)
    suit = [make_card(rank, trump) for rank in (ACE, 11, 10, JACK)]
    middle = [make_card(rank, trump) for rank in range(TEN, THREE - 1, -1)]
    return [*suit, make_card(JACK, off), JOKER, *middle, make_card(THREE, off), DEUCE[trump]]


@pytest.mark.parametrize("trump", SUITS)
def test_trump_strength_follows_the_rules_order(trump: int) -> None:
    order = rules_order(trump)
    strengths = [STRENGTH[trump][code] for code in order]
    assert strengths == sorted(strengths, reverse=True)
    assert len(set(strengths)) == len(strengths)
    assert STRENGTH[trump][make_card(JACK, off_suit(trump))] == JICK_STRENGTH
    assert STRENGTH[trump][make_card(THREE, off_suit(trump))] == OFF_THREE_STRENGTH
    assert min(s for s in STRENGTH[trump] if s >= 0) == STRENGTH[trump][DEUCE[trump]]


@pytest.mark.parametrize("trump", SUITS)
def test_both_jokers_rank_between_the_jick_and_the_ten(trump: int) -> None:
    jick = STRENGTH[trump][make_card(JACK, off_suit(trump))]
    ten = STRENGTH[trump][make_card(TEN, trump)]
    assert jick > STRENGTH_HIGH_JOKER > STRENGTH_LOW_JOKER > ten
    assert STRENGTH[trump][JOKER] == STRENGTH[trump][SECOND_JOKER]


@pytest.mark.parametrize("trump", SUITS)
def test_non_trumps_have_no_strength_and_no_points(trump: int) -> None:
    for code in ALL_CARDS:
        if not is_trump(code, trump):
            assert STRENGTH[trump][code] == -1
            assert points_of(code, trump) == 0


def test_point_values_follow_the_table_of_rules() -> None:
    values = {name: points_of(card(name), HEARTS) for name in ("AH", "JH", "JD", "TH", "2H")}
    assert values == {"AH": 1, "JH": 1, "JD": 1, "TH": 1, "2H": 1}
    assert points_of(card("3H"), HEARTS) == points_of(card("3D"), HEARTS) == 3
    assert points_of(JOKER, HEARTS) == points_of(SECOND_JOKER, HEARTS) == 1
    assert points_of(card("KH"), HEARTS) == points_of(card("JC"), HEARTS) == 0
