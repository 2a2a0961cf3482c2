"""Progress without a terminal, and `pitch matches` on a match still playing."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from pitch_cli import app, match_running
from pitch_referee.match import MatchProgress
from pitch_sdk import reference

RANDOM = reference.folder("random")
GREEDY = reference.folder("greedy")


def _progress(played: int) -> MatchProgress:
    return MatchProgress(played, 10, played, 0, 0, None, None, None)


def test_plain_progress_prints_a_line_every_few_seconds_with_games_score_and_time():
    now = [100.0]
    lines: list[str] = []
    plain = match_running.PlainProgress(5.0, lines.append, clock=lambda: now[0])
    for played, at in [(1, 101.0), (2, 105.5), (3, 106.0), (4, 111.0), (5, 175.0)]:
        now[0] = at
        plain(_progress(played))
    assert lines == [
        "games 2 of 10  A +2 =0 -0  (0m05s)",
        "games 4 of 10  A +4 =0 -0  (0m11s)",
        "games 5 of 10  A +5 =0 -0  (1m15s)",
    ]


@pytest.mark.slow
def test_a_match_whose_output_is_not_a_terminal_prints_progress_lines(tmp_path, monkeypatch):
    monkeypatch.setattr(match_running, "PLAIN_PROGRESS_EVERY_S", 0.0)
    result = CliRunner().invoke(
        app,
        ["match", str(GREEDY), str(RANDOM), "--games", "4", "--concurrency", "1",
         "--rule", "hand_cap=2", "--out", str(tmp_path / "m")],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if line.startswith("games ")]
    assert [line.split("  ")[0] for line in lines][-4:] == [f"games {n} of 4" for n in range(1, 5)]
    assert all(" A +" in line for line in lines)


@pytest.mark.slow
def test_matches_counts_the_finished_games_of_a_match_still_running(tmp_path):
    root = tmp_path / "matches"
    done = CliRunner().invoke(
        app,
        ["match", str(GREEDY), str(RANDOM), "--games", "4", "--concurrency", "1",
         "--rule", "hand_cap=2", "--out", str(root / "m")],
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    summary_path = root / "m" / "summary.json"
    summary = json.loads(summary_path.read_text())
    # as a match leaves it when it (re)starts: running, nothing counted yet
    summary_path.write_text(json.dumps({**summary, "status": "running", "games_played": 0}))
    (root / "m" / "games" / "pair-00001-b.json.gz").unlink()
    listed = CliRunner().invoke(app, ["matches", "--root", str(root)])
    assert listed.exit_code == 0, listed.output
    assert "3 of 4" in listed.output and "running" in listed.output
