"""Properties that must hold in every game: random legal play over many seeds.

Games are kept short with small ``hand_cap`` values so the whole suite stays fast; the
deals are the seeded ones (``deck_for``), the decisions uniformly random.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from pitch_sdk.actions import Decision, StockChoice, StockMove, parse_action
from pitch_sdk.bots import RandomBot
from pitch_sdk.cards import (
    ALL_CARDS,
    DECK_SIZE,
    DEUCE,
    JOKER,
    POINTS,
    STRENGTH,
    TRUMPS,
    cards_in,
    mask_of,
    mask_points,
    team_of,
)
from pitch_sdk.deck import deck_for
from pitch_sdk.gamerecord import GameRecord, RecordError
from pitch_sdk.options import RuleOptions
from pitch_sdk.progress import LOOKING
from pitch_sdk.replay import ReplayResult, check
from pitch_sdk.rules import CHANCE, TERMINAL, GameState
from pitch_sdk.selfplay import play_game
from pitch_testkit.hands import random_walk

seeds = st.integers(min_value=0, max_value=2**32)
options = st.builds(
    RuleOptions,
    scoring=st.sampled_from(["points", "bid"]),
    dealer_steal=st.booleans(),
    target=st.integers(min_value=5, max_value=60),
    hand_cap=st.integers(min_value=1, max_value=5),
)
dealers = st.integers(min_value=0, max_value=3)

FEW = settings(max_examples=8, deadline=None)
SOME = settings(max_examples=60, deadline=None)


def walk(seed: int, rules: RuleOptions, dealer: int = 0) -> Iterator[GameState]:
    """The state after every step of a random game (one object, changed in place)."""
    state = GameState(rules, first_dealer=dealer)
    yield from random_walk(state, random.Random(seed), seed)


def random_record(seed: int, rules: RuleOptions, dealer: int = 0) -> dict:
    """A random game's record as its file holds it (JSON), to read and tamper with."""
    bots = [RandomBot(f"{seed}:{seat}") for seat in range(4)]
    return play_game(bots, seed, rules, dealer).to_json()


def replay(data: dict) -> ReplayResult:
    """What a reader reports of a record file holding ``data``: the replay's verdict, or
    (for a record that does not read) the reading's error with no state."""
    try:
        return check(GameRecord.from_json(data))
    except RecordError as error:
        return ReplayResult(GameState(), str(error))


def places(state: GameState) -> list[int]:
    """Every place a card can be during a hand, as masks."""
    trick = mask_of(card for _, card in state.trick)
    played = mask_of(card for trick in state.tricks for _, card in trick.plays)
    return [
        *state.hands,
        mask_of(state.stock),
        mask_of(state.look_cards),
        state.centre,
        state.gone,
        trick,
        played,
    ]


# --- cards and points -----------------------------------------------------------------


@SOME
@given(seeds, options, dealers)
def test_every_card_is_in_exactly_one_place_at_every_step(
    seed: int, rules: RuleOptions, dealer: int
) -> None:
    for state in walk(seed, rules, dealer):
        masks = places(state)
        total = sum(mask.bit_count() for mask in masks)
        union = 0
        for mask in masks:
            union |= mask
        assert union == (1 << DECK_SIZE) - 1, f"a card is nowhere: {state!r}"
        assert total == DECK_SIZE, f"a card is in two places: {state!r}"
        # tuples hold no card twice either
        assert len(set(state.stock)) == len(state.stock)
        assert len(set(state.look_cards)) == len(state.look_cards)


@SOME
@given(seeds, options, dealers)
def test_points_taken_by_both_teams_and_dead_points_make_thirteen_in_every_hand(
    seed: int, rules: RuleOptions, dealer: int
) -> None:
    record = random_record(seed, rules, dealer)
    for hand in record["hands"]:
        assert min(hand["points"]) >= 0 and hand["dead"] >= 0
        assert sum(hand["points"]) + hand["dead"] == 13


