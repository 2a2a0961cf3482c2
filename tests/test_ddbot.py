"""The ddbot reference bot (``pitch_sdk.bots.ddbot``): legal answers to every kind of
decision, in process and as a bot process over gRPC (``pitch check``), the same answers
for the same seed, the double-dummy answer where it is clear, and the scoring of a
solved hand as the rules score it.

Quick by design: few samples. How strong the bot is, is measured by hand with
``pitch match`` (bench/RESULTS.md, ``## ddbot``), never by a timed test.
"""

from __future__ import annotations

import random
import time
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pitch_referee.conformance import check_bot
from pitch_referee.manifest import load_manifest
from pitch_sdk import reference
from pitch_sdk.actions import Decision, Play
from pitch_sdk.analysis import solve
from pitch_sdk.bot import ask, start_game
from pitch_sdk.bots import GreedyBot
from pitch_sdk.bots.ddbot import DoubleDummyBot
from pitch_sdk.bots.ddbot import search as ddbot_search
from pitch_sdk.bots.ddbot.bank import KEPT_FOR_CARDS, MOST_SPEND, SAVED_AT_MOST, TimeBank
from pitch_sdk.bots.ddbot.search import MAX_WORLDS, search, to_the_play, value
from pitch_sdk.bots.montecarlo.rollout import play_out_hand
from pitch_sdk.bots.montecarlo.search import hand_value
from pitch_sdk.cards import TEAM_OF
from pitch_sdk.deck import shuffled_deck
from pitch_sdk.determinize import determinize
from pitch_sdk.options import RuleOptions
from pitch_sdk.progress import PLAYING
from pitch_sdk.rules import GameState
from pitch_sdk.selfplay import play_game
from pitch_sdk.table import GameStart, TimeBudget, TimeControl
from pitch_sdk.tally import SETTLE_AFTER
from pitch_sdk.views import PlayerView
from pitch_testkit.views import views_of_every_kind as every_kind

UNTIMED = TimeBudget(limit_ms=60_000, reserve_ms=0)
"""A budget the sample cap, never the clock, ends: the answers depend on the seed only."""


@pytest.fixture(scope="module")
def views_of_every_kind() -> dict[Decision, tuple[PlayerView, ...]]:
    return every_kind()


def test_answers_every_kind_of_decision_with_a_legal_action(views_of_every_kind):
    bot = DoubleDummyBot(seed=1, max_worlds=4)
    for kind, views in views_of_every_kind.items():
        assert views, f"no {kind.name} position found"
        for view in views:
            action = ask(bot, view, TimeBudget(limit_ms=200, reserve_ms=0))
            assert action in view.legal_actions, (kind, view, action)


def test_solves_every_kind_of_decision_when_the_time_allows(views_of_every_kind):
    bot = DoubleDummyBot(seed=1, max_worlds=3)
    for views in views_of_every_kind.values():
        ask(bot, views[0], UNTIMED)
        assert bot.last_solved is not None and bot.last_solved.worlds == 3


def test_a_decision_too_slow_to_solve_enough_samples_is_searched_by_rollouts(
    views_of_every_kind,
):
    # At 30 ms the spend is nothing: no first sample is done in its share of it.
    bot = DoubleDummyBot(seed=1)
    view = views_of_every_kind[Decision.BID][0]
    assert ask(bot, view, TimeBudget(limit_ms=30, reserve_ms=0)) in view.legal_actions
    assert bot.last_solved is None
    assert bot.last is not None and bot.last.worlds >= 4  # the rollouts' minimum


@pytest.mark.slow
def test_the_reference_bot_answers_every_kind_of_decision_over_grpc_in_time():
    report = check_bot(load_manifest(reference.folder("ddbot")))
    assert report.ok, (report.failures, report.stopped, report.not_asked)
    assert all(kind.asked and not kind.failed for kind in report.kinds.values())


def test_a_whole_game_with_a_tiny_time_limit_has_no_fault():
    bots = [DoubleDummyBot(0), GreedyBot(1), DoubleDummyBot(2), GreedyBot(3)]
    record = play_game(bots, seed=5, time_control=TimeControl(limit_ms=20, reserve_ms=0))
    assert record.faults == ()
    assert record.result.termination in ("target", "moon")


def test_the_same_seed_gives_the_same_choices_when_the_sample_cap_ends_the_search(
    views_of_every_kind,
):
    views = [view for views in views_of_every_kind.values() for view in views]
    first, second = DoubleDummyBot(seed=7, max_worlds=5), DoubleDummyBot(seed=7, max_worlds=5)
    assert [ask(first, view, UNTIMED) for view in views] == [
        ask(second, view, UNTIMED) for view in views
    ]


def _clear_play() -> tuple[PlayerView, Play]:
    """A play from a seeded game where one card is strictly best on every deal that
    agrees with the view (checked on 40 samples), and a rule of thumb would play another:
    the greedy bot's choice differs."""
    rng = random.Random(22)
    for _ in range(300):
        state, bots = GameState(), [GreedyBot(seat) for seat in range(4)]
        state.deal(shuffled_deck(rng))
        while state.decision() is not None:  # the first hand only
            view = state.view(state.to_move)
            choice = bots[state.to_move].decide(view)
            if state.phase is PLAYING and len(view.legal_actions) > 1:
                best = _best_on_every_sample(view)
                if best is not None and best != choice:
                    return view, best
            state.apply(choice)
    raise AssertionError("no clear position found")


