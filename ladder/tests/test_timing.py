"""``pitch_ladder.timing`` in pieces: the dealt hands it reads from a record's deck are the
engine's, the strata come from the engine's legal actions, and too few hands are no test."""

from __future__ import annotations

from dataclasses import replace

from pitch_ladder.timing import MIN_HANDS, TimedHand, check, dealt, fisher_exact, timed_hands
from pitch_sdk.bots import RandomBot
from pitch_sdk.gamerecord import GameRecord
from pitch_sdk.options import RuleOptions
from pitch_sdk.rules import GameState
from pitch_sdk.selfplay import play_game


def _record() -> GameRecord:
    record = play_game([RandomBot(s) for s in range(4)], seed=11, options=RuleOptions(hand_cap=3))
    hands = tuple(
        replace(
            hand, decisions=tuple(d if d.forced else replace(d, ms=1.5) for d in hand.decisions)
        )
        for hand in record.hands
    )
    return replace(record, hands=hands)


def test_the_dealt_hands_are_the_engines():
    record = _record()
    state = GameState(RuleOptions(hand_cap=3), record.first_dealer)
    hand = record.hands[0]
    state.deal(hand.deck)
    for seat in range(4):
        assert sum(1 << card for card in dealt(hand.deck, hand.dealer, seat)) == state.hands[seat]


def test_each_asked_decision_of_the_seats_is_timed_in_its_stratum():
    record = _record()
    hands = timed_hands(record, [1, 3])
    asked = [d for h in record.hands for d in h.decisions if d.seat % 2 == 1 and not d.forced]
    assert sum(len(hand.decisions) for hand in hands) == len(asked)
    kinds = {stratum[0] for hand in hands for stratum, _ in hand.decisions}
    assert kinds <= {"bid", "trump", "discard", "pickup", "stock", "play"} and "play" in kinds
    assert all(count > 1 for hand in hands for (_, count), _ in hand.decisions)  # asked: a choice


def test_too_few_hands_are_no_test_and_equal_times_flag_nothing():
    few = [TimedHand(frozenset({1}), ((("play", 2), float(i)),)) for i in range(MIN_HANDS - 1)]
    assert check(few, 3).p is None and not check(few, 3).flagged
    same = [TimedHand(frozenset({i}), ((("play", 2), 1.0),)) for i in range(50)]
    found = check(same, 5)
    assert found.hands == 0 and found.p is None


def test_fisher_exact_is_one_for_a_table_as_likely_as_any():
    assert fisher_exact([[5, 5], [5, 5]]) == 1.0
    assert fisher_exact([[10, 0], [0, 10]]) < 1e-4
