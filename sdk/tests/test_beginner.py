"""BeginnerBot: always legal, registered, and a rung between random play and greedy."""

from __future__ import annotations

import pytest

from pitch_sdk.bot import Bot
from pitch_sdk.bots import POLICIES, BeginnerBot, GreedyBot, RandomBot
from pitch_sdk.bots.beginner import longest_suit
from pitch_sdk.cards import HEARTS, SPADES, parse_cards
from pitch_sdk.selfplay import play_game
from pitch_sdk.views import PlayerView


class CheckedBeginner(BeginnerBot):
    """BeginnerBot that asserts each answer is one of the legal actions it was offered."""

    def decide(self, view: PlayerView):
        action = super().decide(view)
        assert action in view.legal_actions, f"{action} not legal in {view.legal_actions}"
        return action


def test_registered_as_beginner() -> None:
    assert POLICIES["beginner"] is BeginnerBot


@pytest.mark.parametrize("seed", range(6))
def test_every_answer_is_legal_and_no_game_has_a_fault(seed: int) -> None:
    bots = [CheckedBeginner(seat) for seat in range(4)]
    record = play_game(bots, seed=seed, first_dealer=seed % 4)
    assert not record.faults


def test_names_the_suit_it_holds_most_trumps_of() -> None:
    hand = parse_cards("2H 5H 9H KH JD 3S 4C AC JK")  # hearts: 2 5 9 K, the Jick, the joker
    assert longest_suit(hand) == HEARTS
    assert longest_suit(parse_cards("AS KS 4S 2S 3C")) == SPADES


def _pair_wins(strong: type[Bot], weak: type[Bot], pairs: int) -> int:
    """Games ``strong`` wins over ``pairs`` duplicate deal pairs (teams swapped)."""
    wins = 0
    for pair in range(pairs):
        for swapped in (False, True):
            first, second = (weak, strong) if swapped else (strong, weak)
            bots = [first(1), second(2), first(3), second(4)]
            winner = play_game(bots, seed=f"rung-{pair}").result.winner
            wins += winner == (1 if swapped else 0)
    return wins


def test_beats_random_play_and_loses_to_greedy_on_the_same_deals() -> None:
    assert _pair_wins(BeginnerBot, RandomBot, 10) >= 16
    assert _pair_wins(GreedyBot, BeginnerBot, 10) >= 16
