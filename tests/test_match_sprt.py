"""`pitch match --sprt`: help that fits 80 columns, a cap where the test decides, and an
honest word when it does not."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pitch_cli import app
from pitch_referee.match import default_games
from pitch_referee.stats import parse_sprt, sprt_sample_cap
from pitch_sdk import reference


def test_match_help_fits_80_columns_without_cutting_a_word():
    done = subprocess.run(
        [sys.executable, "-m", "pitch_cli", "match", "--help"],
        capture_output=True, text=True, timeout=60, env={**os.environ, "COLUMNS": "80"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "…" not in done.stdout, done.stdout
    assert "elo0=0,elo1=20" in done.stdout
    assert max(len(line) for line in done.stdout.splitlines()) <= 80


RANDOM = reference.folder("random")
GREEDY = reference.folder("greedy")


def test_the_default_cap_of_an_sprt_match_is_the_stats_cap_in_games():
    params = parse_sprt("elo0=0,elo1=20")
    assert default_games("elo0=0,elo1=20") == 2 * sprt_sample_cap(params)  # pairs
    assert default_games("elo0=0,elo1=20", duplicate=False) == sprt_sample_cap(params)
    assert default_games("elo0=0,elo1=20") > 10_000 and default_games(None) == 100


def _match(out: Path, *args: str) -> str:
    result = CliRunner().invoke(
        app,
        ["match", str(GREEDY), str(RANDOM), "--concurrency", "1", "--rule", "hand_cap=2",
         "--out", str(out), *args],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.slow
def test_an_sprt_match_without_games_is_capped_where_the_test_decides(tmp_path):
    printed = _match(tmp_path / "m", "--sprt", "elo0=0,elo1=400")
    cap = default_games("elo0=0,elo1=400")
    assert f"SPRT elo0=0,elo1=400: at most {cap} games (by then the test has decided" in printed
    summary = json.loads((tmp_path / "m" / "summary.json").read_text())
    assert summary["games_planned"] == cap and summary["status"] == "stopped by SPRT"


@pytest.mark.slow
def test_an_sprt_still_undecided_at_the_cap_says_so_in_the_output_and_the_summary(tmp_path):
    printed = _match(tmp_path / "m", "--sprt", "elo0=0,elo1=20", "--games", "4")
    assert "SPRT elo0=0,elo1=20: at most 4 games (--games)" in printed
    assert "4 of 4 games (SPRT undecided at the game cap)" in printed
    assert "undecided after all 4 games (the cap): neither hypothesis accepted" in printed
    summary = json.loads((tmp_path / "m" / "summary.json").read_text())
    assert summary["status"] == "SPRT undecided at the game cap"
    assert summary["stats"]["sprt"]["decision"] is None
