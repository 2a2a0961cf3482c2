"""The duplicate comparison's parts, on records made by the engine: the divergence finder
(``pitch_web.compare``), the analysis of a divergent card, and a match's games grouped
by deal pair (``pitch_web.pairs``)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pitch_sdk.analysis.costs import play_costs
from pitch_sdk.bots import GreedyBot, RandomBot
from pitch_sdk.options import RuleOptions
from pitch_sdk.selfplay import play_game
from pitch_testkit.duplicate import CONTRARY_HAND, HANDS, Contrary, duplicate_pair
from pitch_web.compare import DECISIONS, analyse, compare_hands
from pitch_web.models import loose_game
from pitch_web.pairs import compare_url, pair_of, pair_rows, schedule_order, twin_id
from pitch_web.timeline import timeline


@pytest.fixture(scope="module")
def contrary_pair() -> tuple[dict, dict]:
    return duplicate_pair(lambda: Contrary(CONTRARY_HAND), GreedyBot)


def steps_of(*records: dict[str, Any]) -> list[list[dict[str, Any]]]:
    return [timeline(record)["steps"] for record in records]


def test_the_divergence_is_the_first_card_that_one_table_played_otherwise(contrary_pair):
    a, b = steps_of(*contrary_pair)
    hands = compare_hands(a, b)
    assert [line.hand for line in hands] == [1, 2, 3]
    assert hands[0].divergence is None  # greedy at every seat of both tables
    deal = next(i for i, step in enumerate(a) if step["k"] == "deal" and step["hand"] == 2)
    # the contrary bot deviates at the hand's first card a bot is asked for, at one table
    first = next(i for i in range(deal, len(a)) if a[i]["k"] == "play" and not a[i].get("forced"))
    found = hands[1].divergence
    assert found is not None
    assert (found.kind, found.seat, found.a.step, found.b.step) == (
        "play",
        a[first]["s"],
        first,
        first,
    )
    assert found.a.card != found.b.card and {found.a.card, found.b.card} == {
        a[first]["card"],
        b[first]["card"],
    }
    assert found.a.action == a[first]["a"] and found.b.action == b[first]["a"]
    decisions = [i for i in range(deal + 1, first) if a[i]["k"] in DECISIONS]
    assert found.index == len(decisions)
    assert hands[1].cards == a[deal]["hands"] == b[deal]["hands"]


def test_two_tables_that_decide_alike_never_diverge():
    a, b = steps_of(*duplicate_pair(GreedyBot, GreedyBot))
    hands = compare_hands(a, b)
    assert len(hands) == 3 and all(line.cards for line in hands)
    assert [line.divergence for line in hands] == [None, None, None]
    assert all(line.swing == 0 for line in hands)  # the same bot took the same points


def test_tables_dealt_other_cards_are_not_compared():
    first = play_game([GreedyBot() for _ in range(4)], 1, HANDS)
    other = play_game([GreedyBot() for _ in range(4)], 2, HANDS)
    hands = compare_hands(*steps_of(first, other))
    assert hands and all(line.cards is None and line.divergence is None for line in hands)


def test_each_bots_points_and_the_swing_are_read_from_both_tables(contrary_pair):
    a, b = steps_of(*contrary_pair)
    scored = [[step["scored"]["points"] for step in steps if "scored" in step] for steps in (a, b)]
    for line, at_a, at_b in zip(compare_hands(a, b), *scored, strict=True):
        # bot A is team 0 at table a and team 1 at table b
        assert line.points(0) == (at_a[0], at_a[1]) and line.points(1) == (at_b[1], at_b[0])
        assert line.swing == at_a[0] - at_a[1] + at_b[1] - at_b[0]


def test_both_divergent_cards_are_valued_as_the_play_costs_of_each_table_value_them(
    contrary_pair,
):
    record_a, record_b = contrary_pair
    found = compare_hands(*steps_of(record_a, record_b))[1].divergence
    assert found is not None
    analysis = analyse(record_a, CONTRARY_HAND, found)
    assert analysis is not None and analysis.seat == found.seat
    values = [valued.value for valued in analysis.choices]
    assert values == sorted(values, reverse=True) and len(values) >= 2
    for record, choice in ((record_a, found.a), (record_b, found.b)):
        cost = next(play for play in play_costs(record, CONTRARY_HAND) if play.index == found.index)
        assert cost.played == choice.card
        valued = analysis.valued(choice)
        assert valued is not None and valued.value == cost.value and valued.error is None
        assert analysis.best.value - cost.value == cost.cost
        assert analysis.best.name in cost.best
    shaped = analysis.to_json(found.a)
    assert shaped["kind"] == "play" and shaped["samples"] is None and shaped["error"] is None
    assert shaped["cost"] >= 0 and len(shaped["choices"]) == len(analysis.choices)


def test_a_divergent_bid_is_valued_by_sampling_what_the_bidder_knew():
    record_a, record_b = duplicate_pair(GreedyBot, lambda: RandomBot("3"))
    hands = compare_hands(*steps_of(record_a, record_b))
    bids = [line for line in hands if line.divergence and line.divergence.kind == "bid"]
    assert bids, "random and greedy bid alike in every hand"
    line = bids[0]
    analysis = analyse(record_a, line.hand, line.divergence, samples=4)
    assert analysis is not None and analysis.kind == "bid" and analysis.samples == 4
    assert [v.name for v in analysis.choices if v.name.startswith("bid")]  # the bids, valued
    for choice in (line.divergence.a, line.divergence.b):
        shaped = analysis.to_json(choice)
        assert shaped["chosen"] == choice.action and shaped["cost"] >= 0
        assert shaped["error"] is not None and shaped["samples"] == 4
    again = analyse(record_a, line.hand, line.divergence, samples=4)
    assert again == analysis  # seeded by the hand and decision: a page shows the same


@settings(max_examples=20, deadline=None)
@given(deal=st.integers(0, 10**6), a_seed=st.text(max_size=3), b_seed=st.text(max_size=3))
def test_the_tables_agree_before_each_divergence_and_differ_at_it(deal, a_seed, b_seed):
    options = RuleOptions(hand_cap=2)
    a = play_game([RandomBot(a_seed) for _ in range(4)], deal, options)
    b = play_game([RandomBot(b_seed) for _ in range(4)], deal, options)
    steps = steps_of(a, b)
    decided = [[[(s["s"], s["a"]) for s in hand] for hand in _hands(table)] for table in steps]
    for line in compare_hands(*steps):
        if line.cards is None:  # the same deal seed: the same cards, where both dealt
            assert line.a is None or line.b is None
            continue
        at_a, at_b = decided[0][line.hand - 1], decided[1][line.hand - 1]
        if line.divergence is None:
            assert at_a == at_b
            continue
        index = line.divergence.index
        assert at_a[:index] == at_b[:index]
        assert at_a[index : index + 1] != at_b[index : index + 1]


def _hands(steps: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Each hand's decision steps."""
    hands: list[list[dict[str, Any]]] = []
    for step in steps:
        if step["k"] == "deal":
            hands.append([])
        elif hands and step["k"] in DECISIONS:
            hands[-1].append(step)
    return hands


