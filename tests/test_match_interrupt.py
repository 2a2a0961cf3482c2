"""Ctrl-C on `pitch match`: workers stopped, the match marked interrupted, the way to resume
said, exit 130; the resumed match then finishes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from pitch_sdk import reference

RANDOM = reference.folder("random")
GREEDY = reference.folder("greedy")

pytestmark = pytest.mark.slow


def _pitch(*args: object) -> list[str]:
    return [sys.executable, "-m", "pitch_cli", *map(str, args)]


@pytest.mark.parametrize(
    ("concurrency", "whole_group"),
    [(1, False), (2, True)],
    ids=["one worker, SIGINT to the match", "two workers, SIGINT to the group as a terminal"],
)
def test_ctrl_c_marks_the_match_interrupted_says_how_to_resume_and_resume_finishes_it(
    tmp_path, concurrency, whole_group
):
    out = tmp_path / "m"
    match = subprocess.Popen(
        _pitch("match", GREEDY, RANDOM, "--games", "40", "--concurrency", concurrency,
               "--rule", "hand_cap=4", "--out", out),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while len(list(out.glob("games/*.json.gz"))) < 2:
        assert time.monotonic() < deadline and match.poll() is None, "no game finished"
        time.sleep(0.02)
    if whole_group:  # what a terminal does: the workers get it too
        os.killpg(match.pid, signal.SIGINT)
    else:
        os.kill(match.pid, signal.SIGINT)
    stdout, stderr = match.communicate(timeout=60)

    assert match.returncode == 130, stdout + stderr
    assert f"to play the rest: pitch match --resume {out}" in stderr, stderr
    assert stderr.startswith("interrupted: ") and stderr.count("\n") == 1, stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "interrupted" and 2 <= summary["games_played"] < 40
    assert f"{summary['games_played']} of 40 games played" in stderr
    kept = {path.name: path.read_bytes() for path in out.glob("games/*.json.gz")}

    resumed = subprocess.run(
        _pitch("match", "--resume", out), capture_output=True, text=True, timeout=300
    )
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert (summary["status"], summary["games_played"]) == ("finished", 40)
    assert all((out / "games" / name).read_bytes() == data for name, data in kept.items())