@SOME
@given(seeds, options, dealers)
def test_points_are_the_tricks_points_plus_the_point_cards_still_held(
    seed: int, rules: RuleOptions, dealer: int
) -> None:
    """Re-derived from docs/rules.md at the end of every hand: trick points to the winner's
    team, the deuce to the team that played it, held point cards to the holder's team
    (only the team not out of trumps can still hold any)."""
    hands_seen = 0
    for state in walk(seed, rules, dealer):
        if len(state.hand_results) == hands_seen:
            continue
        hands_seen += 1
        trump = state.trump
        expected = [0, 0]
        for trick in state.tricks:
            for seat, card in trick.plays:
                owner = seat if card == DEUCE[trump] else trick.winner
                expected[team_of(owner)] += POINTS[trump][card]
        for seat in range(4):
            expected[team_of(seat)] += mask_points(state.hands[seat] & TRUMPS[trump], trump)
        assert list(state.hand_results[-1].points) == expected
        dead = mask_points(state.centre | state.gone, trump)
        assert state.hand_results[-1].dead == dead


@SOME
@given(seeds, options, dealers)
def test_every_trick_is_won_by_the_highest_trump_played(
    seed: int, rules: RuleOptions, dealer: int
) -> None:
    tricks_seen = 0
    for state in walk(seed, rules, dealer):
        if len(state.tricks) <= tricks_seen:
            tricks_seen = len(state.tricks)
            continue
        tricks_seen = len(state.tricks)
        jokers_before = sum(
            1 for trick in state.tricks[:-1] for _, card in trick.plays if card >= JOKER
        )
        trick = state.tricks[-1]
        ranks = []
        for seat, card in trick.plays:
            if card >= JOKER:
                # docs/rules.md: the first joker played in the hand is High, the second Low;
                # both between the Jick (12) and the ten (9).
                ranks.append((11 if jokers_before == 0 else 10, seat))
                jokers_before += 1
            else:
                ranks.append((STRENGTH[state.trump][card], seat))
        assert all(rank >= 0 for rank, _ in ranks), "a non-trump was played"
        assert trick.winner == max(ranks)[1]
        assert trick.plays[0][0] == trick.leader


# --- scoring and the end of the game ------------------------------------------------------


@SOME
@given(seeds, options, dealers)
def test_scores_follow_the_scoring_rules_and_every_game_ends_consistently(
    seed: int, rules: RuleOptions, dealer: int
) -> None:
    record = random_record(seed, rules, dealer)
    scores = [0, 0]
    for hand in record["hands"]:
        bidding = team_of(hand["bidder"])
        taken = hand["points"]
        made = taken[bidding] >= hand["bid"]
        assert hand["made"] == made
        if not made:
            scores[bidding] -= hand["bid"]
        else:
            scores[bidding] += taken[bidding] if rules.scoring == "points" else hand["bid"]
        scores[1 - bidding] += taken[1 - bidding]
        assert hand["scores"] == scores
    result = record["result"]
    assert result is not None, "the game did not end"
    last = record["hands"][-1]
    bidding = team_of(last["bidder"])
    over = [score >= rules.target for score in scores]
    termination, winner = result["termination"], result["winner"]
    if last["bid"] == 13 and last["points"][bidding] == 13:
        assert (termination, winner) == ("moon", bidding)
    elif all(over):
        assert (termination, winner) == ("target", bidding)
    elif any(over):
        assert (termination, winner) == ("target", over.index(True))
    else:
        assert termination == "hand_cap"
        assert len(record["hands"]) == rules.hand_cap
        assert winner == (None if scores[0] == scores[1] else int(scores[1] > scores[0]))
    # earlier hands ended nothing: no moon, nobody over the target
    for hand in record["hands"][:-1]:
        assert max(hand["scores"]) < rules.target
        assert not (hand["bid"] == 13 and hand["points"][team_of(hand["bidder"])] == 13)


@FEW
@given(seeds)
def test_a_game_with_the_default_rules_ends(seed: int) -> None:
    record = random_record(seed, RuleOptions())
    assert record["result"]["termination"] in ("target", "moon", "hand_cap")
    assert len(record["hands"]) <= 200


