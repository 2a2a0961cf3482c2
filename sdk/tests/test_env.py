"""The PettingZoo environment (``pitch_sdk.env``): the PettingZoo conformance tests, exact
reproduction from a seed, the action encoding (set decisions card by card), rewards, and
the adapters between policies and bots."""

from __future__ import annotations

import importlib.util
import random
import re
import subprocess
import sys
import warnings
from dataclasses import FrozenInstanceError, fields
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from pitch_sdk.actions import Bid, Discard, PickUp, parse_action
from pitch_sdk.bots import GreedyBot, RandomBot
from pitch_sdk.cards import JOKER, SECOND_JOKER, parse_cards
from pitch_sdk.deck import deck_for
from pitch_sdk.env import (
    DONE,
    DecisionSteps,
    IllegalIdError,
    PitchEnv,
    PolicyBot,
    action_id,
    describe,
)
from pitch_sdk.env.actions import ACTION_COUNT, BID_IDS, DISCARD_IDS, PASS_ID, PICKUP_IDS
from pitch_sdk.env.observation import (
    BINARY_FIELDS,
    BINARY_SIZE,
    OBSERVATION_SIZE,
    OFFSET,
    SCALAR_FIELDS,
)
from pitch_sdk.progress import Phase
from pitch_sdk.replay import check
from pitch_sdk.rules import CHANCE, GameState
from pitch_sdk.selfplay import play_game
from pitch_sdk.views import PlayerView


def play_randomly(env: PitchEnv, seed: int, rng: random.Random) -> list[tuple]:
    """Play one game from ``reset(seed=seed)`` with random legal ids; every step's
    (agent, observation, mask, reward) before it is taken."""
    env.reset(seed=seed)
    seen = []
    for agent in env.agent_iter():
        observation, reward, terminated, _truncated, _info = env.last()
        seen.append((agent, observation["observation"], observation["action_mask"], reward))
        if terminated:
            env.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        env.step(int(legal[int(rng.random() * len(legal))]))
    return seen


