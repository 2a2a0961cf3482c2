"""The viewer's timeline: the record expanded by the engine, checked against the record."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pitch_sdk.bots import GreedyBot, RandomBot
from pitch_sdk.cards import POINTS, card_name, cards_in, parse_card, team_of
from pitch_sdk.gamerecord import GameRecord, Player, RecordError
from pitch_sdk.options import RuleOptions
from pitch_sdk.record import GameRecorder
from pitch_sdk.replay import Dealt, Step, replay
from pitch_sdk.selfplay import play_game
from pitch_sdk.table import FaultPolicy
from pitch_testkit.viewer import IllegalPlayer, moon_record
from pitch_web.timeline import timeline as typed_timeline

SCORED_KEYS = ("bidder", "bid", "trump", "tricks", "points", "dead", "scores", "made")


def random_game(seed: int, hand_cap: int = 3, **rules: Any) -> dict[str, Any]:
    """A random game's record as its file holds it (JSON): what the timeline is checked
    against, and what a test cuts or tampers with."""
    bots = [RandomBot(f"{seed}:{seat}") for seat in range(4)]
    return play_game(bots, seed=seed, options=RuleOptions(hand_cap=hand_cap, **rules)).to_json()


def timeline(data: dict[str, Any], **options: Any) -> dict[str, Any]:
    """The timeline of a record file holding ``data``: read into types, then expanded."""
    return typed_timeline(GameRecord.from_json(data), **options)


def hands_of(steps: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The steps split at each deal (anything before the first deal is dropped)."""
    hands: list[list[dict[str, Any]]] = []
    for step in steps:
        if step["k"] == "deal":
            hands.append([])
        if hands:
            hands[-1].append(step)
    return hands


def cut(record: dict[str, Any], hand: int, decisions: int) -> dict[str, Any]:
    """The record as it stood after ``decisions`` decisions of hand ``hand`` (from 1)."""
    partial = copy.deepcopy(record)
    partial["hands"] = partial["hands"][:hand]
    last = partial["hands"][-1]
    last["decisions"] = last["decisions"][:decisions]
    if decisions < len(record["hands"][hand - 1]["decisions"]):
        for key in SCORED_KEYS:
            last.pop(key, None)
    partial["result"] = None
    return partial


# --- against the record ------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), hand_cap=st.integers(1, 4))
def test_the_timeline_agrees_with_the_record_and_its_prefixes_with_partial_records(seed, hand_cap):
    record = random_game(seed, hand_cap)
    steps = timeline(record)["steps"]

    assert steps[-1]["k"] == "end"
    assert steps[-1]["scores"] == record["result"]["scores"]
    assert steps[-1]["termination"] == record["result"]["termination"]
    for hand, hand_steps in zip(record["hands"], hands_of(steps), strict=True):
        plays = [step for step in hand_steps if step["k"] == "play"]
        tricks = [step["trick"] for step in plays if "trick" in step]
        assert [t["winner"] for t in tricks] == [t["winner"] for t in hand["tricks"]]
        trump = "CDHS".index(hand["trump"])
        for shown, recorded in zip(tricks, hand["tricks"], strict=True):
            cards = [parse_card(card) for _, card in recorded["plays"]]
            assert shown["points"] == sum(POINTS[trump][card] for card in cards)
        scored = hand_steps[-1 if hand_steps[-1]["k"] != "end" else -2]["scored"]
        held = [0, 0]  # the trumps still held when play stopped score for their holders
        for entry in scored["held"]:
            held[team_of(entry["seat"])] += entry["points"]
        by_team = [sum(t["teams"][team] for t in tricks) + held[team] for team in (0, 1)]
        assert by_team == hand["points"]
        assert all(sum(t["teams"]) == t["points"] for t in tricks)
        assert [step["card"] for step in plays] == [
            c for t in hand["tricks"] for _, c in t["plays"]
        ]
        scored = hand_steps[-1 if hand_steps[-1]["k"] != "end" else -2]["scored"]
        assert scored["points"] == hand["points"] and scored["scores"] == hand["scores"]
        assert scored["dead"] == hand["dead"] and scored["made"] == hand["made"]
        taken = [step["taken"] for step in hand_steps if "taken" in step]
        assert (taken[-1] if taken else [0, 0]) == hand["points"]

    decisions = [
        (number, index)
        for number, h in enumerate(record["hands"], 1)
        for index in range(len(h["decisions"]))
    ]
    hand, index = decisions[(seed * 7919) % len(decisions)]
    partial_steps = timeline(cut(record, hand, index))["steps"]
    assert partial_steps == steps[: len(partial_steps)]
    assert partial_steps[-1]["k"] != "end"


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_the_hands_rebuilt_from_the_steps_are_the_engines_after_every_step(seed):
    record = random_game(seed, hand_cap=2)
    events = replay(GameRecord.from_json(record))
    states = [
        e.state if isinstance(e, Dealt) else e.after for e in events if isinstance(e, Dealt | Step)
    ]
    steps = [step for step in timeline(record)["steps"] if step["k"] not in ("fault", "end")]
    hands: list[list[str]] = []
    for step, state in zip(steps, states, strict=True):
        if step["k"] == "deal":
            hands = [list(cards) for cards in step["hands"]]
        elif step["k"] == "play":
            hands[step["s"]].remove(step["card"])
        for seat, cards in step.get("hands", {}).items() if step["k"] != "deal" else ():
            hands[int(seat)] = list(cards)
        engine = [sorted(card_name(c) for c in cards_in(state.hands[seat])) for seat in range(4)]
        assert [sorted(cards) for cards in hands] == engine