@SOME
@given(seeds, options)
def test_no_legal_actions_once_the_game_is_over(seed: int, rules: RuleOptions) -> None:
    *_, state = walk(seed, rules)
    assert state.is_over()
    assert state.current_seat() == TERMINAL
    assert state.legal_actions() == ()
    assert state.decision() is None


@SOME
@given(seeds, options)
def test_the_dealer_passes_left_after_every_hand(seed: int, rules: RuleOptions) -> None:
    record = random_record(seed, rules, dealer=seed % 4)
    assert [hand["dealer"] for hand in record["hands"]] == [
        (seed + index) % 4 for index in range(len(record["hands"]))
    ]


# --- records --------------------------------------------------------------------------


@SOME
@given(seeds, options, dealers)
def test_every_record_reads_back_from_its_json_file_form_as_the_same_typed_record(
    seed: int, rules: RuleOptions, dealer: int
) -> None:
    bots = [RandomBot(f"{seed}:{seat}") for seat in range(4)]
    record = play_game(bots, seed, rules, dealer)
    data = json.loads(json.dumps(record.to_json()))
    assert GameRecord.from_json(data) == record
    assert GameRecord.from_json(data).to_json() == data


@SOME
@given(seeds, options, dealers)
def test_replay_of_every_simulated_game_finds_no_discrepancy(
    seed: int, rules: RuleOptions, dealer: int
) -> None:
    record = random_record(seed, rules, dealer)
    result = replay(record)
    assert result.ok, result.discrepancy
    assert result.state.scores == tuple(record["result"]["scores"])


def _decisions(record: dict) -> list[tuple[int, int]]:
    """(hand number, decision number), both from 1, of every decision in ``record``."""
    return [
        (hand_number, number)
        for hand_number, hand in enumerate(record["hands"], start=1)
        for number in range(1, len(hand["decisions"]) + 1)
    ]


def _state_before(record: dict, hand_number: int, number: int) -> GameState:
    """The engine state just before decision ``number`` of hand ``hand_number``."""
    state = GameState(RuleOptions.from_dict(record["rules"]), record["first_dealer"])
    for index, hand in enumerate(record["hands"], start=1):
        state.deal(deck_for(record["seed"], index))
        for count, decision in enumerate(hand["decisions"], start=1):
            if (index, count) == (hand_number, number):
                return state
            state.apply(parse_action(decision["action"]))
    raise AssertionError("no such decision")


@SOME
@given(seeds, options, st.data())
def test_replay_reports_an_illegal_action_at_its_hand_and_decision(
    seed: int, rules: RuleOptions, data: st.DataObject
) -> None:
    record = random_record(seed, rules)
    hand_number, number = data.draw(st.sampled_from(_decisions(record)))
    decision = record["hands"][hand_number - 1]["decisions"][number - 1]
    state = _state_before(record, hand_number, number)
    # "bid 14" is never legal, and "pass" is of the wrong kind for a play
    decision["action"] = "bid 14" if state.decision() is not Decision.PLAY else "pass"
    result = replay(record)
    assert not result.ok
    assert result.discrepancy.startswith(f"hand {hand_number}, decision {number}: ")


@SOME
@given(seeds, options, st.data())
def test_replay_reports_a_play_changed_to_another_legal_play(
    seed: int, rules: RuleOptions, data: st.DataObject
) -> None:
    record = random_record(seed, rules)
    choices = [
        (hand_number, number)
        for hand_number, number in _decisions(record)
        if record["hands"][hand_number - 1]["decisions"][number - 1]["action"].startswith("play")
        and not record["hands"][hand_number - 1]["decisions"][number - 1]["forced"]
    ]
    if not choices:
        return
    hand_number, number = data.draw(st.sampled_from(choices))
    decision = record["hands"][hand_number - 1]["decisions"][number - 1]
    state = _state_before(record, hand_number, number)
    others = [str(a) for a in state.legal_actions() if str(a) != decision["action"]]
    decision["action"] = data.draw(st.sampled_from(others))
    result = replay(record)
    assert not result.ok
    assert re.match(rf"hand {hand_number}[,:]", result.discrepancy), result.discrepancy


