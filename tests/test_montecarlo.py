"""The montecarlo reference bot (``pitch_sdk.bots.montecarlo``): legal answers to every kind of
decision, inside its share of the time limit, the same answers for the same seed.

Quick by design: small budgets and few samples. How strong the bot is, is measured by
hand with ``pitch match`` (bench/RESULTS.md, ``## montecarlo``), never by a timed test.
"""

from __future__ import annotations

import time

import pytest

from pitch_sdk.actions import Bid, Decision
from pitch_sdk.bot import ask
from pitch_sdk.bots import GreedyBot
from pitch_sdk.bots.montecarlo import MonteCarloBot
from pitch_sdk.bots.montecarlo.rollout import choose
from pitch_sdk.bots.montecarlo.search import SPEND
from pitch_sdk.rules import GameState
from pitch_sdk.selfplay import play_game
from pitch_sdk.table import TimeBudget, TimeControl
from pitch_sdk.views import PlayerView
from pitch_testkit.views import views_of_every_kind as every_kind


@pytest.fixture(scope="module")
def views_of_every_kind() -> dict[Decision, tuple[PlayerView, ...]]:
    return every_kind()


def test_answers_every_kind_of_decision_with_a_legal_action(views_of_every_kind):
    bot = MonteCarloBot(seed=1, max_worlds=6)
    for kind, views in views_of_every_kind.items():
        assert views, f"no {kind.name} position found"
        for view in views:
            action = ask(bot, view, TimeBudget(limit_ms=200, reserve_ms=0))
            assert action in view.legal_actions, (kind, view, action)


def test_a_whole_game_with_a_tiny_time_limit_has_no_fault():
    bots = [MonteCarloBot(0), GreedyBot(1), MonteCarloBot(2), GreedyBot(3)]
    record = play_game(bots, seed=5, time_control=TimeControl(limit_ms=20, reserve_ms=0))
    assert record.faults == ()
    assert record.result.termination in ("target", "moon")


@pytest.mark.xdist_group("timing")  # wall time: never beside another timing test
def test_stays_inside_its_share_of_the_decision_limit(views_of_every_kind):
    # Bids search the most candidates over the longest playouts: the slowest decision.
    bot = MonteCarloBot(seed=2, max_worlds=10**6)
    limit_ms = 300
    for view in views_of_every_kind[Decision.BID]:
        started = time.perf_counter()
        ask(bot, view, TimeBudget(limit_ms=limit_ms, reserve_ms=10_000))
        elapsed_ms = (time.perf_counter() - started) * 1000
        assert elapsed_ms < limit_ms * SPEND + 25, elapsed_ms  # one sample's work of slack
        assert bot.last.worlds > 4  # the time was used, not only the minimum of samples


def test_the_same_seed_gives_the_same_choices_when_the_sample_cap_ends_the_search(
    views_of_every_kind,
):
    views = [view for views in views_of_every_kind.values() for view in views]
    budget = TimeBudget(limit_ms=60_000, reserve_ms=0)  # the cap, never the clock, stops
    first, second = MonteCarloBot(seed=7, max_worlds=12), MonteCarloBot(seed=7, max_worlds=12)
    assert [ask(first, view, budget) for view in views] == [
        ask(second, view, budget) for view in views
    ]


def test_rollout_passes_when_a_13_bid_leaves_nothing_to_bid():
    # A crash found in a match: a playout asked a seat to bid over 13.
    state = GameState()
    state.deal(range(54))
    state.advance(Bid(13))
    assert state.legal_actions() == (Bid(0),)
    assert choose(state, state.current_seat()) == Bid(0)
