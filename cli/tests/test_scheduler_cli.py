"""``pitch scheduler``: the switch on a local ladder, and one-line errors for a server."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from pitch_cli import app


def _pitch(*args: str | Path) -> str:
    result = CliRunner().invoke(app, [str(arg) for arg in args])
    assert result.exit_code == 0, result.output
    return result.output


def test_the_scheduler_is_paused_and_resumed_on_a_local_ladder(tmp_path):
    where = ["--ladder", tmp_path / "ladder"]
    _pitch("ladder", "init", *where)
    assert _pitch("scheduler", "status", *where).startswith("running")
    assert _pitch("scheduler", "pause", *where).startswith("paused by cli")
    assert _pitch("scheduler", "status", *where).startswith("paused by cli")
    assert "resumed by cli" in _pitch("scheduler", "resume", *where)


def test_an_unreachable_server_or_a_missing_token_is_one_line(tmp_path):
    for args, message in (
        (["scheduler", "status", "--server", "http://127.0.0.1:9"], "cannot reach"),
        (["scheduler", "pause", "--server", "http://127.0.0.1:9"], "no token"),
        (["scheduler", "status", "--server", "ftp://x"], "http:// or https://"),
        (["submit", str(tmp_path), "--server", "http://127.0.0.1:9", "--token", "t"], "bot.toml"),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "pitch_cli", *args],
            capture_output=True,
            text=True,
            timeout=60,
            env={"PATH": "/usr/bin:/bin"},
        )
        assert done.returncode == 1, done.stdout
        assert message in done.stderr and "Traceback" not in done.stderr