@SOME
@given(seeds, options, st.data())
def test_replay_reports_a_changed_score_or_result(
    seed: int, rules: RuleOptions, data: st.DataObject
) -> None:
    record = random_record(seed, rules)
    hand_number = data.draw(st.integers(1, len(record["hands"])))
    tampered = {**record, "hands": [dict(hand) for hand in record["hands"]]}
    hand = tampered["hands"][hand_number - 1]
    team = data.draw(st.integers(0, 1))
    hand["scores"] = list(hand["scores"])
    hand["scores"][team] += data.draw(st.sampled_from([-1, 1, 13]))
    result = replay(tampered)
    assert result.discrepancy is not None
    assert result.discrepancy.startswith(f"hand {hand_number}: recorded scores")

    flipped = {**record, "result": {**record["result"], "winner": record["result"]["winner"]}}
    flipped["result"]["winner"] = 1 if record["result"]["winner"] == 0 else 0
    result = replay(flipped)
    assert result.discrepancy is not None
    assert result.discrepancy.startswith("result: recorded winner")


# --- privacy --------------------------------------------------------------------------


def _hidden_slots(state: GameState, viewer: int) -> list[tuple[str, int, int]]:
    """Where cards hidden from ``viewer`` lie: (place, index, card)."""
    slots = []
    for seat in range(4):
        if seat != viewer:
            slots += [("hand", seat, card) for card in ALL_CARDS if state.hands[seat] >> card & 1]
    slots += [("stock", index, card) for index, card in enumerate(state.stock)]
    seen_by_viewer = state.phase == LOOKING and state.current_seat() == viewer
    slots += [
        ("look", index, card)
        for index, card in enumerate(state.look_cards)
        if not (seen_by_viewer and index == 0)
    ]
    slots += [("gone", 0, card) for card in ALL_CARDS if state.gone >> card & 1]
    return slots


def _swap(state: GameState, first: tuple, second: tuple, viewer: int) -> None:
    """Exchange the cards of two hidden slots, and every trace of them hidden from
    ``viewer``: other seats' fills and the deal order."""
    a, b = first[2], second[2]
    _put(state, first, b)
    _put(state, second, a)
    swap = (1 << a) | (1 << b)
    state.fill = tuple(
        fill ^ swap if seat != viewer and (fill >> a & 1) != (fill >> b & 1) else fill
        for seat, fill in enumerate(state.fill)
    )
    state.deck = tuple(b if card == a else a if card == b else card for card in state.deck)
    # what another seat turned over and gave up in the look through the stock
    state.look_log = tuple(
        (seat, card, choice)
        if seat == viewer
        else (seat, (card + 1) % JOKER, _other_give_up(choice))
        for seat, card, choice in state.look_log
    )


def _other_give_up(choice: StockChoice) -> StockChoice:
    if choice.move is not StockMove.TAKE:
        return choice
    return StockChoice(StockMove.TAKE, (choice.give_up + 1) % JOKER)


def _put(state: GameState, slot: tuple[str, int, int], card: int) -> None:
    """Put ``card`` where ``slot`` says, in place of the card that was there."""
    place, index, old = slot
    if place == "hand":
        state.hands[index] ^= (1 << old) | (1 << card)
    elif place == "gone":
        state.gone ^= (1 << old) | (1 << card)
    else:
        name = "stock" if place == "stock" else "look_cards"
        cards = list(getattr(state, name))
        cards[index] = card
        setattr(state, name, tuple(cards))


