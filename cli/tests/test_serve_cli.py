"""``pitch serve`` and ``pitch view``: bad input is one line of error, never a traceback,
and ``pitch view`` opens the browser at the record's viewer."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import pitch_cli.view
from pitch_cli import app
from pitch_sdk.bots import RandomBot
from pitch_sdk.options import RuleOptions
from pitch_sdk.record import write_record
from pitch_sdk.selfplay import play_game


def refusal(*args: str | Path) -> str:
    """``pitch ARGS`` as a process that must fail: its one line of error."""
    done = subprocess.run(
        [sys.executable, "-m", "pitch_cli", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def test_serve_refuses_a_missing_folder_in_one_line(tmp_path):
    assert refusal("serve", tmp_path / "nothing") == f"error: no folder {tmp_path / 'nothing'}"
    assert "no ladder in" in refusal("serve", "--ladder", tmp_path)


def test_serve_refuses_a_port_in_use_in_one_line(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        message = refusal("serve", tmp_path, "--port", port)
    assert message == f"error: port {port} on 127.0.0.1 is in use: choose another with --port"


def test_serve_refuses_an_unreachable_database_in_one_line(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "pitch_cli", "ladder", "init", "--ladder", str(tmp_path)],
        capture_output=True,
        check=True,
        timeout=120,
    )
    message = refusal("serve", tmp_path, "--db", "postgresql://nobody@127.0.0.1:1/none")
    assert message.startswith("error: cannot reach the database")


def test_view_refuses_a_file_that_is_not_a_record(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    assert "not a readable JSON game record" in refusal("view", text)
    assert (
        refusal("view", tmp_path / "gone.json")
        == f"error: no record or folder {tmp_path / 'gone.json'}"
    )


def test_view_opens_the_browser_at_the_records_viewer(tmp_path, monkeypatch: pytest.MonkeyPatch):
    record = tmp_path / "my game.json.gz"
    options = RuleOptions.from_dict({"hand_cap": 1})
    write_record(play_game([RandomBot(seat) for seat in range(4)], 5, options), record)
    opened: list[str] = []
    served: list[Any] = []

    def run(source: Any, listener: socket.socket, on_ready: Any) -> None:
        served.append(source)
        on_ready()
        listener.close()

    monkeypatch.setattr(pitch_cli.view, "run", run)
    monkeypatch.setattr(pitch_cli.view.webbrowser, "open", opened.append)
    result = CliRunner().invoke(app, ["view", str(record)])
    assert result.exit_code == 0, result.output
    (url,) = opened
    assert url.startswith("http://127.0.0.1:") and url.endswith("/view/my%20game.json.gz")
    assert served[0].folder == tmp_path.resolve()
    assert url in result.output


def test_view_serves_a_match_game_from_its_match_folder(tmp_path, monkeypatch: pytest.MonkeyPatch):
    games = tmp_path / "m" / "games"
    games.mkdir(parents=True)
    (tmp_path / "m" / "match.json").write_text("{}")
    record = games / "pair-00000-a.json.gz"
    options = RuleOptions.from_dict({"hand_cap": 1})
    write_record(play_game([RandomBot(seat) for seat in range(4)], 5, options), record)
    served: list[Any] = []

    def run(source: Any, listener: socket.socket, on_ready: Any) -> None:
        served.append(source)
        on_ready()
        listener.close()

    monkeypatch.setattr(pitch_cli.view, "run", run)
    result = CliRunner().invoke(app, ["view", str(record), "--no-browser"])
    assert result.exit_code == 0, result.output
    assert served[0].folder == (tmp_path / "m").resolve()
    assert "/view/games/pair-00000-a.json.gz" in result.output


def _record(folder: Path) -> Path:
    record = folder / "game.json.gz"
    options = RuleOptions.from_dict({"hand_cap": 1})
    write_record(play_game([RandomBot(seat) for seat in range(4)], 5, options), record)
    return record


class _AppBuilt(Exception):
    """Stops ``pitch view`` once it starts building the web app."""


def test_view_prints_its_address_before_it_builds_the_web_app(
    tmp_path, monkeypatch: pytest.MonkeyPatch
):
    import pitch_web

    def create_app(source: Any) -> Any:
        print("building the app")
        raise _AppBuilt

    monkeypatch.setattr(pitch_web, "create_app", create_app)
    result = CliRunner().invoke(app, ["view", str(_record(tmp_path)), "--no-browser"])
    assert isinstance(result.exception, _AppBuilt), result.output
    assert result.output.startswith("viewing "), result.output
    assert result.output.index(" at http://") < result.output.index("building the app")


@pytest.mark.slow
def test_view_prints_an_address_that_accepts_at_once_and_serves_the_viewer(tmp_path):
    view = subprocess.Popen(
        [sys.executable, "-m", "pitch_cli", "view", str(_record(tmp_path)), "--no-browser"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        assert view.stdout is not None
        url = view.stdout.readline().split(" at ")[1].split()[0]
        host, port = url.removeprefix("http://").split("/")[0].split(":")
        socket.create_connection((host, int(port)), timeout=1).close()  # accepts already
        with urllib.request.urlopen(url, timeout=60) as page:  # answered once it serves
            assert page.status == 200
    finally:
        view.send_signal(signal.SIGINT)
        view.wait(timeout=30)
