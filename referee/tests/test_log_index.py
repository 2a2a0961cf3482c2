"""Each line a bot writes is indexed by the decision it came during: the action a bot
says it chose is the one recorded at its line's decision, and a crash's traceback is at
the decision the bot failed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pitch_referee.logindex import LogTag, game_lines, index_path
from pitch_sdk.record import log_file
from pitch_testkit.referee import play_games, write_bot

pytestmark = pytest.mark.slow

CHATTY = Path(__file__).with_name("chatty_bot.py")


def chatty(tmp_path: Path, k: int):
    return write_bot(tmp_path / "chatty", [sys.executable, str(CHATTY), str(k)], "chatty")


def test_each_line_a_bot_writes_while_asked_is_indexed_at_the_decision_it_chose(
    tmp_path, random_bot
):
    run = play_games(
        tmp_path / "logs", [random_bot, chatty(tmp_path, 10_000), random_bot, random_bot]
    )
    record = run.results[0].record
    log = log_file(tmp_path / "logs", record.players[1].log)
    chose = [line for line in game_lines(log, "g0", 1) if line.text.startswith("chose ")]
    asked = [
        decision.action
        for hand in record.hands
        for decision in hand.decisions
        if decision.seat == 1 and not decision.forced
    ]
    assert len(chose) == len(asked) > 5
    for line in chose:
        assert line.tag is not None and line.tag.asked and line.tag.game == "g0"
        decision = record.hands[line.tag.hand - 1].decisions[line.tag.decision]
        assert (decision.seat, f"chose {decision.action}") == (1, line.text)


def test_a_crashs_traceback_is_indexed_at_the_decision_the_bot_failed(tmp_path, random_bot):
    run = play_games(tmp_path / "logs", [random_bot, chatty(tmp_path, 4), random_bot, random_bot])
    record = run.results[0].record
    [fault] = record.faults
    log = log_file(tmp_path / "logs", record.players[1].log)
    failed = LogTag("g0", fault.hand, fault.decision, asked=True)
    at_fault = [line.text for line in game_lines(log, "g0", 1) if line.tag == failed]
    assert "Traceback (most recent call last):" in at_fault
    assert at_fault[-1] == "ValueError: chatty gives up at its decision 4"


def test_a_log_without_an_index_is_read_by_its_game_start_marker(tmp_path):
    log = tmp_path / "old.log"
    log.write_text("game g0: playing seat 1\nfirst\ngame g1: playing seat 1\nsecond\n")
    assert not index_path(log).exists()
    assert [line.text for line in game_lines(log, "g1", 1)] == ["game g1: playing seat 1", "second"]
    assert all(line.tag is None for line in game_lines(log, "g0", 1))