def _best_on_every_sample(view: PlayerView) -> Play | None:
    """The card strictly best for the seat's team on each of 40 sampled deals, if one is."""
    team = TEAM_OF[view.seat]
    rng = random.Random(0)
    best = None
    for _ in range(40):
        world = determinize(view, rng)
        points = {}
        for action in view.legal_actions:
            state = world.copy()
            state.advance(action)
            points[action] = (
                solve(state).taken[team]
                if state.phase is PLAYING
                else state.hand_results[-1].points[team]
            )
        top = max(points.values())
        winners = [action for action, taken in points.items() if taken == top]
        if len(winners) > 1 or best not in (None, winners[0]):
            return None
        best = winners[0]
    return best


def test_plays_the_card_that_is_best_on_every_deal_where_greedy_plays_another():
    view, best = _clear_play()
    assert ask(DoubleDummyBot(seed=3, max_worlds=20), view, UNTIMED) == best


def test_a_clear_choice_stops_sampling_once_settled_not_at_the_cap():
    view, best = _clear_play()
    bot = DoubleDummyBot(seed=3)
    assert ask(bot, view, UNTIMED) == best
    assert bot.last_solved is not None
    assert SETTLE_AFTER <= bot.last_solved.worlds < MAX_WORLDS


def test_past_its_deadline_a_search_goes_on_to_enough_samples_on_borrowed_time():
    view, _ = _clear_play()
    now = time.perf_counter()
    borrowed = search(view, view.legal_actions, random.Random(1), now, extended=now + 600, enough=5)
    assert borrowed is not None and borrowed.worlds == 5
    # without the loan, the first sample shows that 5 would not fit: the search gives up
    assert search(view, view.legal_actions, random.Random(1), now, enough=5) is None


def test_a_search_gives_up_on_a_later_sample_when_its_pace_shows_enough_would_not_fit(
    monkeypatch,
):
    # a clock that only the samples move: the first costs 1 s, every later one 10 s
    view, _ = _clear_play()
    clock = [0.0]

    def costly(view: PlayerView, rng: random.Random) -> GameState:
        clock[0] += 10 if clock[0] else 1
        return determinize(view, rng)

    monkeypatch.setattr(ddbot_search, "determinize", costly)
    monkeypatch.setattr(ddbot_search, "time", SimpleNamespace(perf_counter=lambda: clock[0]))
    # 32 samples in 100 s: the first (1 s) keeps the pace, the second (11 s in all) not
    assert search(view, view.legal_actions, random.Random(1), 100.0, enough=32) is None
    assert clock[0] == 11


@pytest.mark.xdist_group("timing")  # wall time: never beside another timing test
def test_a_decision_stays_within_its_limit_with_the_bank_full(views_of_every_kind):
    limit_ms = 400
    budget = TimeBudget(limit_ms=limit_ms, reserve_ms=10_000)
    bot = DoubleDummyBot(seed=4)
    for views in views_of_every_kind.values():
        for view in views:
            bot.bank.saved_s = limit_ms * SAVED_AT_MOST / 1000
            started = time.perf_counter()
            ask(bot, view, budget)
            assert (time.perf_counter() - started) * 1000 < limit_ms


SHARE = st.floats(0.0, 0.3)
"""A decision's share of its limit, in seconds (a 1000 ms limit's is 0.22)."""


@given(st.lists(st.tuples(SHARE, st.floats(0.0, 1.0)), max_size=60))
def test_decisions_that_keep_to_their_allowance_spend_no_more_than_their_shares(decisions):
    # each decision spends a fraction of what the bank allows it
    bank, budget = TimeBank(), TimeBudget(limit_ms=1000, reserve_ms=0)
    spent_in_all = shares_in_all = 0.0
    for share_s, fraction in decisions:
        kept_s = budget.limit_ms * KEPT_FOR_CARDS / 1000
        lendable_s = max(0.0, bank.saved_s - kept_s)
        assert bank.allowance(budget, share_s, KEPT_FOR_CARDS) <= share_s + lendable_s + 1e-9
        allowance_s = bank.allowance(budget, share_s)
        assert share_s <= allowance_s <= max(share_s, budget.limit_ms * MOST_SPEND / 1000)
        spent_s = allowance_s * fraction
        bank.record(budget, share_s, spent_s)
        spent_in_all += spent_s
        shares_in_all += share_s
        assert 0 <= bank.saved_s <= budget.limit_ms * SAVED_AT_MOST / 1000
    assert spent_in_all <= shares_in_all + 1e-9


def test_a_new_game_starts_with_nothing_saved():
    bot = DoubleDummyBot(seed=1)
    bot.bank.record(TimeBudget(limit_ms=1000, reserve_ms=0), 0.22, 0.02)
    assert bot.bank.saved_s > 0
    start_game(bot, GameStart("g", 0, RuleOptions(), (), 0, TimeControl(1000, 0), "seed"))
    assert bot.bank.saved_s == 0


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    scores=st.tuples(st.integers(-30, 60), st.integers(-30, 60)),
    scoring=st.sampled_from(["points", "bid"]),
    team=st.sampled_from([0, 1]),
)
def test_a_hand_is_valued_from_its_points_as_the_engine_scores_it(seed, scores, scoring, team):
    # value() scores a solved hand by the rules; the engine scores one played out.
    rng = random.Random(seed)
    state = GameState(RuleOptions(scoring=scoring))
    state.scores = scores
    state.deal(shuffled_deck(rng))
    state.advance(rng.choice(state.legal_actions()))
    to_the_play(state)
    if state.phase is not PLAYING:
        return  # a team had no trump: the engine scored the hand before any play
    played = state.copy()
    play_out_hand(played)
    assert value(state, played.hand_results[-1].points, team) == hand_value(state, played, team)