@SOME
@given(seeds, options)
def test_a_seats_view_does_not_change_when_only_cards_hidden_from_it_change(
    seed: int, rules: RuleOptions
) -> None:
    rng = random.Random(seed)
    checked = 0
    for state in walk(seed, rules):
        if state.hand_number == 0:
            continue
        viewer = rng.randrange(4)
        slots = _hidden_slots(state, viewer)
        if len(slots) < 2:
            continue
        first, second = rng.sample(slots, 2)
        if first[2] == second[2] or (first[:2] == second[:2] and first[0] in ("hand", "gone")):
            continue  # the same card twice, or two cards of one mask: nothing would change
        changed = state.copy()
        _swap(changed, first, second, viewer)
        assert changed.key() != state.key()
        assert changed.view(viewer) == state.view(viewer), (first, second)
        checked += 1
    assert checked


@FEW
@given(seeds)
def test_a_seats_view_does_change_when_its_own_cards_change(seed: int) -> None:
    state = GameState()
    state.deal(deck_for(seed, 1))
    own, other = next(cards_in(state.hands[0])), next(cards_in(state.hands[1]))
    changed = state.copy()
    _swap(changed, ("hand", 0, own), ("hand", 1, other), viewer=2)
    assert changed.view(2) == state.view(2)
    assert changed.view(0) != state.view(0) and changed.view(0).hand >> other & 1


# --- the engine's doors: push/pop, copy, apply ------------------------------------------


@SOME
@given(seeds, options)
def test_pop_restores_the_key_after_every_push_and_deal(seed: int, rules: RuleOptions) -> None:
    rng = random.Random(seed)
    for state in walk(seed, rules):
        before = state.key()
        if state.current_seat() == CHANCE:
            state.deal(deck_for(seed, 1000 + state.hand_number))
        elif state.current_seat() >= 0:
            state.push(rng.choice(state.legal_actions()))
        else:
            continue
        assert state.key() != before
        state.pop()
        assert state.key() == before


@SOME
@given(seeds, options, st.integers(min_value=1, max_value=40))
def test_pops_undo_a_run_of_pushes_one_by_one(seed: int, rules: RuleOptions, steps: int) -> None:
    rng = random.Random(seed)
    state = GameState(rules)
    keys = []
    for _ in range(steps):
        if state.is_over():
            break
        keys.append(state.key())
        if state.current_seat() == CHANCE:
            state.deal(deck_for(seed, state.hand_number + 1))
        else:
            state.push(rng.choice(state.legal_actions()))
    while keys:
        state.pop()
        assert state.key() == keys.pop()
    assert state.hand_number == 0


@SOME
@given(seeds, options)
def test_copy_compares_equal_and_is_independent(seed: int, rules: RuleOptions) -> None:
    rng = random.Random(seed)
    for state in walk(seed, rules):
        if state.current_seat() < 0:
            continue
        clone = state.copy()
        assert clone == state and clone.key() == state.key()
        before = state.key()
        clone.apply(rng.choice(clone.legal_actions()))
        assert state.key() == before
        assert clone != state


@SOME
@given(seeds, options)
def test_every_legal_action_is_distinct_and_accepted_by_apply(
    seed: int, rules: RuleOptions
) -> None:
    for state in walk(seed, rules):
        if state.current_seat() < 0:
            continue
        legal = state.legal_actions()
        assert legal, "a seat to move with no legal action"
        assert len(set(map(str, legal))) == len(legal)
        for action in legal:
            state.copy().apply(action)


@SOME
@given(seeds, options)
def test_advance_and_push_reach_the_same_position(seed: int, rules: RuleOptions) -> None:
    rng = random.Random(seed)
    for state in walk(seed, rules):
        if state.current_seat() < 0:
            continue
        action = rng.choice(state.legal_actions())
        pushed, advanced = state.copy(), state.copy()
        pushed.push(action)
        advanced.advance(action)
        assert pushed.key() == advanced.key()


@SOME
@given(seeds, options)
def test_forced_decisions_are_recorded_as_forced(seed: int, rules: RuleOptions) -> None:
    record = random_record(seed, rules)
    state = GameState(rules)
    for index, hand in enumerate(record["hands"], start=1):
        state.deal(deck_for(seed, index))
        for decision in hand["decisions"]:
            assert decision["forced"] == (len(state.legal_actions()) == 1)
            state.apply(parse_action(decision["action"]))
    assert state.outcome is not None
