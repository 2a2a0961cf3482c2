"""The ladder runs submitted bots only in the sandbox, unless the operator trusts them."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

import pitch_ladder.sandbox_policy
from pitch_cli import app
from pitch_sdk import reference

NO_SANDBOX = "bubblewrap (bwrap) is not installed: install bubblewrap"


def pitch(*args: object):
    return CliRunner().invoke(app, [str(arg) for arg in args])


@pytest.fixture
def machine_without_sandbox(monkeypatch):
    monkeypatch.setattr(pitch_ladder.sandbox_policy, "unavailable_reason", lambda: NO_SANDBOX)


def test_submit_and_run_refuse_without_a_sandbox_and_say_how_to_proceed(
    tmp_path, machine_without_sandbox
):
    ladder = tmp_path / "ladder"
    assert pitch("ladder", "init", "--ladder", ladder).exit_code == 0
    refused = pitch("ladder", "submit", reference.folder("random"), "--ladder", ladder)
    assert refused.exit_code == 1
    assert "only in the sandbox" in str(refused.exception)
    assert "--trust-bots" in str(refused.exception)
    assert not (ladder / "bots").exists() or not any((ladder / "bots").iterdir())
    run = pitch("ladder", "run", "--ladder", ladder)
    assert run.exit_code == 1 and "--trust-bots" in str(run.exception)


@pytest.mark.slow
def test_trusted_bots_are_submitted_and_played_without_a_sandbox(tmp_path, machine_without_sandbox):
    ladder = tmp_path / "ladder"
    pitch("ladder", "init", "--ladder", ladder)
    for bot in ("random", "greedy"):
        submitted = pitch(
            "ladder", "submit", reference.folder(bot), "--trust-bots", "--ladder", ladder
        )
        assert submitted.exit_code == 0, submitted.output
    played = pitch(
        "ladder",
        "run",
        "--games-per-match",
        2,
        "--rule",
        "hand_cap=2",
        "--trust-bots",
        "--ladder",
        ladder,
    )
    assert played.exit_code == 0, played.output
    assert "2 new games stored" in played.output
