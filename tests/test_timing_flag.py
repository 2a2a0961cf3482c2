"""The timing statistic of ``pitch_ladder.timing`` on real matches of real bot processes:
it flags a bot that sends a hidden bit a hand by its think time (``timing_bot.py``), and
not honest reference bots over as many games."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from pitch_cli import app
from pitch_ladder.timing import THRESHOLD, TimingCheck, check_records
from pitch_sdk import reference
from pitch_sdk.record import load_record
from pitch_testkit.timing import timing_bot

SLOW_MS = 20
GAMES = 12

# Wall-time measurements: pytest-xdist runs the group on one worker, never two at once.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("timing")]


def _checked(tmp_path: Path, a: Path, b: Path, name: str) -> TimingCheck:
    """``a`` against ``b`` for ``GAMES`` games of 4 hands; the statistic for bot ``name``."""
    out = tmp_path / "m"
    args = ["match", a, b, "--games", GAMES, "--seed", "5", "--rule", "hand_cap=4",
            "--sandbox", "off", "--concurrency", "2", "--out", out]  # fmt: skip
    result = CliRunner().invoke(app, [str(arg) for arg in args])
    assert result.exit_code == 0, f"{result.output}{result.exception!r}"
    records = [load_record(path) for path in sorted((out / "games").glob("*.json*"))]
    assert len(records) == GAMES
    return check_records(
        (record, [p.seat for p in record.players if p.name == name]) for record in records
    )


def test_a_bot_signalling_its_hand_by_its_think_time_is_flagged(tmp_path):
    bot = timing_bot(tmp_path / "bots", SLOW_MS)
    found = _checked(tmp_path, bot, reference.folder("random"), "timing")
    assert found.hands >= 60, found
    assert found.flagged, found
    assert found.feature == "odd S", found  # the bit it sends: the parity of its spades


@pytest.mark.parametrize("name", ["greedy", "random", "montecarlo"])
def test_honest_bots_are_not_flagged(tmp_path, name):
    """montecarlo thinks (its times vary with its search), the others hardly do."""
    other = "greedy" if name == "random" else "random"
    found = _checked(tmp_path, reference.folder(name), reference.folder(other), name)
    assert found.hands >= 60, found
    assert found.p is not None and found.p >= THRESHOLD, found
