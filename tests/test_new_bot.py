"""`pitch new-bot` writes a bot folder that plays a game at once."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from pitch_cli import app
from pitch_referee.manifest import load_manifest
from pitch_referee.match import Entrant, MatchSettings, run_match
from pitch_sdk import reference
from pitch_sdk.record import load_record
from pitch_sdk.replay import check


@pytest.mark.slow
def test_scaffolded_bot_plays_a_game_over_grpc(tmp_path):
    folder = tmp_path / "my-first-bot"
    result = CliRunner().invoke(app, ["new-bot", str(folder)])
    assert result.exit_code == 0, result.output
    assert {path.name for path in folder.iterdir()} == {"bot.toml", "bot.py", "README.md"}
    assert load_manifest(folder).name == "my-first-bot"
    settings = MatchSettings(games=2, seed=4, rules={"hand_cap": 3}, concurrency=1)
    summary = run_match(
        Entrant.from_argument(str(folder)), Entrant.from_argument(str(reference.folder("random"))),
        settings, tmp_path / "m", announce=lambda _: None,
    )  # fmt: skip
    assert summary.games_played == 2 and summary.faults == 0
    for game in summary.games:
        assert check(load_record(summary.record_path(game))).ok


def test_new_bot_refuses_an_existing_folder_and_a_bad_name(tmp_path):
    runner = CliRunner()
    assert runner.invoke(app, ["new-bot", str(tmp_path)]).exit_code == 1
    assert runner.invoke(app, ["new-bot", str(tmp_path / "bad name!")]).exit_code == 1
