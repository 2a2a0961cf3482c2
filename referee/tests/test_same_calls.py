"""A bot is told the same things, in the same order, in-process and over gRPC."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from pitch_sdk.gamerecord import GameRecord
from pitch_sdk.selfplay import play_game
from pitch_sdk.table import TimeControl
from pitch_testkit import recording_bot
from pitch_testkit.referee import SHORT_GAMES, play_games, write_bot

ROOMY_TIME = TimeControl(limit_ms=20_000, reserve_ms=20_000)  # never charged: budgets match


@pytest.mark.slow
def test_a_bot_receives_identical_calls_in_process_and_over_grpc(tmp_path):
    manifest = write_bot(
        tmp_path / "bot", [sys.executable, str(recording_bot.SCRIPT)], name="recording"
    )
    run = play_games(tmp_path / "logs", [manifest] * 4, time_control=ROOMY_TIME)
    record = run.results[0].record
    assert record.result is not None and not record.faults

    in_process: list[list[list]] = [[], [], [], []]
    bots = [recording_bot.Recording(note=in_process[seat].append) for seat in range(4)]
    replayed = play_game(
        bots,
        record.seed,
        SHORT_GAMES,
        record.first_dealer,
        game_id="g0",
        bot_seeds=[player.seed for player in record.players],
        time_control=ROOMY_TIME,
    )
    assert replayed.hands == record.hands or _without_times(record) == _without_times(replayed)
    for seat, player in enumerate(record.players):
        lines = Path(player.log).read_text().splitlines()
        over_grpc = [json.loads(line[5:]) for line in lines if line.startswith("CALL ")]
        assert over_grpc == json.loads(json.dumps(in_process[seat])), f"seat {seat}"
        assert [call[0] for call in over_grpc].count("decide") > 5


def _without_times(record: GameRecord) -> list:
    return [[replace(d, ms=None) for d in hand.decisions] for hand in record.hands]
