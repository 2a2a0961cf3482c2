"""Helpers for the ladder tests: the CLI in-process and as a process, bot folders."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from typer.testing import CliRunner

from pitch_cli import app
from pitch_referee.errors import PitchError

ROOT = Path(__file__).resolve().parents[2]
RANDOM = ROOT / "sample_bots" / "random"
GREEDY = ROOT / "sample_bots" / "greedy"
QUICK = ["--games-per-match", "2", "--rule", "hand_cap=2"]
"""``ladder run`` options for short matches: one duplicate pair of two-hand games."""


def cli(*args: str | Path) -> str:
    """Run ``pitch ARGS`` in-process; return its output, failing the test on a bad exit."""
    result = CliRunner().invoke(app, [str(arg) for arg in args])
    assert result.exit_code == 0, f"{args}: {result.output}{result.exception!r}"
    return result.output


def cli_refusal(*args: str | Path) -> str:
    """Run ``pitch ARGS`` in-process; it must raise a ``PitchError``: return its message."""
    result = CliRunner().invoke(app, [str(arg) for arg in args])
    assert isinstance(result.exception, PitchError), f"{args}: {result.output}"
    return str(result.exception)


def cli_error(*args: str | Path) -> str:
    """Run ``pitch ARGS`` as a process that must fail; return its stderr (one message)."""
    process = pitch(*args)
    assert process.returncode == 1, process.stdout + process.stderr
    assert "Traceback" not in process.stderr, process.stderr
    return process.stderr


def pitch(*args: str | Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``python -m pitch_cli ARGS``, as a user would run it."""
    return subprocess.run(
        [sys.executable, "-m", "pitch_cli", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def write_bot(folder: Path, name: str, code: str) -> Path:
    """A bot folder whose ``bot.py`` is ``code``."""
    folder.mkdir(parents=True)
    (folder / "bot.toml").write_text(
        f'name = "{name}"\nversion = "0.1"\ncommand = ["python", "bot.py"]\n'
    )
    (folder / "bot.py").write_text(code)
    return folder


def cores_after_a_while() -> list[int]:
    """A pool job: its worker's cores, slowly enough that a second job goes to another worker."""
    time.sleep(2.0)  # longer than a second worker takes to start, even on a loaded machine
    return sorted(os.sched_getaffinity(0))
