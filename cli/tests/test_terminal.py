"""A bot's text on the operator's or author's terminal: control characters escaped, so that
a refusal quoting its stderr cannot clear the screen or set the window's title."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from typer.testing import CliRunner

import pitch_cli
import pitch_cli.author
import pitch_cli.submit
from pitch_cli import app
from pitch_cli.terminal import printable
from pitch_sdk import reference

HOSTILE = "\x1b[2J\x1b]0;owned\x07\x9b31m\r\x08"
"""Clear the screen, set the window's title, a C1 CSI, a carriage return and a backspace."""
SHOWN = "\\x1b[2J\\x1b]0;owned\\x07\\x9b31m\\x0d\\x08"


def test_control_characters_are_escaped_and_newlines_tabs_and_letters_kept() -> None:
    assert printable(f"a{HOSTILE}\tb\nc\x7f") == f"a{SHOWN}\tb\nc\\x7f"
    assert printable("Grüße, 王 ♠") == "Grüße, 王 ♠"
    assert printable("caf\udce9") == "caf\\udce9"


def _server(monkeypatch: pytest.MonkeyPatch, module: Any, answer: Any) -> None:
    monkeypatch.setattr(module, "call", lambda *args, **kwargs: answer)


def test_author_submissions_escapes_a_refusals_stderr(monkeypatch: pytest.MonkeyPatch) -> None:
    verdict = {
        "id": 7,
        "submitted_at": "2026-12-02T04:00:00",
        "bot": "evil",
        "accepted": False,
        "new": False,
        "version": "",
        "reason": f"refused: evil did not finish; the end of its stderr:\n  | {HOSTILE}",
    }
    _server(monkeypatch, pitch_cli.author, (200, [verdict]))
    result = CliRunner().invoke(
        app, ["author", "submissions", "--server", "http://arena", "--token", "pa_x"]
    )
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert result.output.endswith(f"  | {SHOWN}\n")


def test_author_logs_escapes_a_log_at_a_terminal_and_passes_it_whole_to_a_pipe(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _server(monkeypatch, pitch_cli.author, (200, f"thinking{HOSTILE}\n"))
    for terminal, expected in ((True, f"thinking{SHOWN}\n"), (False, f"thinking{HOSTILE}\n")):
        out = io.StringIO()
        out.isatty = lambda terminal=terminal: terminal  # type: ignore[method-assign]
        monkeypatch.setattr(pitch_cli.author, "sys", SimpleNamespace(stdout=out))
        pitch_cli.author.logs(
            "evil", "match/logs/worker-0/A1-a-evil.log", server="http://arena", token="pa_x"
        )
        assert out.getvalue() == expected


def test_pitch_submit_prints_a_refusal_escaped_on_one_error_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    refusal = f"refused: random did not finish; the end of its stderr:\n  | {HOSTILE} [/] [bold]"
    _server(monkeypatch, pitch_cli.submit, (422, {"detail": refusal}))
    server = ["--server", "http://arena", "--token", "pa_x"]
    monkeypatch.setattr(sys, "argv", ["pitch", "submit", str(reference.folder("random")), *server])
    with pytest.raises(SystemExit) as exit:
        pitch_cli.main()
    assert exit.value.code == 1
    error = capsys.readouterr().err
    assert "\x1b" not in error and "\x07" not in error and "\x9b" not in error
    assert error.startswith("error: refused: random did not finish")
    assert f"  | {SHOWN} [/] [bold]" in error  # markup is text too


@pytest.mark.slow
def test_ladder_submit_prints_a_refused_bots_stderr_escaped(tmp_path: Path) -> None:
    bot = tmp_path / "shouter"
    bot.mkdir()
    (bot / "bot.toml").write_text(
        'name = "shouter"\nversion = "1"\ncommand = ["python", "bot.py"]\n'
    )
    (bot / "bot.py").write_text(
        f"import sys\nsys.stderr.write({HOSTILE!r} + 'took over your terminal\\n')\nsys.exit(1)\n"
    )

    def pitch(*args: object) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "pitch_cli", *map(str, args)]
        return subprocess.run(command, capture_output=True, text=True, timeout=300)

    assert pitch("ladder", "init", "--ladder", tmp_path / "ladder").returncode == 0
    refused = pitch("ladder", "submit", bot, "--ladder", tmp_path / "ladder", "--trust-bots")
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "\x1b" not in refused.stderr and "\x07" not in refused.stderr
    assert f"  | {SHOWN}took over your terminal" in refused.stderr
