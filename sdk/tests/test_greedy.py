"""GreedyBot: always legal, deterministic, registered, and far stronger than random play."""

from __future__ import annotations

import pytest

from pitch_sdk.bots import POLICIES, GreedyBot, RandomBot
from pitch_sdk.bots.greedy import best_suit, hand_value
from pitch_sdk.cards import HEARTS, SPADES, parse_cards
from pitch_sdk.selfplay import play_game
from pitch_sdk.views import PlayerView


class CheckedGreedy(GreedyBot):
    """GreedyBot that asserts each answer is one of the legal actions it was offered."""

    decisions = 0

    def decide(self, view: PlayerView):
        action = super().decide(view)
        assert action in view.legal_actions, f"{action} not legal in {view.legal_actions}"
        CheckedGreedy.decisions += 1
        return action


def test_registered_as_greedy() -> None:
    assert POLICIES["greedy"] is GreedyBot


@pytest.mark.parametrize("seed", range(6))
def test_greedy_always_answers_legally(seed: int) -> None:
    """Full games with greedy everywhere, and greedy partnered against random players."""
    CheckedGreedy.decisions = 0
    everyone = [CheckedGreedy(seed * 10 + seat) for seat in range(4)]
    mixed = [CheckedGreedy(seed), RandomBot(seed), CheckedGreedy(seed + 1), RandomBot(seed + 1)]
    for bots in (everyone, mixed, mixed[1:] + mixed[:1]):
        record = play_game(bots, f"legal-{seed}")
        assert record.result.termination != "forfeit"
        assert not record.faults
    assert CheckedGreedy.decisions > 0


def test_greedy_is_deterministic_given_its_seeds() -> None:
    def game() -> dict:
        return play_game([GreedyBot(seat) for seat in range(4)], "same")

    assert game() == game()


def test_hand_value_prefers_the_suit_with_high_trumps_and_length() -> None:
    hand = parse_cards("AS KS QS JS 2S JC 4H 7H 9D")
    assert best_suit(hand)[1] == SPADES
    assert hand_value(hand, SPADES) > hand_value(hand, HEARTS) + 4


@pytest.mark.slow
def test_greedy_beats_random_both_ways() -> None:
    """100 games with greedy as team 0 and 100 as team 1; it must win at least 90% of each."""
    games = 100
    wins = [0, 0]
    for seed in range(70_000, 70_000 + games):
        for team in (0, 1):
            bots = [
                GreedyBot(seed * 4 + seat) if seat % 2 == team else RandomBot(seed * 4 + seat)
                for seat in range(4)
            ]
            if play_game(bots, seed).result.winner == team:
                wins[team] += 1
    assert min(wins) >= 0.9 * games, f"greedy won {wins[0]} as team 0, {wins[1]} as team 1"
