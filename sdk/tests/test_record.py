"""Game records: written while a game is played, read back, and replayed exactly."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from pitch_sdk.actions import parse_action
from pitch_sdk.bots import RandomBot
from pitch_sdk.deck import deck_for
from pitch_sdk.gamerecord import (
    FORMAT,
    MALFORMED,
    VERSION,
    GameRecord,
    Player,
    RecordError,
    parse_deck,
)
from pitch_sdk.options import RuleOptions
from pitch_sdk.progress import Termination
from pitch_sdk.record import GameRecorder, load_record, write_record
from pitch_sdk.replay import Dealt, ReplayResult, Step, check
from pitch_sdk.replay import replay as replay_steps
from pitch_sdk.selfplay import play_game

SHORT = RuleOptions(hand_cap=3)


def short_game(seed: int = 11, rules: RuleOptions = SHORT) -> dict:
    """A played game's record as its file holds it (JSON), to tamper with."""
    return play_game([RandomBot(f"{seed}:{seat}") for seat in range(4)], seed, rules).to_json()


def replay(data: dict) -> ReplayResult:
    """The verdict on a record file holding ``data``: read into types, then replayed.

    Raises:
        RecordError: ``data`` is not a well-formed record.
    """
    return check(GameRecord.from_json(data))


def forfeited_game(decisions: int = 7, seat: int | None = None) -> dict:
    """A game stopped by a forfeit in the middle of its second hand."""
    recorder = GameRecorder(seed=5, players=[Player(s, "x") for s in range(4)])
    bot = RandomBot(5)
    state = recorder.state
    while state.hand_number < 2 or len(recorder.record().hands[-1].decisions) < decisions:
        if state.current_seat() == -1:
            recorder.deal()
        else:
            recorder.decide(bot.rng.choice(state.legal_actions()))
    faulty = state.current_seat() if seat is None else seat
    recorder.fault({"seat": faulty, "kind": "timeout", "detail": "no answer in 1 s"})
    recorder.forfeit(faulty)
    return recorder.record().to_json()


# --- writing and reading --------------------------------------------------------------


def test_record_round_trips_through_write_record_and_load_record(tmp_path: Path) -> None:
    record = GameRecord.from_json(short_game())
    path = tmp_path / "game.json"
    write_record(record, path)
    assert load_record(path) == record
    assert check(load_record(path)).ok
    assert [p.name for p in tmp_path.iterdir()] == ["game.json"]  # no temporary file left


def test_record_holds_rules_seed_decks_decisions_and_result() -> None:
    record = short_game(rules=RuleOptions(hand_cap=2, dealer_steal=True))
    assert (record["format"], record["version"]) == (FORMAT, VERSION)
    assert record["rules"] == {
        "scoring": "points",
        "dealer_steal": True,
        "target": 55,
        "hand_cap": 2,
    }
    assert record["seed"] == 11
    for number, hand in enumerate(record["hands"], start=1):
        assert hand["number"] == number
        assert parse_deck(hand["deck"]) == _canonical(deck_for(11, number))
        assert all(set(d) >= {"seat", "action", "forced"} for d in hand["decisions"])
        assert sum(hand["points"]) + hand["dead"] == 13
    assert record["result"]["hands"] == len(record["hands"])
    assert record["result"]["scores"] == record["hands"][-1]["scores"]


def _canonical(deck: list[int]) -> list[int]:
    """A deck as a record writes it: the first joker in deck order is named first."""
    jokers = iter((52, 53))
    return [next(jokers) if card >= 52 else card for card in deck]


def test_forced_decisions_are_marked_in_the_record() -> None:
    record = short_game()
    forced = [d for hand in record["hands"] for d in hand["decisions"] if d["forced"]]
    assert forced, "a game always has forced decisions (the last trump of a hand)"
    assert any(d["action"] == "pass" for d in forced) or any(
        d["action"].startswith("play") for d in forced
    )


