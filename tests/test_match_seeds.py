"""Seeds are shown as they are given and recorded: an int seed never looks like 7.0."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from pitch_cli import app
from pitch_sdk import reference

RANDOM = reference.folder("random")


def test_a_simulated_game_with_an_int_seed_replays_showing_that_int(tmp_path):
    done = CliRunner().invoke(
        app, ["simulate", "--out", str(tmp_path), "--games", "1", "--seed", "7",
              "--rule", "hand_cap=1"],
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    shown = CliRunner().invoke(app, ["replay", str(tmp_path / "game-7.json")])
    assert shown.exit_code == 0, shown.output
    assert shown.output.startswith("Seed 7 · "), shown.output[:80]


@pytest.mark.slow
def test_a_match_prints_its_seed_as_given_and_its_games_show_their_deal_seed_quoted(tmp_path):
    out = tmp_path / "m"
    done = CliRunner().invoke(
        app, ["match", str(RANDOM), str(RANDOM), "--seed", "7", "--games", "2",
              "--concurrency", "1", "--rule", "hand_cap=1", "--out", str(out)],
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    assert "seed 7 (replay with --seed 7)" in done.output
    shown = CliRunner().invoke(app, ["replay", str(out / "games" / "pair-00000-a.json.gz")])
    assert shown.exit_code == 0, shown.output
    assert shown.output.startswith('Seed "7.0" · '), shown.output[:80]  # a string, not 7.0
