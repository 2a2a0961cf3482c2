"""Matches publish their games live: a ladder's match (written as the ladder's executor
writes it, then played by ``resume_match``) has a journal per game while the game is
played, and none once it is over; a match stopped by Ctrl-C, or whose worker is killed,
leaves none behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from pitch_referee.live import live_journals
from pitch_referee.match import Entrant, MatchFolder, MatchSettings, resume_match

SLOW_BOT = textwrap.dedent(
    """
    import time

    from pitch_sdk.bots import RandomBot
    from pitch_sdk.run import run


    class Slow(RandomBot):
        name = "slow"

        def decide(self, view):
            time.sleep(0.03)
            return super().decide(view)


    if __name__ == "__main__":
        raise SystemExit(run(Slow()))
    """
)


def _slow_bot(folder: Path) -> Path:
    bot = folder / "slow"
    bot.mkdir()
    (bot / "bot.toml").write_text(
        'name = "slow"\nversion = "1.0"\ncommand = ["python", "bot.py"]\n'
    )
    (bot / "bot.py").write_text(SLOW_BOT)
    return bot


@pytest.mark.slow
def test_a_ladder_match_journals_each_game_while_it_is_played_and_not_after(tmp_path):
    bot = _slow_bot(tmp_path)
    ladder = tmp_path / "ladder"
    root = ladder / "matches" / "0001-slow-vs-slow"
    settings = MatchSettings(
        games=2, seed=3, concurrency=1, sandbox="off", rules={"hand_cap": 1}, duplicate=True
    )
    slow = Entrant.from_argument(str(bot))
    MatchFolder(root).write_header(slow, slow, settings)
    seen: set[str] = set()
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            seen.update(journal.game for journal in live_journals(ladder))
            time.sleep(0.05)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        summary = resume_match(root, announce=lambda _: None)
    finally:
        done.set()
        watcher.join()
    assert summary.games_played == 2
    assert seen == {"pair-00000-a", "pair-00000-b"}
    assert live_journals(ladder) == [] and not list((root / "live").iterdir())


def _match_with_two_workers(tmp_path: Path) -> tuple[subprocess.Popen, Path]:
    """A ``pitch match`` of slow bots on two worker processes, once both play a game."""
    bot, out = _slow_bot(tmp_path), tmp_path / "m"
    match = subprocess.Popen(
        [sys.executable, "-m", "pitch_cli", "match", bot, bot, "--games", "8",
         "--concurrency", "2", "--sandbox", "off", "--seed", "4", "--out", out],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while len(live_journals(out)) < 2:
        assert time.monotonic() < deadline and match.poll() is None, "no two games at once"
        time.sleep(0.05)
    return match, out


@pytest.mark.slow
def test_ctrl_c_stops_a_match_and_leaves_no_journal(tmp_path):
    match, out = _match_with_two_workers(tmp_path)
    os.killpg(match.pid, signal.SIGINT)  # as a terminal does: the workers get it too
    _, stderr = match.communicate(timeout=60)
    assert match.returncode == 130, stderr
    assert not list((out / "live").iterdir())


@pytest.mark.slow
def test_a_killed_workers_journal_is_swept_when_the_match_stops(tmp_path):
    match, out = _match_with_two_workers(tmp_path)
    victim = live_journals(out)[0]
    os.kill(victim.header["pid"], signal.SIGKILL)
    deadline = time.monotonic() + 10
    while not victim.is_stale():  # a process that is dead, or dead and not yet reaped
        assert time.monotonic() < deadline, "a killed worker's journal still counts as live"
        time.sleep(0.01)
    _, stderr = match.communicate(timeout=60)
    assert match.returncode == 1 and "died" in stderr, stderr
    assert not list((out / "live").iterdir())
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "interrupted"