def test_load_record_of_a_missing_file_raises_record_error(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="no such record file"):
        load_record(tmp_path / "missing.json")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'{"format": "pitch-game-record", "version": 1', "not a readable JSON game record"),
        (b"\xff\xfe\x00garbage", "not a readable JSON game record"),
        (b"[1, 2, 3]", "not a pitch game record"),
        (b'{"format": "chess", "version": 1}', "not a pitch game record"),
        (b'{"format": "pitch-game-record", "version": 2}', "record version 2; this tool reads"),
        (b'{"format": "pitch-game-record"}', "record version None"),
    ],
    ids=["truncated", "binary", "list", "other-format", "version-2", "no-version"],
)
def test_load_record_of_a_corrupt_file_raises_record_error_naming_the_file(
    tmp_path: Path, content: bytes, message: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(RecordError, match=message) as raised:
        load_record(path)
    assert str(path) in str(raised.value)


def test_recorder_without_a_seed_needs_explicit_decks() -> None:
    recorder = GameRecorder()
    with pytest.raises(ValueError, match="without a seed needs explicit deck orders"):
        recorder.deal()
    recorder.deal(list(range(54)))
    assert recorder.record().to_json()["hands"][0]["deck"][:2] == ["2C", "3C"]
    assert check(recorder.record()).ok


# --- replay ---------------------------------------------------------------------------


def test_replay_of_an_untouched_record_agrees_with_it() -> None:
    record = short_game()
    result = replay(record)
    assert result.ok and result.discrepancy is None
    assert result.state.is_over()
    assert list(result.state.scores) == record["result"]["scores"]


def test_replay_reports_the_first_discrepancy_with_hand_and_decision_number() -> None:
    record = short_game()
    tampered = copy.deepcopy(record)
    second = tampered["hands"][1]["decisions"]
    true_seat = second[2]["seat"]
    second[2]["seat"] = (true_seat + 1) % 4
    tampered["hands"][2]["decisions"][0]["seat"] = 9  # a later discrepancy, not reported
    result = replay(tampered)
    assert result.discrepancy == (
        f"hand 2, decision 3: recorded seat {(true_seat + 1) % 4}, the engine says {true_seat}"
    )
    assert result.state.hand_number == 2  # the state where replay stopped


def test_replay_reports_an_illegal_recorded_action() -> None:
    record = copy.deepcopy(short_game())
    record["hands"][0]["decisions"][0]["action"] = "bid 3"
    result = replay(record)
    assert result.discrepancy is not None
    assert result.discrepancy.startswith("hand 1, decision 1: bid 3 is not legal for seat 1")


def test_replay_reports_an_unreadable_recorded_action() -> None:
    record = copy.deepcopy(short_game())
    record["hands"][0]["decisions"][1]["action"] = "bid lots"
    with pytest.raises(
        RecordError,
        match=r"^not a well-formed game record: hand 1, decision 2: cannot read action 'bid lots'",
    ):
        replay(record)


def test_replay_reports_a_wrong_forced_flag() -> None:
    record = copy.deepcopy(short_game())
    decisions = record["hands"][0]["decisions"]
    number = next(i for i, d in enumerate(decisions, start=1) if d["forced"])
    decisions[number - 1]["forced"] = False
    result = replay(record)
    assert result.discrepancy == (
        f"hand 1, decision {number}: recorded forced flag False, the engine says True"
    )


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("bidder", 9, "recorded bidder 9"),
        ("trump", "X", "recorded trump 'X'"),
        ("points", [13, 13], "recorded points [13, 13]"),
        ("dead", 99, "recorded dead points 99"),
        ("scores", [99, 99], "recorded scores [99, 99]"),
        ("tricks", [], "recorded tricks ()"),
    ],
)
def test_replay_reports_a_changed_hand_fact(key: str, value: object, message: str) -> None:
    record = copy.deepcopy(short_game())
    record["hands"][1][key] = value
    result = replay(record)
    assert result.discrepancy is not None
    assert result.discrepancy.startswith(f"hand 2: {message}")


def test_replay_reports_a_deck_that_is_not_the_seeds() -> None:
    record = copy.deepcopy(short_game())
    deck = record["hands"][0]["deck"]
    deck[0], deck[1] = deck[1], deck[0]
    result = replay(record)
    assert result.discrepancy is not None
    assert result.discrepancy.startswith("hand 1: recorded deck order")


def test_replay_reports_an_unreadable_deck() -> None:
    record = copy.deepcopy(short_game())
    record["seed"] = None
    record["hands"][0]["deck"][5] = "ZZ"
    with pytest.raises(
        RecordError, match=r"^not a well-formed game record: hand 1: unreadable deck"
    ):
        replay(record)


