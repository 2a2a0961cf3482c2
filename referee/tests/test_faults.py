"""Each way a bot can misbehave ends as the right fault, quickly, with nothing left over."""

from __future__ import annotations

import time

import pytest

from pitch_referee.game_loop import FaultPolicy, TimeControl
from pitch_sdk.record import replay

from .conftest import assert_nothing_left, play_games

pytestmark = pytest.mark.slow


def faults_of(run, seat=1):
    return [fault for result in run.results for fault in result.faults if fault["seat"] == seat]


@pytest.mark.parametrize(
    ("mode", "k", "kind"),
    [
        ("crash", 3, "crashed"),
        ("sleep", 2, "timeout"),
        ("illegal", 1, "illegal_action"),
        ("malformed", 1, "malformed"),
        ("wrong_id", 1, "wrong_request"),
        ("exit_early", 1, "start_failed"),
    ],
)
def test_fault_is_recorded_the_team_forfeits_and_the_match_goes_on(
    tmp_path, random_bot, misbehaving, mode, k, kind
):
    started = time.monotonic()
    run = play_games(
        tmp_path / "logs", [random_bot, misbehaving(mode, k), random_bot, random_bot], 2
    )
    assert time.monotonic() - started < 30
    assert len(run.results) == 2  # the match went on after the fault
    for result in run.results:
        record = result.record
        assert [fault["kind"] for fault in record["faults"]] == [kind]
        assert record["faults"][0]["seat"] == 1
        assert record["result"]["termination"] == "forfeit"
        assert record["result"]["winner"] == 0 and record["result"]["forfeited_by"] == 1
        assert replay(record).ok, replay(record).discrepancy
    assert_nothing_left(run)


def test_bot_that_never_connects_is_a_no_hello_fault_after_the_start_limit(
    tmp_path, random_bot, misbehaving
):
    started = time.monotonic()
    run = play_games(
        tmp_path / "logs",
        [misbehaving("never_connect"), random_bot, random_bot, random_bot],
        start_timeout_s=1.0,
    )
    assert time.monotonic() - started < 15
    assert [fault["kind"] for fault in faults_of(run, seat=0)] == ["no_hello"]
    assert run.results[0].record["result"]["winner"] == 1
    assert_nothing_left(run)


def test_timeout_is_only_declared_after_the_reserve_is_spent(tmp_path, random_bot, misbehaving):
    run = play_games(
        tmp_path / "logs",
        [random_bot, misbehaving("sleep", 1), random_bot, random_bot],
        time_control=TimeControl(limit_ms=200, reserve_ms=400),
    )
    (fault,) = faults_of(run)
    assert fault["kind"] == "timeout"
    assert 550 <= fault["elapsed_ms"] < 3000  # limit + reserve, plus scheduling slack
    assert_nothing_left(run)


def test_flooding_stderr_is_capped_in_the_log_and_the_game_is_unaffected(
    tmp_path, random_bot, misbehaving
):
    run = play_games(
        tmp_path / "logs",
        [random_bot, misbehaving("flood", 1), random_bot, random_bot],
        time_control=TimeControl(limit_ms=5000, reserve_ms=10000),
    )
    record = run.results[0].record
    assert record["faults"] == []
    assert record["result"]["termination"] != "forfeit"
    log = tmp_path / "logs" / "seat1-flood.log"
    size = log.stat().st_size
    assert 10 * 1024 * 1024 <= size < 10 * 1024 * 1024 + 1024
    assert log.read_bytes().endswith(b"further output was discarded]\n")
    assert_nothing_left(run)


def test_bot_ignoring_shutdown_and_sigterm_is_killed_on_close(tmp_path, random_bot, misbehaving):
    started = time.monotonic()
    run = play_games(
        tmp_path / "logs", [random_bot, misbehaving("ignore_shutdown"), random_bot, random_bot]
    )
    assert run.results[0].record["faults"] == []
    assert time.monotonic() - started < 30
    assert_nothing_left(run)


def test_substitute_policy_plays_a_random_legal_action_and_finishes_the_game(
    tmp_path, random_bot, misbehaving
):
    run = play_games(
        tmp_path / "logs",
        [random_bot, misbehaving("illegal", 1), random_bot, random_bot],
        policy=FaultPolicy.SUBSTITUTE,
    )
    record = run.results[0].record
    assert record["result"]["termination"] != "forfeit"
    assert record["faults"] and {fault["kind"] for fault in record["faults"]} == {"illegal_action"}
    assert replay(record).ok
    assert_nothing_left(run)


def test_crashed_bot_under_substitution_is_substituted_silently_for_the_rest_of_the_game(
    tmp_path, random_bot, misbehaving
):
    run = play_games(
        tmp_path / "logs",
        [random_bot, misbehaving("crash", 2), random_bot, random_bot],
        2,
        policy=FaultPolicy.SUBSTITUTE,
    )
    for result in run.results:  # restarted before the second game, crashing again there
        assert [fault["kind"] for fault in result.faults] == ["crashed"]
        assert result.record["result"]["termination"] != "forfeit"
    assert_nothing_left(run)
