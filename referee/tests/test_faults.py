"""Each way a bot can misbehave ends as the right fault, quickly, with nothing left over."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time

import pytest

from pitch_referee.connection import MAX_MESSAGE_BYTES, BotConnection
from pitch_referee.errors import BotProtocolError, BotTimeoutError
from pitch_referee.game_loop import FaultPolicy, TimeControl
from pitch_sdk.protocol import messages as pb
from pitch_sdk.replay import check
from pitch_testkit.referee import assert_nothing_left, play_games

pytestmark = pytest.mark.slow


def faults_of(run, seat=1):
    return [fault for result in run.results for fault in result.faults if fault.seat == seat]


@pytest.mark.parametrize(
    ("mode", "k", "kind"),
    [
        ("crash", 3, "crashed"),
        ("sleep", 2, "timeout"),
        ("illegal", 1, "illegal_action"),
        ("malformed", 1, "malformed"),
        ("wrong_id", 1, "wrong_request"),
        ("stale", 1, "stale_answer"),
        ("oversized", 1, "oversized"),
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
        assert [fault.kind for fault in record.faults] == [kind]
        assert record.faults[0].seat == 1
        assert record.result.termination == "forfeit"
        assert record.result.winner == 0 and record.result.forfeited_by == 1
        assert check(record).ok, check(record).discrepancy
    assert_nothing_left(run)


@pytest.fixture
def cpu_burners():
    """A loaded machine: a busy process per core and one more, for the test's length."""
    burners = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"])
        for _ in range((os.cpu_count() or 1) + 1)
    ]
    yield
    for burner in burners:
        burner.kill()
        burner.wait()


def test_a_bot_that_raises_is_crashed_with_its_status_and_exception_every_time_under_load(
    tmp_path, random_bot, misbehaving, cpu_burners
):
    run = play_games(
        tmp_path / "logs", [random_bot, misbehaving("raise", 1), random_bot, random_bot], 50
    )
    details = [(fault.kind, fault.detail) for fault in faults_of(run)]
    expected = "the bot's process exited with status 1: ValueError: raised at decision 1"
    assert details == [("crashed", expected)] * 50
    assert_nothing_left(run)


def test_a_bot_that_closes_its_stream_and_lives_on_is_disconnected(
    tmp_path, random_bot, misbehaving
):
    run = play_games(
        tmp_path / "logs", [random_bot, misbehaving("hang_up"), random_bot, random_bot]
    )
    assert [fault.kind for fault in faults_of(run)] == ["disconnected"]
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
    assert [fault.kind for fault in faults_of(run, seat=0)] == ["no_hello"]
    assert run.results[0].record.result.winner == 1
    assert_nothing_left(run)


def test_timeout_is_only_declared_after_the_reserve_is_spent(tmp_path, random_bot, misbehaving):
    run = play_games(
        tmp_path / "logs",
        [random_bot, misbehaving("sleep", 1), random_bot, random_bot],
        time_control=TimeControl(limit_ms=200, reserve_ms=400),
    )
    (fault,) = faults_of(run)
    assert fault.kind == "timeout"
    assert 550 <= fault.elapsed_ms < 3000  # limit + reserve, plus scheduling slack
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
    assert record.faults == ()
    assert record.result.termination != "forfeit"
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
    assert run.results[0].record.faults == ()
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
    assert record.result.termination != "forfeit"
    assert record.faults and {fault.kind for fault in record.faults} == {"illegal_action"}
    assert check(record).ok
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
        assert [fault.kind for fault in result.faults] == ["crashed"]
        assert result.record.result.termination != "forfeit"
    assert_nothing_left(run)


def test_oversized_fault_names_the_limit(tmp_path, random_bot, misbehaving):
    run = play_games(
        tmp_path / "logs", [random_bot, misbehaving("oversized"), random_bot, random_bot]
    )
    (fault,) = faults_of(run)
    assert fault.kind == "oversized"
    assert f"over the limit of {MAX_MESSAGE_BYTES} bytes" in fault.detail


def _answer(request_id: int) -> pb.BotMessage:
    return pb.BotMessage(answer=pb.Answer(request_id=request_id, action=pb.Action(bid=0)))


def test_late_answer_to_a_timed_out_request_is_ignored_but_a_repeated_one_is_stale():
    async def main() -> list[str]:
        connection = BotConnection("bot", "0")
        seen = []
        with pytest.raises(BotTimeoutError):
            await connection.ask(pb.DecisionRequest(), 0.01)  # request 1 times out
        second = asyncio.create_task(connection.ask(pb.DecisionRequest(), 5))
        await asyncio.sleep(0)
        connection.deliver(_answer(1))  # late: the bot could not know it was too late
        connection.deliver(_answer(2))
        seen.append(f"answered {(await second)[0].request_id}")
        third = asyncio.create_task(connection.ask(pb.DecisionRequest(), 5))
        await asyncio.sleep(0)
        connection.deliver(_answer(1))  # the late answer came already: now it is stale
        try:
            await third
        except BotProtocolError as error:
            seen.append(error.kind)
        return seen

    assert asyncio.run(main()) == ["answered 2", "stale_answer"]
