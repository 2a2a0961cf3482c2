"""Analyses for the tests of the viewer's analysis: one held until the test lets it go (to
see it queued and running), one that fails. Each runs in the analysis's own process, which
imports this module by name (``pitch_testkit`` is installed in the workspace's environment)."""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pitch_web.game_analysis import Progress, analyse

RELEASE = "PITCH_TEST_ANALYSIS_RELEASE"
"""The environment variable naming the file whose existence lets held analyses finish."""
HOLD_S = 120
"""The longest an analysis is held: a test that never releases it still ends."""
SAMPLES = 4
"""Sampled deals per decision before the play in the tests' analyses: enough to value and
state an error, a few times faster than the viewer's default."""


def quick_analyse(
    record: dict[str, Any], steps: Mapping[tuple[int, int], int], progress: Progress
) -> dict[str, Any]:
    """``analyse`` with ``SAMPLES`` deals a decision before the play."""
    return analyse(record, steps, progress, samples=SAMPLES)


def held_analyse(
    record: dict[str, Any], steps: Mapping[tuple[int, int], int], progress: Progress
) -> dict[str, Any]:
    """``analyse``, after its first hand is reported done and the file named by
    ``$PITCH_TEST_ANALYSIS_RELEASE`` exists."""
    release = Path(os.environ[RELEASE])
    progress(1, len(record.hands))
    deadline = time.monotonic() + HOLD_S
    while not release.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    return quick_analyse(record, steps, progress)


def failing_analyse(
    record: dict[str, Any], steps: Mapping[tuple[int, int], int], progress: Progress
) -> dict[str, Any]:
    """An analysis whose solver gives up."""
    raise ArithmeticError("the solver gave up")
