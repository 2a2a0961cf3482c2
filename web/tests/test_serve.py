"""``pitch serve`` and ``pitch view`` as a user runs them: real processes on free ports,
answering over HTTP, and stopping cleanly on Ctrl-C (SIGINT)."""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request

import pytest

from pitch_testkit.processes import start, stop
from pitch_testkit.samples import build_ladder, match_folder

pytestmark = pytest.mark.slow


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
