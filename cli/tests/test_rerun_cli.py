"""``pitch rerun`` shows where a bot answers otherwise, with the seat's situation."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from pitch_cli import app
from pitch_sdk import reference
from pitch_sdk.bots import GreedyBot
from pitch_sdk.options import RuleOptions
from pitch_sdk.record import write_record
from pitch_sdk.selfplay import play_game

RANDOM = reference.folder("random")


@pytest.mark.slow
def test_rerun_shows_each_differing_decision_with_the_seats_hand_trick_and_score(tmp_path):
    record = play_game([GreedyBot(seat) for seat in range(4)], 4, RuleOptions(hand_cap=2))
    path = tmp_path / "game.json"
    write_record(record, path)
    result = CliRunner().invoke(
        app, ["rerun", str(path), str(RANDOM), "--seat", "1", "--sandbox", "off"]
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    differing = [n for n, line in enumerate(lines) if "the bot answered" in line]
    assert differing, result.output
    context = lines[differing[0] + 1]
    assert context.strip().startswith("hand ") and " score " in context
    asked = sum(
        not decision.forced
        for hand in record.hands
        for decision in hand.decisions
        if decision.seat == 1
    )
    assert lines[-1].startswith(f"{asked} decisions, ")
