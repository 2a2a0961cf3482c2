"""``record_result``: the one reader of a record's result, faults and CPU."""

from __future__ import annotations

import copy

import pytest

from pitch_sdk.bots import GreedyBot, RandomBot
from pitch_sdk.gamerecord import GameRecord, RecordError
from pitch_sdk.options import RuleOptions
from pitch_sdk.record import GameRecorder, RecordResult, record_result
from pitch_sdk.selfplay import play_game

FAULT = {"hand": 1, "decision": 0, "seat": 1, "kind": "crashed", "detail": "exit 1"}


def _record() -> dict:
    """A played game's record as its file holds it (JSON), to change."""
    bots = [GreedyBot(0), RandomBot(1), GreedyBot(2), RandomBot(3)]
    return play_game(bots, 5, RuleOptions(hand_cap=2)).to_json()


def _result(data: dict) -> RecordResult | None:
    return record_result(GameRecord.from_json(data))


def test_a_finished_record_reads_as_its_result():
    record = _record()
    result = _result(record)
    assert result is not None
    assert result.scores == tuple(record["result"]["scores"])
    assert result.winner == record["result"]["winner"]
    assert result.hands == record["result"]["hands"]
    assert result.faults == () and result.cpu_ms == (None,) * 4
    team = result.winner if result.winner is not None else 0
    assert result.score_of(team) == (1.0 if result.winner is not None else 0.5)


def test_a_game_in_progress_has_no_result():
    recorder = GameRecorder(seed=3)
    recorder.deal()
    assert record_result(recorder.record()) is None


def test_faults_and_cpu_are_read_per_seat_and_team():
    record = copy.deepcopy(_record())
    record["faults"] = [
        {"hand": 1, "decision": 0, "seat": 1, "kind": "crashed", "detail": "exit 1", "log": "x"}
    ]
    for player, ms in zip(record["players"], (10, 20, 30, 40), strict=True):
        player["cpu_ms"] = ms
    result = _result(record)
    assert result is not None
    assert [fault.kind for fault in result.faults_of(1)] == ["crashed"]
    assert result.faults_of(0) == () and result.faults[0].log == "x"
    assert (result.team_cpu_ms(0), result.team_cpu_ms(1)) == (40.0, 60.0)
    del record["players"][3]["cpu_ms"]
    assert _result(record).team_cpu_ms(1) is None  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda r: r.update(result=7), "'result' should be"),
        (lambda r: r["result"].update(scores=[1]), "'scores' should be two whole numbers"),
        (lambda r: r.update(faults=7), "'faults' should be a list"),
        (lambda r: r.update(faults=[{**FAULT, "seat": 9}]), "faults[0]: 'seat' should be a seat"),
    ],
)
def test_a_result_that_does_not_read_is_a_record_error_naming_the_place(change, says):
    record = copy.deepcopy(_record())
    change(record)
    with pytest.raises(RecordError) as raised:
        _result(record)
    assert says in str(raised.value)
