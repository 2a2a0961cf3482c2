"""Timing between partners: a pair of bots that signal a hidden bit a hand by answering
slowly or quickly, read by the partner from when its requests come (``timing_bot.py``);
``--timing-grid`` releases requests on a grid, so a signal finer than it falls to chance.

Played without the sandbox: its pausing between decisions adds latency that, on a loaded
machine, hides much of a 20 ms signal by itself; the channel is the referee's to close."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from pitch_cli import app
from pitch_sdk import reference
from pitch_testkit.timing import Channel, channel, timing_bot

RANDOM = reference.folder("random")
SLOW_MS = 40

# Wall-time measurements: pytest-xdist runs the group on one worker, never two at once.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("timing")]


def _signalled(tmp_path: Path, *options: object) -> Channel:
    """Partners signalling ``SLOW_MS`` (loud enough to carry over a loaded machine's
    jitter) against random opponents: 8 games of 4 hands."""
    bot, out = timing_bot(tmp_path / "bots", SLOW_MS), tmp_path / "m"
    args = ["match", bot, RANDOM, "--games", "8", "--seed", "3", "--rule", "hand_cap=4",
            "--sandbox", "off", "--concurrency", "2", "--out", out, *options]  # fmt: skip
    result = CliRunner().invoke(app, [str(arg) for arg in args])
    assert result.exit_code == 0, f"{result.output}{result.exception!r}"
    return channel(out)


def test_partners_signal_a_bit_a_hand_by_answering_slowly_or_quickly(tmp_path):
    found = _signalled(tmp_path)
    assert found.bits >= 40, found
    assert found.right >= 0.85 * found.bits, found


def test_on_a_timing_grid_coarser_than_the_signal_the_bits_fall_to_chance(tmp_path):
    found = _signalled(tmp_path, "--timing-grid", 2 * SLOW_MS + 10)
    assert found.bits >= 40, found
    assert found.right <= 0.75 * found.bits, found  # chance: a half (p < 0.001 of 3/4)
