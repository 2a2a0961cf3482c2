"""`pitch replay --logs` on a real match: each decision's bot lines under it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from pitch_sdk import reference
from pitch_sdk.record import load_record

ROOT = Path(__file__).resolve().parents[2]
CHATTY = ROOT / "referee" / "tests" / "chatty_bot.py"

pytestmark = pytest.mark.slow


def pitch(*args: object) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pitch_cli", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def crashed_match(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A one-hand game in which the chatty bot (seats 0 and 2) raises at its 5th decision."""
    folder = tmp_path_factory.mktemp("replay-logs")
    bot = folder / "chatty"
    bot.mkdir()
    command = f'["{sys.executable}", "{CHATTY}", "5"]'
    (bot / "bot.toml").write_text(f'name = "chatty"\nversion = "1"\ncommand = {command}\n')
    played = pitch("match", bot, reference.folder("random"), "--games", "1",
                   "--no-duplicate", "--concurrency", "1", "--sandbox", "off", "--rule",
                   "hand_cap=1", "--seed", "5", "--out", folder / "m")  # fmt: skip
    assert played.returncode == 0, played.stderr
    return next((folder / "m" / "games").iterdir())


def test_replay_logs_prints_each_decisions_lines_under_it_and_a_crash_under_its_fault(
    crashed_match: Path,
):
    shown = pitch("replay", crashed_match, "--logs")
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    chose = [n for n, line in enumerate(lines) if "| chose " in line]
    assert chose
    for n in chose:
        number, seat, said = re.search(r"(#\d+)\s+seat (\d) \| chose (.*)", lines[n]).groups()
        if said.startswith("play"):  # under its trick's line, which names the decisions
            continue
        decision = next(line for line in reversed(lines[:n]) if line.lstrip().startswith("#"))
        assert decision.split()[:3] == [number, "seat", seat]
    fault = next(n for n, line in enumerate(lines) if "FAULT" in line)
    after = "\n".join(lines[fault:])
    assert "| ValueError: chatty gives up at its decision 5" in after
    record = load_record(crashed_match)
    assert record.faults[0].kind == "crashed"


def test_replay_without_logs_prints_no_bot_lines(crashed_match: Path):
    shown = pitch("replay", crashed_match)
    # the fault's own line names the exception; the bot's log lines are not quoted
    assert "| chose " not in shown.stdout and "| ValueError" not in shown.stdout
