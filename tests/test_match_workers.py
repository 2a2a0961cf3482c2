"""`pitch match` whose worker process dies says so, exits 1, and resumes to the end."""

from __future__ import annotations

import json
import multiprocessing.synchronize
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pitch_referee.match import Entrant, MatchSettings, MatchStatus, run_match
from pitch_sdk import reference

pytestmark = pytest.mark.slow

SLOW_BOT = """
import time
from pitch_sdk.bots import RandomBot
from pitch_sdk.run import run

class Slow(RandomBot):
    def decide(self, view):
        time.sleep(0.02)  # slow enough that the kill lands while both workers play
        return super().decide(view)

raise SystemExit(run(Slow()))
"""


def _slow_bot(folder: Path) -> Path:
    folder.mkdir()
    (folder / "bot.toml").write_text(
        'name = "slow"\nversion = "0"\ncommand = ["python", "bot.py"]\n'
    )
    (folder / "bot.py").write_text(SLOW_BOT)
    return folder


def _worker_processes(parent: int) -> list[int]:
    """The multiprocessing workers among ``parent``'s children (not its resource tracker)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes()
        except (OSError, ValueError):
            continue
        parent_pid = int(stat.rsplit(")", 1)[1].split()[1])
        if parent_pid == parent and b"spawn_main" in command:
            found.append(int(entry.name))
    return found


def _pitch(*args: str | Path) -> list[str]:
    return [sys.executable, "-m", "pitch_cli", *map(str, args)]


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds workers through /proc")
def test_a_killed_worker_ends_the_match_with_an_error_and_resume_finishes_it(tmp_path):
    bot, out = _slow_bot(tmp_path / "slow"), tmp_path / "m"
    match = subprocess.Popen(
        _pitch("match", bot, bot, "--games", "8", "--concurrency", "2",
               "--rule", "hand_cap=3", "--out", out),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while (
        not (workers := _worker_processes(match.pid))
        or len(workers) < 2
        or not list(out.glob("games/*.json.gz"))
    ):
        assert time.monotonic() < deadline and match.poll() is None, "no game finished"
        time.sleep(0.02)
    os.kill(workers[0], signal.SIGKILL)
    stdout, stderr = match.communicate(timeout=120)

    assert match.returncode == 1, stdout + stderr
    assert re.search(r"worker \d died \(exit -9\) before the match ended", stderr), stderr
    assert f"pitch match --resume {out}" in stderr and stderr.count("\n") == 1, stderr
    assert "finished)" not in stdout
    kept = {path.name: path.read_bytes() for path in out.glob("games/*.json.gz")}
    assert 1 <= len(kept) < 8

    resumed = subprocess.run(
        _pitch("match", "--resume", out), capture_output=True, text=True, timeout=300
    )
    assert resumed.returncode == 0, resumed.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert (summary["status"], summary["games_played"]) == ("finished", 8)
    assert all((out / "games" / name).read_bytes() == data for name, data in kept.items())


def test_a_match_on_worker_processes_makes_no_named_semaphore_to_leak(tmp_path, monkeypatch):
    """A multiprocessing queue's named semaphores, left by a worker stopped at the wrong
    moment, had the resource tracker warn after the match's own last word."""
    made: list[str] = []
    real = multiprocessing.synchronize.SemLock.__init__

    def recording(self, *args, **kwargs):
        made.append(type(self).__name__)
        real(self, *args, **kwargs)

    monkeypatch.setattr(multiprocessing.synchronize.SemLock, "__init__", recording)
    random = Entrant.from_folder(reference.folder("random"))
    settings = MatchSettings(games=4, concurrency=2, rules={"hand_cap": 2})
    summary = run_match(random, random, settings, tmp_path / "m", announce=lambda _: None)
    assert (summary.status, summary.games_played) == (MatchStatus.FINISHED, 4)
    assert made == []