def test_each_deal_gives_the_seats_the_cards_the_deck_order_says():
    record = random_game(5, hand_cap=2)
    deals = [step for step in timeline(record)["steps"] if step["k"] == "deal"]
    for hand, deal in zip(record["hands"], deals, strict=True):
        assert deal["dealer"] == hand["dealer"]
        for k in range(4):  # docs/record-format.md: the k-th seat left of the dealer
            seat = (hand["dealer"] + 1 + k) % 4
            dealt = [hand["deck"][12 * r + 3 * k + i] for r in range(3) for i in range(3)]
            assert sorted(deal["hands"][seat]) == sorted(dealt)


def test_the_trump_step_names_the_trump_order_and_the_point_cards():
    record = random_game(8, hand_cap=1)
    trump_step = next(step for step in timeline(record)["steps"] if step["k"] == "trump")
    trump = record["hands"][0]["trump"]
    assert trump_step["trump"] == trump
    assert len(trump_step["order"]) == 16  # 17 trumps, the two jokers written once
    assert trump_step["order"][0] == "A" + trump and trump_step["order"][-1] == "2" + trump
    assert sum(trump_step["points"].values()) == 12  # 13 with the second joker
    assert all(trump_step["points"][card] for card in ("J" + trump, "JK", "3" + trump))


def test_a_stock_step_shows_the_card_turned_and_given_up_and_the_pile_left():
    for seed in range(40):
        steps = timeline(random_game(seed, hand_cap=2))["steps"]
        takes = [step for step in steps if step["k"] == "stock" and step["move"] == "take"]
        if takes:
            break
    take = takes[0]
    assert take["a"] == f"take {take['give']}"
    assert take["card"] in take["hands"][str(take["s"])]
    assert take["give"] not in take["hands"][str(take["s"])] or take["give"] == "JK"


def test_a_moon_is_scored_as_one_with_the_trumps_still_held():
    record = moon_record().to_json()
    assert record["result"]["termination"] == "moon"
    steps = timeline(record)["steps"]
    scored = steps[-2]["scored"]
    assert scored["moon"] is True and scored["points"] == [0, 13] and scored["made"] is True
    assert {entry["seat"]: entry["points"] for entry in scored["held"]} == {1: 8, 3: 5}
    assert steps[-1] == {
        "k": "end", "termination": "moon", "winner": 1, "forfeited_by": None, "scores": [0, 13]
    }  # fmt: skip


# --- faults, forfeits, discrepancies --------------------------------------------------------


def test_a_forfeit_is_a_fault_step_then_the_end():
    bots = [RandomBot(0), IllegalPlayer(1), RandomBot(2), RandomBot(3)]
    record = play_game(bots, seed=4, options=RuleOptions(hand_cap=3)).to_json()
    assert record["result"]["termination"] == "forfeit"
    steps = timeline(record)["steps"]
    assert [step["k"] for step in steps[-2:]] == ["fault", "end"]
    assert steps[-2]["seat"] == 1 and steps[-2]["kind"] == "illegal_action"
    assert steps[-1]["forfeited_by"] == 1 and steps[-1]["winner"] == 0


def test_a_substitute_move_is_marked_after_its_fault():
    bots = [RandomBot(0), IllegalPlayer(1), RandomBot(2), RandomBot(3)]
    record = play_game(
        bots, seed=4, options=RuleOptions(hand_cap=1), fault_policy=FaultPolicy.SUBSTITUTE
    ).to_json()
    steps = timeline(record)["steps"]
    faults = [index for index, step in enumerate(steps) if step["k"] == "fault"]
    assert faults
    for index in faults:
        after = steps[index + 1]
        assert after["s"] == 1 and after.get("substitute") is True
    assert sum(1 for step in steps if step.get("substitute")) == len(faults)


def test_a_record_that_stops_replaying_gives_the_steps_up_to_there_and_says_why():
    record = random_game(2, hand_cap=1)
    decisions = record["hands"][0]["decisions"]
    plays = [i for i, d in enumerate(decisions) if d["action"].startswith("play")]
    decisions[plays[1]]["action"] = decisions[plays[0]]["action"]  # that card is gone
    shown = timeline(record)
    assert f"decision {plays[1] + 1}:" in shown["header"]["discrepancy"]
    assert [step["k"] for step in shown["steps"]].count("play") == 1
    assert shown["steps"][-1]["k"] == "play"


def test_a_malformed_record_is_a_record_error_naming_the_place():
    record = random_game(2, hand_cap=1)
    record["hands"][0]["deck"][0] = "ZZ"
    with pytest.raises(RecordError, match="hand 1: unreadable deck"):
        timeline(record)


