"""The expected points of each choice of a decision before the play, on sampled deals:
known answers, samples consistent with what the seat knew, reproducibility, steps."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pitch_sdk.actions import Bid, Decision, StockMove
from pitch_sdk.analysis import choices, solve
from pitch_sdk.analysis.choices import choice_values, decision_values
from pitch_sdk.bots import GreedyBot, RandomBot
from pitch_sdk.cards import JOKER, JOKERS_MASK, SEATS, SECOND_JOKER, parse_card
from pitch_sdk.determinize import determinize
from pitch_sdk.gamerecord import GameRecord
from pitch_sdk.options import RuleOptions
from pitch_sdk.progress import PLAYING
from pitch_sdk.replay import Step, replay
from pitch_sdk.rules import GameState
from pitch_sdk.selfplay import play_game
from pitch_sdk.table import FaultPolicy
from pitch_sdk.views import PlayerView


def bidding_with(cards: Sequence[str]) -> GameState:
    """A first hand (dealer 0) in which seat 1, the first to bid, was dealt ``cards``."""
    mine = [parse_card(card) for card in cards]
    rest = [card for card in range(54) if card not in mine]
    deck = []
    for position in range(54):  # seat 1 gets positions 0-2, 12-14 and 24-26
        deck.append(mine.pop(0) if position % 12 < 3 and position < 36 else rest.pop(0))
    state = GameState()
    state.deal(deck)
    assert state.to_move == 1
    return state


def values_of(view: PlayerView, samples: int, seed: int) -> dict[str, choices.ChoiceValue]:
    return {value.action: value for value in choice_values(view, samples, random.Random(seed))}


def test_with_nothing_in_hand_passing_is_clearly_best_and_a_13_bid_is_set_on_every_sample() -> None:
    state = bidding_with(["4C", "5C", "6C", "4D", "5D", "6D", "4H", "5H", "6H"])
    values = values_of(state.view(1), 16, 1)
    best = max(values.values(), key=lambda value: value.value)
    assert best.action == "pass" and best.error == 0
    assert values["bid 13"].value == -13  # set on every sample
    assert best.value - values["bid 13"].value > 5 * values["bid 13"].error


def test_with_the_top_trumps_a_bid_high_enough_to_keep_the_contract_is_clearly_best() -> None:
    state = bidding_with(["AH", "KH", "QH", "JH", "JD", "3H", "3D", "5C", "6C"])
    values = values_of(state.view(1), 16, 2)
    best = max(values.values(), key=lambda value: value.value)
    assert best.action in ("bid 10", "bid 11", "bid 12")  # the greedy bots bid up to 10
    assert best.value - values["pass"].value > 2 * values["pass"].error > 0
    assert best.value - values["bid 13"].value > 2 * values["bid 13"].error > 0


def test_choices_with_the_same_outcome_on_every_sample_tie_exactly() -> None:
    # All the choices see the same samples: pass, bid 4, 5 and 6 are outbid on every one
    # of these, so the hand goes the same way and their values and errors are equal.
    state = bidding_with(["4C", "5C", "6C", "4D", "5D", "6D", "4H", "5H", "6H"])
    values = values_of(state.view(1), 8, 3)
    assert [value.action for value in values.values()] == [str(a) for a in state.legal_actions()]
    tied = {(values[action].value, values[action].error) for action in ("pass", "bid 4", "bid 6")}
    assert len(tied) == 1 and values["bid 13"].value == -13


def test_a_set_costs_the_bidding_team_its_bid_while_the_defenders_add_what_they_take() -> None:
    state = bidding_with(["4C", "5C", "6C", "4D", "5D", "6D", "4H", "5H", "6H"])
    state.apply(Bid(13))
    (defenders,) = values_of(state.view(2), 8, 4).values()  # a pass, the only choice
    state.apply(Bid(0))
    (bidders,) = values_of(state.view(3), 8, 4).values()
    assert bidders.value == -13  # the bidder's partner: its team set on every sample
    assert 0 < defenders.value <= 13


def test_a_card_to_play_is_valued_by_solving_the_rest_of_the_play_on_each_sample() -> None:
    record = play_game([GreedyBot() for _ in SEATS], 3, RuleOptions(hand_cap=1))
    event = next(  # a defender in the middle of a trick: its hand score is what it takes
        e
        for e in replay(record)
        if isinstance(e, Step) and e.before.decision() is Decision.PLAY and e.before.trick
        if len(e.before.legal_actions()) > 1 and e.seat % 2 != e.before.bidder % 2
    )
    view = event.before.view(event.seat)
    values = values_of(view, 4, 9)
    rng = random.Random(9)
    samples = [determinize(view, rng) for _ in range(4)]
    for action in view.legal_actions:
        points = 0
        for sample in samples:
            state = sample.copy()
            state.advance(action)
            points += (solve(state).taken if state.phase is PLAYING else state.taken)[
                event.seat % 2
            ]
        assert values[str(action)].value == points / 4


def random_game(seed: int) -> GameRecord:
    """A two-hand game of random bots, the same in every process (the bots are seeded)."""
    bot_seeds = [f"s{seed}-{seat}" for seat in SEATS]
    return play_game(
        [RandomBot() for _ in SEATS], seed, RuleOptions(hand_cap=2), bot_seeds=bot_seeds
    )


GAMES = {seed: random_game(seed) for seed in (0, 1, 2, 3, 4, 53)}  # in 53 a joker is given up


def choice_views(record: GameRecord) -> list[PlayerView]:
    return [
        event.before.view(event.seat)
        for event in replay(record)
        if isinstance(event, Step) and event.before.decision() is not Decision.PLAY
        if not event.forced
    ]


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(game=st.sampled_from(sorted(GAMES)), pick=st.integers(0, 10_000), seed=st.integers(0, 99))
def test_no_sampled_hand_holds_a_card_the_seat_saw_elsewhere(
    game: int, pick: int, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    views = choice_views(GAMES[game])
    view = views[pick % len(views)]
    drawn: list[GameState] = []

    def spy(seen: PlayerView, rng: random.Random) -> GameState:
        assert seen is view
        drawn.append(determinize(seen, rng))
        return drawn[-1].copy()

    with monkeypatch.context() as patch:
        patch.setattr(choices, "determinize", spy)
        choice_values(view, 2, random.Random(seed))
    played = 0
    for trick in view.tricks:
        played |= sum(1 << card for _, card in trick.plays)
    played |= sum(1 << card for _, card in view.trick)
    gone = 0  # what the seat put out of play in its own look: left, or given up
    for event in view.look:
        if event.seat == view.seat and event.move is not StockMove.STOP:
            gone |= 1 << (event.give_up if event.move is StockMove.TAKE else event.card)
    seen_elsewhere = view.hand | view.centre | played | gone
    assert len(drawn) == 2
    for sample in drawn:
        assert sample.view(view.seat) == view
        others = 0
        for seat in SEATS:
            if seat != view.seat:
                others |= sample.hands[seat]
                assert sample.hands[seat].bit_count() == view.hand_sizes[seat]
        # A joker is named by one code in an action whichever of the two was given up,
        # so the jokers are checked by count and every other card by code.
        assert not others & seen_elsewhere & ~JOKERS_MASK
        assert (others & JOKERS_MASK).bit_count() + (seen_elsewhere & JOKERS_MASK).bit_count() <= 2


def test_the_sampling_property_covers_a_joker_given_up_in_the_look() -> None:
    assert any(
        event.move is StockMove.TAKE and event.give_up in (JOKER, SECOND_JOKER)
        for view in choice_views(GAMES[53])
        for event in view.look
        if event.seat == view.seat
    )


@pytest.fixture(scope="module")
def faulty_game() -> dict:
    """Two greedy hands, seat 3 answering its first bid illegally (a substitute bid)."""

    class Faulty(GreedyBot):
        faulted = False

        def bid(self, view: PlayerView, legal: Sequence[Bid]) -> Bid:
            if not self.faulted:
                self.faulted = True
                return Bid(99)
            return super().bid(view, legal)

    bots = [GreedyBot(), GreedyBot(), GreedyBot(), Faulty()]
    record = play_game(bots, 2, RuleOptions(hand_cap=2), fault_policy=FaultPolicy.SUBSTITUTE)
    assert record.faults
    return record


def test_the_same_seed_gives_the_same_values_whether_the_game_or_its_hand_is_analysed(
    faulty_game: dict,
) -> None:
    whole = [d for d in decision_values(faulty_game, samples=3, seed=5) if d.hand == 2]
    again = list(decision_values(faulty_game, 2, samples=3, seed=5))
    other = list(decision_values(faulty_game, 2, samples=3, seed=6))
    assert whole == again and whole
    assert [d.choices for d in other] != [d.choices for d in again]


def test_a_decisions_cost_and_error_are_the_chosen_actions_against_the_best_choice(
    faulty_game: dict,
) -> None:
    values = list(decision_values(faulty_game, 1, samples=2, seed=1))
    kinds = {value.kind for value in values}
    assert {"bid", "trump"} <= kinds <= {"bid", "trump", "discard", "pickup", "stock"}
    for value in values:
        by_action = {choice.action: choice for choice in value.choices}
        assert value.value == max(choice.value for choice in value.choices)
        assert by_action[value.best].value == value.value
        assert value.cost == value.value - by_action[value.chosen].value >= 0
        assert value.error == by_action[value.chosen].error
        assert value.samples == 2 and len(value.choices) > 1
        if value.cost == 0:
            assert value.best == value.chosen


def test_too_few_samples_or_no_decision_are_refused_with_the_reason() -> None:
    state = bidding_with(["4C", "5C", "6C", "4D", "5D", "6D", "4H", "5H", "6H"])
    with pytest.raises(ValueError, match="at least 2 samples are needed to state an error"):
        choice_values(state.view(1), 1)
    with pytest.raises(ValueError, match="seat 2 has no decision to make now"):
        choice_values(state.view(2))