def game(game_id: str, a_score: float | None) -> Any:
    return loose_game(game_id).model_copy(update={"game": game_id, "a_score": a_score})


def test_a_matchs_games_are_grouped_by_pair_with_bot_as_points_over_the_pair():
    games = [
        game("pair-00001-b", 0.5),
        game("pair-00000-a", 1.0),
        game("pair-00001-a", 1.0),
        game("pair-00000-b", 0.0),
        game("pair-00002-a", 0.0),
        game("pair-00003-a", None),
        game("pair-00003-b", 1.0),
        game("game.json", 1.0),
    ]
    rows = pair_rows(games, "m/x")
    assert [row.pair for row in rows] == [0, 1, 2, 3, None]
    assert [row.score for row in rows] == [1.0, 1.5, None, None, None]
    assert [row.results for row in rows] == ["WL", "WD", "L-", "-W", "W-"]
    assert [row.compare for row in rows] == [
        "/compare/m/x/0",
        "/compare/m/x/1",
        None,
        "/compare/m/x/3",
        None,
    ]
    assert rows[1].a is games[2] and rows[1].b is games[0]


def test_pair_ids_parse_and_order_as_the_schedule():
    assert pair_of("pair-00012-b") == (12, "b") and pair_of("pair-12-b") is None
    assert twin_id("pair-00012-b") == "pair-00012-a" and twin_id("x-a") is None
    ids = ["pair-100000-a", "lone", "pair-00002-b", "pair-00002-a", "pair-00010-a"]
    assert sorted(ids, key=schedule_order) == [
        "pair-00002-a",
        "pair-00002-b",
        "pair-00010-a",
        "pair-100000-a",
        "lone",
    ]
    assert compare_url("", 3) == "/compare/3" and compare_url("a b", 3) == "/compare/a%20b/3"
