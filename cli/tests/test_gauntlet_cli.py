"""``pitch gauntlet``: a bot placed on the reference scale by matches against the fast
reference bots (few games: the SPRT decides sweeps within ten deal pairs)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pitch_cli import app, main
from pitch_sdk import reference
from pitch_sdk.reference.scale import rungs

BEGINNER_RATING = next(rung.rating for rung in rungs() if rung.name == "beginner")
PLACED = re.compile(r"^(\S+): rating (\S+) \[(\S+), (\S+)\] .* league (\w+)$", re.MULTILINE)


def _gauntlet(tmp_path: Path, bot: str, games: int) -> tuple[float, float, float, str]:
    """The rating, its interval and the league ``pitch gauntlet`` prints for ``bot``."""
    args = ["gauntlet", reference.folder(bot), "--up-to", "beginner", "--games", games,
            "--seed", 11, "--sandbox", "off", "--out", tmp_path / "g"]  # fmt: skip
    result = CliRunner().invoke(app, [str(arg) for arg in args])
    assert result.exit_code == 0, f"{result.output}{result.exception!r}"
    found = PLACED.search(result.output)
    assert found and found[1] == bot, result.output
    return float(found[2]), float(found[3]), float(found[4]), found[5]


@pytest.mark.slow
def test_the_random_bot_stays_in_the_first_league_at_the_bottom_of_the_scale(tmp_path):
    rating, low, high, league = _gauntlet(tmp_path, "random", games=8)
    assert league == "Wood"  # it never beat the random reference bot, so met no other
    assert low < rating < high < BEGINNER_RATING


@pytest.mark.slow
def test_greedy_beats_random_and_beginner_and_rates_above_beginner(tmp_path):
    rating, low, _, league = _gauntlet(tmp_path, "greedy", games=24)
    assert league == "Silver"
    assert rating > BEGINNER_RATING and low > 0


def test_an_unknown_opponent_is_one_line_naming_the_reference_bots(monkeypatch, capsys):
    greedy = str(reference.folder("greedy"))
    monkeypatch.setattr(sys, "argv", ["pitch", "gauntlet", greedy, "--up-to", "grandmaster"])
    with pytest.raises(SystemExit) as exit_:
        main()
    assert exit_.value.code == 1
    error = re.sub(r"\x1b\[[0-9;]*m", "", capsys.readouterr().err)  # colour, if forced
    assert error.count("\n") == 1
    assert "--up-to grandmaster: not a reference bot (one of random, beginner" in error
