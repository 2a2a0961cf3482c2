"""Actions: their text forms, and ``parse_action`` reading them back."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pitch_sdk.actions import (
    LEAVE,
    PASS,
    STOP,
    Bid,
    Decision,
    Discard,
    InvalidActionError,
    NameTrump,
    PickUp,
    Play,
    StockChoice,
    StockMove,
    parse_action,
)
from pitch_sdk.cards import (
    DECK_SIZE,
    JOKER,
    SECOND_JOKER,
    canonical_jokers,
    parse_card,
    parse_cards,
)

canonical_masks = st.integers(min_value=0, max_value=(1 << DECK_SIZE) - 1).map(canonical_jokers)
single_cards = st.integers(min_value=0, max_value=JOKER)  # a lone joker is always JK = 52

actions = st.one_of(
    st.just(PASS),
    st.integers(min_value=1, max_value=99).map(Bid),
    st.integers(min_value=0, max_value=3).map(NameTrump),
    canonical_masks.map(Discard),
    canonical_masks.map(PickUp),
    single_cards.map(lambda card: StockChoice(StockMove.TAKE, card)),
    st.sampled_from([LEAVE, STOP]),
    single_cards.map(Play),
)


@given(actions)
def test_every_action_round_trips_through_its_text_form(action: object) -> None:
    assert parse_action(str(action)) == action


@given(st.integers(min_value=0, max_value=(1 << DECK_SIZE) - 1))
def test_a_set_naming_the_second_joker_alone_reads_back_as_jk(mask: int) -> None:
    assert parse_action(str(Discard(mask))) == Discard(canonical_jokers(mask))


@pytest.mark.parametrize(
    ("action", "text"),
    [
        (PASS, "pass"),
        (Bid(7), "bid 7"),
        (NameTrump(2), "trump H"),
        (Discard(0), "discard -"),
        (PickUp(parse_cards("JK JK")), "pickup JK JK"),
        (StockChoice(StockMove.TAKE, parse_card("AS")), "take AS"),
        (LEAVE, "leave"),
        (STOP, "stop"),
        (Play(parse_card("TH")), "play TH"),
        (Play(SECOND_JOKER), "play JK"),
    ],
)
def test_text_form_of_each_action(action: object, text: str) -> None:
    assert str(action) == text


def test_parse_action_ignores_case_and_surrounding_spaces() -> None:
    assert parse_action("  BID 7 ") == Bid(7)
    assert parse_action("Trump hearts") == parse_action("trump ♥") == NameTrump(2)
    assert parse_action("play jk") == Play(JOKER)
    assert parse_action("discard as, ks") == Discard(parse_cards("AS KS"))
    assert parse_action("LEAVE") == LEAVE


def test_a_discard_repr_evaluates_back_to_the_same_action() -> None:
    action = Discard(parse_cards("AS JK"))
    assert repr(action) == "parse_action('discard AS JK')"
    assert eval(repr(action), {"parse_action": parse_action}) == action


def test_each_action_answers_its_own_kind_of_decision() -> None:
    assert PASS.decision is Decision.BID and Bid(5).decision is Decision.BID
    assert NameTrump(0).decision is Decision.TRUMP
    assert Discard(0).decision is Decision.DISCARD
    assert PickUp(0).decision is Decision.PICKUP
    assert LEAVE.decision is STOP.decision is Decision.STOCK
    assert Play(0).decision is Decision.PLAY


def test_pass_is_a_bid_of_zero() -> None:
    assert Bid(0) == PASS and PASS.is_pass and not Bid(4).is_pass


@pytest.mark.parametrize(
    "text",
    ["", "bid", "bid 0", "bid 100", "bid -4", "trump", "trump Z", "discard AS AS", "pickup Q",
     "take", "take JK JK", "leave now", "stop it", "play", "play 1H", "fold"],
)  # fmt: skip
def test_parse_action_rejects_malformed_text_with_invalid_action_error(text: str) -> None:
    with pytest.raises(InvalidActionError, match=f"cannot read action {text!r}"):
        parse_action(text)
