"""``pitch serve`` and ``pitch view`` as a user runs them: real processes on free ports,
answering over HTTP, and stopping cleanly on Ctrl-C (SIGINT)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

HERE = Path(__file__).parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from test_api import build_ladder, match_folder  # noqa: E402

pytestmark = pytest.mark.slow


def post_upload(address: str, token: str, body: bytes, timeout: float) -> tuple[int, dict]:
    """``POST /api/submissions`` of an archive to the server at ``address``: the status and
    the JSON answer (status 0 when no answer came)."""
    request = urllib.request.Request(
        f"{address}api/submissions",
        data=body,
        headers={"Authorization": f"Bearer {token}"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())
    except (urllib.error.URLError, ConnectionError, TimeoutError) as error:
        return 0, {"detail": str(error)}


def start(*args: str | Path) -> tuple[subprocess.Popen[str], str]:
    """``pitch ARGS`` as a process, and the address from its first line."""
    process = subprocess.Popen(
        [sys.executable, "-m", "pitch_cli", *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    if " at http" not in line:
        process.kill()
        raise AssertionError(f"no address in {line!r}: {process.communicate()[1]}")
    return process, line.split(" at ", 1)[1].split()[0]


def stop(process: subprocess.Popen[str]) -> tuple[int, str, str]:
    """Ctrl-C, then the exit status, the rest of stdout and stderr."""
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=20)
    return process.returncode, out, err


def get_json(url: str) -> object:
    with urllib.request.urlopen(url, timeout=20) as response:
        assert response.status == 200
        return json.loads(response.read())


def test_serve_answers_the_standings_and_stops_cleanly_on_ctrl_c(tmp_path):
    build_ladder(f"sqlite:///{tmp_path / 'ladder' / 'ladder.db'}", tmp_path).close()
    process, address = start(
        "serve", "--ladder", tmp_path / "ladder", "--port", "0", "--no-scheduler"
    )
    try:
        assert address.startswith("http://127.0.0.1:")
        standings = get_json(f"{address}api/standings")["standings"]
        assert [line["bot"] for line in standings] == ["alpha", "gamma", "beta"]
    finally:
        status, out, err = stop(process)
    assert status == 0, err
    assert out.strip() == "stopped"
    assert "Traceback" not in err


def test_view_serves_a_match_folder_at_its_first_games_viewer(tmp_path):
    folder = match_folder(tmp_path / "m")
    process, address = start("view", folder, "--no-browser")
    try:
        assert address.endswith("/view/games/pair-00000-a.json.gz")
        with urllib.request.urlopen(address, timeout=20) as response:
            assert response.status == 200
        games = get_json(address.split("/view/")[0] + "/api/games?match=")
        assert isinstance(games, dict)
    finally:
        status, _out, err = stop(process)
    assert status == 0, err


def test_serve_sweeps_old_logs_at_start_as_its_retention_settings_say(tmp_path):
    build_ladder(f"sqlite:///{tmp_path / 'ladder' / 'ladder.db'}", tmp_path).close()
    old = tmp_path / "ladder" / "smoke" / "submission-9" / "conformance.log"
    old.parent.mkdir(parents=True)
    old.write_text("an old refusal's log\n")
    long_ago = time.time() - 40 * 86_400
    os.utime(old, (long_ago, long_ago))
    config = tmp_path / "arena.toml"
    config.write_text("[retention]\nrefused_log_days = 30\n")
    process, _ = start(
        "serve", "--ladder", tmp_path / "ladder", "--port", "0", "--no-scheduler",
        "--config", config,
    )  # fmt: skip
    try:
        deadline = time.time() + 20
        while old.exists() and time.time() < deadline:
            time.sleep(0.1)
        assert not old.parent.exists()
    finally:
        assert stop(process)[0] == 0
