"""The sample policy bot (`sample_bots/policy`): the environment's policy adapter as a real
bot folder, checked and played in the sandbox like any submission."""

from __future__ import annotations

from pathlib import Path

import pytest

from pitch_ladder.submit import copy_bot
from pitch_referee.conformance import check_bot
from pitch_referee.match import Entrant, MatchSettings, run_match
from pitch_referee.sandbox import SandboxLimits
from pitch_sdk import reference
from pitch_testkit.sandbox import sandbox_or_skip

ROOT = Path(__file__).resolve().parents[1]
POLICY = ROOT / "sample_bots" / "policy"
RANDOM = reference.folder("random")

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def sandbox() -> SandboxLimits:
    return sandbox_or_skip()


def test_a_ladder_copy_of_the_policy_bot_passes_pitch_check_in_the_sandbox(sandbox, tmp_path):
    copy = copy_bot(POLICY, tmp_path / "policy", "policy")
    report = check_bot(copy, sandbox=sandbox)
    assert report.ok, (report.failures, report.stopped, report.not_asked)
    assert all(kind.asked and not kind.failed for kind in report.kinds.values())


def test_the_policy_bot_plays_a_sandboxed_match_without_faults(sandbox, tmp_path):
    settings = MatchSettings(games=2, seed=5, concurrency=1, sandbox="on", rules={"hand_cap": 3})
    summary = run_match(
        Entrant.from_argument(str(POLICY)), Entrant.from_argument(str(RANDOM)),
        settings, tmp_path / "m", announce=lambda _: None,
    )  # fmt: skip
    assert (summary.status, summary.games_played, summary.faults) == ("finished", 2, 0)