def test_replay_reports_a_changed_result() -> None:
    record = copy.deepcopy(short_game())
    record["result"]["scores"] = [1, 2]
    result = replay(record)
    assert result.discrepancy is not None
    assert result.discrepancy.startswith("result: recorded scores [1, 2]")


def test_replay_reports_a_finished_hand_whose_decisions_were_cut_short() -> None:
    record = copy.deepcopy(short_game())
    del record["hands"][0]["decisions"][-1]
    result = replay(record)
    assert result.discrepancy == ("hand 1: recorded as finished, but the engine says it goes on")


def test_replay_reports_an_unfinished_hand_followed_by_another() -> None:
    record = copy.deepcopy(short_game())
    first = record["hands"][0]
    del first["decisions"][-1]
    for key in ("bidder", "bid", "trump", "tricks", "points", "dead", "scores", "made"):
        del first[key]
    result = replay(record)
    assert result.discrepancy == "hand 2: recorded, but hand 1 was not finished"


def test_replay_reports_a_finished_hand_recorded_as_unfinished() -> None:
    record = copy.deepcopy(short_game())
    del record["hands"][0]["scores"]
    result = replay(record)
    assert result.discrepancy == "hand 1: recorded as unfinished, but the engine says it ended"


def test_replay_reports_a_hand_after_the_end_of_the_game() -> None:
    record = copy.deepcopy(short_game())
    record["hands"].append(copy.deepcopy(record["hands"][-1]))
    result = replay(record)
    assert result.discrepancy == "hand 4: recorded, but the game was already over"


def test_replay_reports_a_finished_game_recorded_as_unfinished() -> None:
    record = copy.deepcopy(short_game())
    record["result"] = None
    result = replay(record)
    assert result.discrepancy == "result: recorded as unfinished, but the engine says it is over"


def test_replay_of_a_game_in_progress_is_fine() -> None:
    recorder = GameRecorder(seed=2)
    recorder.deal()
    for action in ("pass", "bid 5", "pass"):
        recorder.decide(parse_action(action))
    assert check(recorder.record()).ok


def test_a_record_with_unknown_rule_options_is_refused_as_malformed() -> None:
    record = copy.deepcopy(short_game())
    record["rules"]["trumps"] = "always hearts"
    with pytest.raises(
        RecordError, match=r"^not a well-formed game record: rules: unknown rule option 'trumps'"
    ):
        replay(record)


def _set(path: tuple, value: object):
    """A change to a record: ``record[path[0]][path[1]]... = value``."""

    def change(record: dict) -> None:
        *inner, last = path
        target = record
        for key in inner:
            target = target[key]
        target[last] = value

    return change


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (_set(("hands", 0, "deck"), ["AS"] * 54), "hand 1: the deck should hold each of the 54"),
        (lambda r: r["hands"][0]["deck"].pop(), "hand 1: the deck should hold each of the 54"),
        (_set(("hands", 0, "deck", 3), 7), "hand 1: unreadable deck (every card should be"),
        (_set(("hands", 1, "decisions", 0, "action"), "fly"), "hand 2, decision 1: cannot read"),
        (_set(("hands", 1, "decisions", 0, "seat"), "one"), "hand 2, decision 1: 'seat' should"),
        (_set(("hands", 1, "decisions", 0), 5), "hand 2, decision 1: should be an object"),
        (_set(("hands", 0, "decisions"), "x"), "hand 1: 'decisions' should be a list, found 'x'"),
        (lambda r: r["hands"][0].pop("number"), "hand 1: 'number' is missing"),
        (_set(("hands",), 3), "record: 'hands' should be a list, found 3"),
        (lambda r: r.pop("first_dealer"), "record: 'first_dealer' is missing"),
        (_set(("first_dealer",), 4), "record: 'first_dealer' should be a seat, 0 to 3"),
        (_set(("first_dealer",), True), "record: 'first_dealer' should be a whole number"),
        (_set(("seed",), [1]), "record: 'seed' should be a whole number or a string"),
        (_set(("result",), "won"), "record: 'result' should be an object, found 'won'"),
        (_set(("faults",), [{"hand": 1}]), "faults[0]: 'decision' is missing"),
        (_set(("players",), [1]), "players[0]: should be an object, found 1"),
        (_set(("hands", 1, "made"), None), "hand 2: 'made' should be true or false, found None"),
        (_set(("hands", 1, "points"), [1]), "hand 2: 'points' should be two whole numbers"),
        (_set(("result", "forfeited_by"), 7), "result: 'forfeited_by' should be a seat"),
    ],
)
def test_a_record_that_cannot_be_walked_is_refused_naming_the_place(change, message) -> None:
    record = copy.deepcopy(short_game())
    change(record)
    with pytest.raises(RecordError) as refused:
        replay(record)
    assert str(refused.value).startswith(f"{MALFORMED}: {message}")


