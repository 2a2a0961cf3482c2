"""``pitch check``: the report, and exit status 0 for a bot that passes, 1 for one that fails."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pitch_cli import app
from pitch_sdk import reference

GREEDY = reference.folder("greedy")

ILLEGAL_PICKUP = """\
from pitch_sdk.actions import PickUp
from pitch_sdk.bot import Bot
from pitch_sdk.run import run


class BadPickUp(Bot):
    name = "bad-pickup"

    def pick_up(self, view, legal):
        return PickUp(1 << 12)  # the ace of clubs, whatever the centre holds


raise SystemExit(run(BadPickUp()))
"""


@pytest.mark.slow
def test_a_bot_that_passes_exits_0_with_its_latencies() -> None:
    result = CliRunner().invoke(app, ["check", str(GREEDY), "--sandbox", "auto"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("checking greedy 1.0")
    assert "latency: first decision " in result.output and " median " in result.output
    assert "(stock choices offered: take, leave, stop)" in result.output
    assert result.output.splitlines()[-1].startswith("passed: every one of the 19 positions")


@pytest.mark.slow
def test_a_bot_that_fails_exits_1_naming_the_decision(tmp_path: Path) -> None:
    bot = tmp_path / "bad-pickup"
    bot.mkdir()
    (bot / "bot.toml").write_text('name = "bad-pickup"\nversion = "1"\ncommand = "python bot.py"\n')
    (bot / "bot.py").write_text(ILLEGAL_PICKUP)
    result = CliRunner().invoke(app, ["check", str(bot), "--sandbox", "off", "--time-limit", "500"])
    assert result.exit_code == 1, result.output
    assert "500 ms per decision" in result.output.splitlines()[0]
    failed = [line for line in result.output.splitlines() if line.startswith("FAILED")]
    assert len(failed) == 1, result.output
    assert failed[0].startswith(
        "FAILED pick up from the centre (pickup): illegal_action: pickup AC is not legal here; "
        "legal are pickup -"
    )
    assert result.output.splitlines()[-1] == "failed: 1 failure in 19 positions"


def test_a_missing_folder_or_a_bad_sandbox_mode_is_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["check", str(tmp_path / "nowhere")])
    assert result.exit_code == 1 and "no such bot folder" in str(result.exception)
    result = CliRunner().invoke(app, ["check", str(GREEDY), "--sandbox", "maybe"])
    assert result.exit_code == 1 and "choose on, off or auto" in str(result.exception)


def test_a_node_bot_copied_without_its_modules_is_told_to_run_npm_install(tmp_path: Path) -> None:
    kit = Path(__file__).resolve().parents[2] / "sample_bots" / "js"
    copied = shutil.copytree(kit, tmp_path / "jsbot", ignore=shutil.ignore_patterns("node_modules"))
    result = CliRunner().invoke(app, ["check", str(copied), "--sandbox", "off"])
    assert result.exit_code == 1, result.output
    line = f"jsbot: its Node packages are not installed: run npm install in {copied}"
    assert f"FAILED start: start_failed: {line}" in result.output
    assert "Error: Cannot find module" not in result.output