# --- header and log lines -------------------------------------------------------------------


def test_the_header_names_players_teams_rules_and_result():
    record = random_game(3, hand_cap=1)
    header = timeline(record, game="m/games/pair-00000-a.json.gz")["header"]
    assert header["game"] == "m/games/pair-00000-a.json.gz"
    assert [(p["seat"], p["team"], p["name"]) for p in header["players"]] == [
        (0, 0, "random"), (1, 1, "random"), (2, 0, "random"), (3, 1, "random")
    ]  # fmt: skip
    assert header["rules"]["hand_cap"] == 1 and header["result"] == record["result"]
    assert header["discrepancy"] is None and header["first_dealer"] == 0


def test_log_lines_naming_a_decision_are_aligned_with_its_step():
    record = random_game(3, hand_cap=2)
    shown = timeline(
        record,
        logs=[
            {"seat": 1, "hand": 2, "decision": 0, "text": "first bid of hand 2"},
            {"seat": 2, "text": "no place named"},
            {"seat": 3, "hand": 9, "decision": 0, "text": "no such decision"},
        ],
    )
    first, unplaced, unknown = shown["logs"]
    step = shown["steps"][first["at"]]
    deal_of_hand_2 = next(i for i, s in enumerate(shown["steps"]) if s.get("hand") == 2)
    assert first["at"] == deal_of_hand_2 + 1 and step["k"] == "bid"
    assert first == {"s": 1, "t": "first bid of hand 2", "at": first["at"]}
    assert unplaced["at"] is None and unknown["at"] is None


def test_a_line_after_decisions_is_at_the_last_of_them_and_at_the_deal_after_none():
    record = random_game(3, hand_cap=2)
    shown = timeline(
        record,
        logs=[
            {"seat": 0, "hand": 2, "decision": 3, "asked": False, "text": "after three"},
            {"seat": 0, "hand": 2, "decision": 0, "asked": False, "text": "after the deal"},
            {"seat": 0, "hand": 0, "decision": 0, "asked": False, "text": "before any deal"},
        ],
    )
    after_three, after_deal, before = (line["at"] for line in shown["logs"])
    deal_of_hand_2 = next(i for i, s in enumerate(shown["steps"]) if s.get("hand") == 2)
    assert (after_three, after_deal, before) == (deal_of_hand_2 + 3, deal_of_hand_2, 0)


def test_lines_asked_for_a_failed_decision_are_at_its_fault_step_which_names_the_exception():
    bots = [RandomBot(0), IllegalPlayer(1), RandomBot(2), RandomBot(3)]
    record = play_game(bots, seed=4, options=RuleOptions(hand_cap=3)).to_json()
    fault = record["faults"][0]
    failed = {"seat": 1, "hand": fault["hand"], "decision": fault["decision"], "asked": True}
    shown = timeline(
        record,
        logs=[
            {**failed, "text": "Traceback (most recent call last):"},
            {**failed, "text": '  File "/bot/bot.py", line 3, in play'},
            {**failed, "text": "IndexError: list index out of range"},
            {**failed, "seat": 3, "text": "ValueError: another seat's"},
        ],
    )
    fault_step = next(i for i, step in enumerate(shown["steps"]) if step["k"] == "fault")
    assert [line["at"] for line in shown["logs"][:3]] == [fault_step] * 3
    assert shown["steps"][fault_step]["exception"] == "IndexError: list index out of range"


# --- size and speed ---------------------------------------------------------------------------


def test_a_200_hand_game_has_a_compact_timeline():
    """Its size only: how fast it is built is bench/web.py's to measure, not a test's."""
    bots = [GreedyBot(seat) for seat in range(4)]
    record = play_game(bots, seed=3, options=RuleOptions(hand_cap=200, target=10_000)).to_json()
    assert record["result"]["hands"] == 200
    size = len(json.dumps(timeline(record), separators=(",", ":")))
    assert size < 900_000, size  # measured: 654 KB (67 KB gzipped)


def test_a_bot_that_never_started_gives_its_fault_and_the_end_with_no_deal():
    recorder = GameRecorder(seed=3, players=[Player(s, "b", "1") for s in range(4)])
    recorder.fault(
        {"seat": 2, "kind": "start_failed", "detail": "no such file", "decision_kind": None}
    )
    recorder.forfeit(2)
    steps = typed_timeline(recorder.record())["steps"]
    assert [step["k"] for step in steps] == ["fault", "end"]
    assert steps[0]["hand"] == 0 and steps[1]["forfeited_by"] == 2 and steps[1]["winner"] == 1


def test_a_game_going_on_says_who_decides_next_and_a_finished_one_nobody():
    record = random_game(7, hand_cap=2)
    decisions = record["hands"][1]["decisions"]
    last = len(decisions) - 1
    to_act = {n: timeline(cut(record, 2, n))["header"]["to_act"] for n in (0, 5, last)}
    assert {n: entry["seat"] for n, entry in to_act.items()} == {
        n: decisions[n]["seat"] for n in to_act
    }
    assert to_act[0]["decision"] == "bid" and to_act[last]["decision"] == "play"
    assert timeline(record)["header"]["to_act"] is None
