"""`pitch match --attach NAME`: bots started by hand, one process per seat and game letter, in
time or not."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time

import pytest

from pitch_sdk import reference

RANDOM = reference.folder("random")

pytestmark = pytest.mark.slow


def _pitch(*args: object) -> list[str]:
    return [sys.executable, "-m", "pitch_cli", *map(str, args)]


def test_an_attached_bot_is_asked_at_once_for_a_process_per_seat_and_game_letter_and_plays(
    tmp_path,
):
    out = tmp_path / "m"
    match = subprocess.Popen(
        _pitch("match", "mine", RANDOM, "--attach", "mine", "--games", "2",
               "--rule", "hand_cap=2", "--sandbox", "off", "--out", out),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert match.stdout is not None
    said, tokens, bots = [], [], []
    try:
        while len(tokens) < 4:
            line = match.stdout.readline()
            assert line, "".join(said) + match.stderr.read() if match.stderr else ""
            said.append(line)
            found = re.search(r"PITCH_ADDRESS='([^']+)' PITCH_TOKEN='([^']+)'", line)
            if found:
                tokens.append(found.groups())
        shown = "".join(said)
        assert "waiting 120 s for 4 processes started by hand (mine)" in shown
        # Two seats, each with a process for the a games and another for the b games: no
        # process sees both games of a deal pair.
        assert re.findall(r"mine \((A[12]-[ab])\)", shown) == ["A1-a", "A2-a", "A1-b", "A2-b"]
        for address, token in tokens:
            env = {**os.environ, "PITCH_ADDRESS": address, "PITCH_TOKEN": token}
            bots.append(
                subprocess.Popen(
                    [sys.executable, "bot.py"],
                    cwd=RANDOM,
                    env=env,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        stdout, stderr = match.communicate(timeout=120)
    finally:
        match.kill()
        for bot in bots:
            bot.wait(timeout=30)
    assert match.returncode == 0, stdout + stderr
    summary = json.loads((out / "summary.json").read_text())
    assert (summary["status"], summary["games_played"]) == ("finished", 2)
    assert summary["bots"]["a"] == {"name": "mine", "version": "by hand", "folder": None}


def test_an_attached_bot_that_never_connects_gives_up_after_the_limit_it_printed(tmp_path):
    started = time.monotonic()
    done = subprocess.run(
        _pitch("match", "mine", RANDOM, "--attach", "mine", "--attach-timeout", "1",
               "--games", "2", "--out", tmp_path / "m"),
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    assert time.monotonic() - started < 60
    assert "waiting 1 s for 4 processes started by hand (mine)" in done.stdout
    assert "did not connect within 1 s" in done.stderr and done.stderr.count("\n") == 1
    assert "--attach-timeout" in done.stderr


def test_a_bot_argument_that_is_neither_a_folder_nor_attached_is_one_line(tmp_path):
    done = subprocess.run(
        _pitch("match", "mine", RANDOM, "--out", tmp_path / "m"),
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 1
    assert done.stderr == (
        "error: no bot folder at mine: give a folder with a bot.toml, or --attach mine to "
        "start it by hand\n"
    )
    assert not (tmp_path / "m").exists()