def test_a_readable_record_the_engine_disputes_reads_and_replays_to_a_discrepancy() -> None:
    record = copy.deepcopy(short_game())
    record["hands"][0]["decisions"][0]["action"] = "bid 3"
    result = replay(record)
    assert not result.ok


# --- forfeits -------------------------------------------------------------------------


def test_a_forfeit_record_replays_without_discrepancy(tmp_path: Path) -> None:
    record = forfeited_game()
    assert record["result"]["termination"] == Termination.FORFEIT.value
    faulty = record["result"]["forfeited_by"]
    assert record["result"]["winner"] == 1 - faulty % 2
    assert record["faults"] == [
        {
            "hand": 2,
            "decision": 7,
            "seat": faulty,
            "kind": "timeout",
            "detail": "no answer in 1 s",
            "decision_kind": None,
        }
    ]
    assert "scores" not in record["hands"][-1]  # the hand was cut short
    path = tmp_path / "forfeit.json"
    write_record(GameRecord.from_json(record), path)
    result = check(load_record(path))
    assert result.ok, result.discrepancy
    assert result.state.outcome is not None
    assert result.state.outcome.forfeited_by == faulty


def test_a_forfeit_record_with_the_wrong_winner_is_reported() -> None:
    record = forfeited_game()
    record["result"]["winner"] = 1 - record["result"]["winner"]
    result = replay(record)
    assert result.discrepancy is not None
    assert result.discrepancy.startswith("result: recorded winner")


def test_a_forfeit_claimed_for_a_game_that_ended_otherwise_is_reported() -> None:
    record = copy.deepcopy(short_game())
    record["result"]["termination"] = "forfeit"
    record["result"]["forfeited_by"] = 0
    result = replay(record)
    assert result.discrepancy is not None
    assert result.discrepancy.startswith("result: recorded termination 'forfeit'")


def test_a_record_file_is_plain_json(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    write_record(GameRecord.from_json(short_game()), path)
    assert json.loads(path.read_text())["format"] == FORMAT


# --- the typed record and its steps ---------------------------------------------------


def test_a_record_round_trips_through_its_json_object() -> None:
    data = short_game()
    assert GameRecord.from_json(data).to_json() == data
    forfeited = forfeited_game()
    assert GameRecord.from_json(forfeited).to_json() == forfeited


def test_keys_a_reader_does_not_know_are_ignored() -> None:
    data = copy.deepcopy(short_game())
    data["players"][0]["favourite_colour"] = "green"
    data["hands"][0]["commentary"] = "a fine hand"
    assert GameRecord.from_json(data) == GameRecord.from_json(short_game())


def test_replay_yields_each_deal_and_decision_then_its_verdict_last() -> None:
    record = GameRecord.from_json(short_game())
    *steps, verdict = replay_steps(record)
    assert isinstance(verdict, ReplayResult) and verdict.ok
    assert sum(isinstance(step, Dealt) for step in steps) == len(record.hands)
    decisions = [(s.hand, s.index, s.seat, s.action) for s in steps if isinstance(s, Step)]
    assert decisions == [
        (hand.number, index, decision.seat, decision.action)
        for hand in record.hands
        for index, decision in enumerate(hand.decisions)
    ]


def test_replay_stops_its_steps_at_the_first_discrepancy() -> None:
    data = copy.deepcopy(short_game())
    data["hands"][1]["decisions"][4]["action"] = "bid 3"
    *steps, verdict = replay_steps(GameRecord.from_json(data))
    assert isinstance(verdict, ReplayResult) and not verdict.ok
    last = steps[-1]
    assert isinstance(last, Step) and (last.hand, last.index) == (2, 3)
    assert last.after == verdict.state