def lowest_legal(observation: np.ndarray, mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def test_passes_the_pettingzoo_api_test() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the two expected of a Dict observation: docs/env.md
        api_test(PitchEnv(), num_cycles=1000)  # a random game lasts ~1,500 steps


def test_passes_the_pettingzoo_api_test_with_bots_in_two_seats() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(PitchEnv(bots={1: GreedyBot(), 3: GreedyBot()}), num_cycles=1000)


def test_passes_the_pettingzoo_seed_test() -> None:
    seed_test(PitchEnv, num_cycles=1000)


def test_passes_the_seed_test_with_random_bots_in_two_seats() -> None:
    seed_test(lambda: PitchEnv(bots={1: RandomBot(), 3: RandomBot()}), num_cycles=1000)


def test_a_seed_reproduces_the_game_exactly() -> None:
    env = PitchEnv()
    first = play_randomly(env, 11, random.Random(1))
    record = env.record()
    again = play_randomly(env, 11, random.Random(1))
    assert env.record() == record
    assert len(first) == len(again)
    for (agent, observation, mask, reward), (agent2, observation2, mask2, reward2) in zip(
        first, again, strict=True
    ):
        assert (agent, reward) == (agent2, reward2)
        assert np.array_equal(observation, observation2) and np.array_equal(mask, mask2)


def test_resets_without_a_seed_follow_on_from_the_last_seed() -> None:
    first, second = PitchEnv(), PitchEnv()
    first.reset(seed=3)
    second.reset(seed=3)
    first.reset()
    second.reset()
    assert first.game_seed == second.game_seed != 3
    assert first.record().hands[0].deck == second.record().hands[0].deck


def test_the_game_of_a_seed_is_dealt_as_pitch_simulate_deals_it() -> None:
    env = PitchEnv()
    env.reset(seed=7)
    simulated = play_game([GreedyBot() for _ in range(4)], seed=7)
    assert env.record().hands[0].deck == simulated.hands[0].deck


def test_a_played_game_is_a_legal_game_whose_record_replays() -> None:
    env = PitchEnv()
    play_randomly(env, 5, random.Random(5))
    record = env.record()
    assert check(record).ok
    assert record.result is not None


def test_an_agent_is_never_asked_a_question_with_one_answer() -> None:
    env = PitchEnv()
    seen = play_randomly(env, 8, random.Random(8))
    asked = [mask for *_, mask, _reward in seen if mask.any()]
    assert asked and all(mask.sum() >= 2 for mask in asked)
    decisions = [d for hand in env.record().hands for d in hand.decisions]
    assert any(decision.forced for decision in decisions)  # the table took those


def test_hand_rewards_add_up_to_the_final_score_difference_for_each_team() -> None:
    env = PitchEnv()
    seen = play_randomly(env, 9, random.Random(9))
    total = {agent: 0.0 for agent in env.possible_agents}
    for agent, _observation, _mask, reward in seen:
        total[agent] += reward  # last() gives what accrued since the agent's last step
    scores = env.record().hands[-1].score.scores
    assert total["seat_0"] == total["seat_2"] == scores[0] - scores[1]
    assert total["seat_1"] == total["seat_3"] == scores[1] - scores[0]


def test_game_rewards_are_one_for_the_winners_and_minus_one_for_the_losers() -> None:
    env = PitchEnv(reward="game")
    seen = play_randomly(env, 4, random.Random(4))
    winner = env.record().result.winner
    final = {agent: reward for agent, *_rest, reward in seen[-4:]}
    assert final == {f"seat_{seat}": 1.0 if seat % 2 == winner else -1.0 for seat in range(4)}
    assert all(reward == 0 for *_rest, reward in seen[:-4])


def test_bot_seats_are_played_by_the_table_and_are_not_agents() -> None:
    env = PitchEnv(bots={1: GreedyBot(), 3: GreedyBot()})
    seen = play_randomly(env, 2, random.Random(2))
    assert env.possible_agents == ["seat_0", "seat_2"]
    assert {agent for agent, *_ in seen} == {"seat_0", "seat_2"}
    assert [player.name for player in env.record().players][1::2] == ["greedy", "greedy"]
    assert check(env.record()).ok


def test_bots_only_in_seats_zero_to_three_and_never_in_all_four() -> None:
    with pytest.raises(ValueError, match="the seats are 0-3"):
        PitchEnv(bots={4: GreedyBot()})
    with pytest.raises(ValueError, match="every seat is a bot"):
        PitchEnv(bots={seat: GreedyBot() for seat in range(4)})


def test_an_id_the_mask_does_not_allow_is_refused_and_changes_nothing() -> None:
    env = PitchEnv()
    env.reset(seed=1)
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"].copy()
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(IllegalIdError, match="not legal now"):
        env.step(illegal)
    assert env.agent_selection == agent
    assert np.array_equal(env.observe(agent)["action_mask"], mask)


def test_the_first_observation_holds_the_seats_own_cards_phase_dealer_and_legal_bids() -> None:
    env = PitchEnv()
    env.reset(seed=6)
    seat = int(env.agent_selection.removeprefix("seat_"))
    view = env._table.state.view(seat)
    observation = env.observe(env.agent_selection)
    vector, mask = observation["observation"], observation["action_mask"]
    assert vector.shape == (OBSERVATION_SIZE,) and mask.shape == (ACTION_COUNT,)
    hand = vector[OFFSET["hand"] : OFFSET["hand"] + 54]
    assert sum(1 << card for card in np.flatnonzero(hand)) == view.hand
    assert np.flatnonzero(vector[OFFSET["phase"] : OFFSET["phase"] + 8]).tolist() == [Phase.BID]
    dealer = np.flatnonzero(vector[OFFSET["dealer"] : OFFSET["dealer"] + 4]).tolist()
    assert dealer == [(view.dealer - seat) % 4]
    bids = [
        PASS_ID if action == Bid(0) else BID_IDS + action.amount - 4
        for action in view.legal_actions
    ]
    assert np.flatnonzero(mask).tolist() == sorted(bids)
    assert not vector[OFFSET["chosen"] : OFFSET["chosen"] + 54].any()
    assert vector[BINARY_SIZE:].tolist() == pytest.approx([0, 0, 0, 0, 1 / 200, 1, 0, 0, 0, 0, 0])


def test_every_observation_of_a_game_matches_the_seats_view_field_by_field() -> None:
    env = PitchEnv()
    env.reset(seed=13)
    rng = random.Random(13)
    checked = 0
    for agent in env.agent_iter():
        observation, _reward, terminated, _truncated, _info = env.last()
        if terminated:
            env.step(None)
            continue
        seat = int(agent.removeprefix("seat_"))
        view = env._table.state.view(seat)
        vector = observation["observation"]
        by_seat = [(seat + relative) % 4 for relative in range(4)]

        def cards(name: str, index: int = 0, vector=vector) -> int:
            start = OFFSET[name] + 54 * index
            return sum(1 << int(card) for card in np.flatnonzero(vector[start : start + 54]))

        def one_hot(name: str, width: int, index: int = 0, vector=vector) -> list[int]:
            start = OFFSET[name] + width * index
            return np.flatnonzero(vector[start : start + width]).tolist()

        assert cards("hand") == view.hand
        assert cards("centre") == view.centre
        for relative, other in enumerate(by_seat):
            assert cards("discarded_down", relative) == view.discarded_down[other]
            assert cards("picked", relative) == view.picked[other]
            in_trick = [card for who, card in view.trick if who == other]
            assert cards("trick", relative) == sum(1 << card for card in in_trick)
            done = [c for trick in view.tricks for who, c in trick.plays if who == other]
            assert cards("played", relative) == sum(1 << card for card in done)
            assert one_hot("hand_sizes", 10, relative) == [view.hand_sizes[other]]
            assert one_hot("fill_sizes", 7, relative) == [view.fill_sizes[other]]
        assert one_hot("trump", 4) == ([view.trump] if view.trump >= 0 else [])
        assert one_hot("bidder", 4) == ([by_seat.index(view.bidder)] if view.bidder >= 0 else [])
        assert one_hot("jokers_played", 3) == [view.jokers_played]
        team = seat % 2
        assert vector[OFFSET["taken"]] * 13 == pytest.approx(view.taken[team])
        assert vector[OFFSET["scores"] + 1] == pytest.approx(
            min(2, max(-1, view.scores[1 - team] / 55))
        )
        checked += 1
        legal = np.flatnonzero(observation["action_mask"])
        env.step(int(legal[int(rng.random() * len(legal))]))
    assert checked > 100


def test_an_observation_is_built_once_a_step_and_afresh_after_the_step() -> None:
    env = PitchEnv()
    env.reset(seed=6)
    agent = env.agent_selection
    first = env.last()[0]
    assert env.observe(agent) is first  # last() and observe() in one turn: one observation
    env.step(int(np.flatnonzero(first["action_mask"])[0]))
    after = env.observe(agent)
    assert after is not first and not after["action_mask"].any()  # no longer its turn


def test_environments_played_in_turn_observe_exactly_as_each_played_alone() -> None:
    alone = [play_randomly(PitchEnv(), seed, random.Random(seed)) for seed in (21, 22)]
    envs, rngs = [PitchEnv(), PitchEnv()], [random.Random(21), random.Random(22)]
    for env, seed in zip(envs, (21, 22), strict=True):
        env.reset(seed=seed)
    iterators = [iter(env.agent_iter()) for env in envs]
    seen: list[list[tuple]] = [[], []]
    while any(iterators):
        for at, env in enumerate(envs):  # one step of each in turn: the memos see both
            agent = next(iterators[at], None) if iterators[at] else None
            if agent is None:
                iterators[at] = None
                continue
            observation, reward, terminated, _truncated, _info = env.last()
            seen[at].append((agent, observation["observation"], observation["action_mask"], reward))
            legal = np.flatnonzero(observation["action_mask"])
            env.step(None if terminated else int(legal[int(rngs[at].random() * len(legal))]))
    for played, expected in zip(seen, alone, strict=True):
        assert len(played) == len(expected)
        for (agent, vector, mask, reward), (agent2, vector2, mask2, reward2) in zip(
            played, expected, strict=True
        ):
            assert (agent, reward) == (agent2, reward2)
            assert np.array_equal(vector, vector2) and np.array_equal(mask, mask2)


def test_views_are_the_frozen_dataclass_their_own_constructor_makes() -> None:
    state, rng = GameState(), random.Random(3)
    while not state.is_over() and state.hand_number < 3:
        if state.current_seat() == CHANCE:
            state.deal(deck_for(3, state.hand_number + 1))
            continue
        for seat in range(4):
            view = state.view(seat)  # made by views.make_view, slot by slot
            again = PlayerView(**{field.name: getattr(view, field.name) for field in fields(view)})
            assert view == again and hash(view) == hash(again)
            with pytest.raises(FrozenInstanceError):
                view.seat = 0  # type: ignore[misc]
        state.advance(rng.choice(state.legal_actions()))


def test_other_seats_see_no_legal_actions_and_only_their_own_cards() -> None:
    env = PitchEnv()
    env.reset(seed=6)
    others = [agent for agent in env.agents if agent != env.agent_selection]
    for agent in others:
        observation = env.observe(agent)
        assert not observation["action_mask"].any()
        hand = observation["observation"][OFFSET["hand"] : OFFSET["hand"] + 54]
        seat = int(agent.removeprefix("seat_"))
        assert sum(1 << int(card) for card in np.flatnonzero(hand)) == env._table.state.hands[seat]


def test_a_discard_is_chosen_card_by_card_in_ascending_order() -> None:
    legal = [parse_action(text) for text in ("discard 2H 3H", "discard 2H 4H", "discard 3H 4H")]
    steps = DecisionSteps(legal)
    two, three, four = (parse_cards(name).bit_length() - 1 for name in ("2H", "3H", "4H"))
    assert steps.legal_ids == [DISCARD_IDS + two, DISCARD_IDS + three]
    assert steps.take(DISCARD_IDS + two) is None
    assert steps.chosen == 1 << two
    assert steps.legal_ids == [DISCARD_IDS + three, DISCARD_IDS + four]
    assert steps.take(DISCARD_IDS + four) == Discard(parse_cards("2H 4H"))


def test_a_pick_up_ends_with_done_or_when_nothing_more_can_be_taken() -> None:
    legal = [parse_action(text) for text in ("pickup -", "pickup 3H", "pickup AH")]
    three, ace = (parse_cards(name).bit_length() - 1 for name in ("3H", "AH"))
    steps = DecisionSteps(legal)
    assert steps.legal_ids == [PICKUP_IDS + three, PICKUP_IDS + ace, DONE]
    assert DecisionSteps(legal).take(DONE) == PickUp(0)
    assert steps.take(PICKUP_IDS + three) == PickUp(1 << three)  # then only "done": taken


def test_both_jokers_are_one_card_slot_chosen_twice() -> None:
    legal = [parse_action(text) for text in ("discard JK JK", "discard 2H JK")]
    steps = DecisionSteps(legal)
    assert steps.take(DISCARD_IDS + JOKER) == Discard(1 << JOKER | 1 << SECOND_JOKER)
    assert steps.chosen == 1 << JOKER | 1 << SECOND_JOKER
    assert describe(DISCARD_IDS + JOKER) == "discard card JK"


def test_every_single_step_id_reads_back_as_its_action() -> None:
    card_steps = range(DISCARD_IDS, DONE + 1)  # discards and pick-ups: cards of a set
    for number in (n for n in range(ACTION_COUNT) if n not in card_steps):
        assert action_id(parse_action(describe(number))) == number


def test_the_ids_of_every_decision_in_games_are_those_action_id_gives() -> None:
    kinds = set()
    for seed in range(3):
        state = GameState()
        rng = random.Random(seed)
        while not state.is_over():
            if state.current_seat() == CHANCE:
                state.deal(deck_for(seed, state.hand_number + 1))
                continue
            legal = state.legal_actions()
            if not isinstance(legal[0], (Discard, PickUp)):
                kinds.add(type(legal[0]))
                assert DecisionSteps(legal).legal_ids == [action_id(a) for a in legal]
            state.advance(rng.choice(legal))
    assert len(kinds) == 4  # bids, trumps, stock choices, plays


def test_every_id_has_a_description_and_none_past_the_space() -> None:
    assert len({describe(number) for number in range(ACTION_COUNT)}) == ACTION_COUNT
    with pytest.raises(ValueError, match="no action has id"):
        describe(ACTION_COUNT)


def test_a_policy_bot_plays_exactly_as_the_same_policy_plays_in_the_environment() -> None:
    env = PitchEnv(bots={1: GreedyBot(), 3: GreedyBot()})
    env.reset(seed=5)
    for _agent in env.agent_iter():
        observation, _reward, terminated, _truncated, _info = env.last()
        env.step(None if terminated else lowest_legal(**_named(observation)))
    bots = [PolicyBot(lowest_legal), GreedyBot(), PolicyBot(lowest_legal), GreedyBot()]
    record = play_game(bots, seed=5, bot_seeds=[f"5:{seat}" for seat in range(4)])
    assert [hand.decisions for hand in record.hands] == [
        hand.decisions for hand in env.record().hands
    ]


def test_the_sample_policy_bot_folder_plays_a_game_that_replays() -> None:
    path = Path(__file__).parents[2] / "sample_bots" / "policy" / "policy.py"
    spec = importlib.util.spec_from_file_location("sample_policy", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    bots = [PolicyBot(module.policy), GreedyBot(), PolicyBot(module.policy), GreedyBot()]
    assert check(play_game(bots, seed=12)).ok


def _named(observation: dict) -> dict:
    return {"observation": observation["observation"], "mask": observation["action_mask"]}


def test_docs_list_every_observation_field_at_its_positions() -> None:
    docs = (Path(__file__).parents[2] / "docs" / "env.md").read_text()
    rows = re.findall(r"^\| ([\d-]+) \| `(\w+)` \|", docs, re.MULTILINE)
    listed = {name: positions for positions, name in rows}
    widths = [(name, width) for name, width in BINARY_FIELDS]
    widths += [(name, width) for name, width, _low, _high in SCALAR_FIELDS]
    expected = {
        name: str(OFFSET[name]) if width == 1 else f"{OFFSET[name]}-{OFFSET[name] + width - 1}"
        for name, width in widths
    }
    assert listed == expected


def test_the_benchmarks_floor_is_a_pettingzoo_environment_that_passes_the_api_test() -> None:
    path = Path(__file__).parents[2] / "bench" / "env.py"
    spec = importlib.util.spec_from_file_location("bench_env", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "observation is all zeros", no render()
        api_test(module.MinimalAEC(), num_cycles=2000)  # past GAME_STEPS: the end too


def test_the_sdk_imports_without_the_env_extra() -> None:
    code = (
        "import sys, pitch_sdk.selfplay, pitch_sdk.run, pitch_sdk.record, pitch_sdk.replay, "
        "pitch_sdk.determinize, pitch_sdk.bots; "
        "print(sorted(m for m in ('numpy', 'gymnasium', 'pettingzoo') if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"
