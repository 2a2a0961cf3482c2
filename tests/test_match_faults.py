"""`pitch match` says why a bot failed, and stops early when a bot cannot play at all."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pitch_referee.match import Entrant, MatchSettings, MatchStatus, run_match
from pitch_sdk import reference

RANDOM = reference.folder("random")

pytestmark = pytest.mark.slow

RAISES = """
from pitch_sdk.bots import RandomBot
from pitch_sdk.run import run


class Raises(RandomBot):
    def decide(self, view, budget=None):
        raise ZeroDivisionError("the first decision goes wrong")


raise SystemExit(run(Raises()))
"""

BROKEN = {
    # folder: (command, bot.py, the fault kinds it may get, a line its output must show)
    "no-command": (["does-not-exist-xyz"], None, {"start_failed"}, "does-not-exist-xyz"),
    "syntax": (["python", "bot.py"], "def broken(:\n    pass\n", {"start_failed"}, "SyntaxError"),
    "raises": (
        ["python", "bot.py"],
        RAISES,
        {"crashed", "disconnected"},
        "ZeroDivisionError: the first decision goes wrong",
    ),
}


def _bot(folder: Path, name: str) -> Path:
    command, code, _, _ = BROKEN[name]
    folder.mkdir()
    (folder / "bot.toml").write_text(
        f'name = "{name}"\nversion = "0"\ncommand = {json.dumps(command)}\n'
    )
    if code is not None:
        (folder / "bot.py").write_text(code)
    return folder


def _match(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pitch_cli", "match", *map(str, args)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_a_bot_that_cannot_play_stops_the_match_early_showing_why(tmp_path, name):
    bot, out = _bot(tmp_path / name, name), tmp_path / "m"
    done = _match(bot, RANDOM, "--games", "40", "--rule", "hand_cap=2", "--out", out)
    assert done.returncode == 1, done.stdout + done.stderr
    _, _, kinds, shown = BROKEN[name]
    assert any(f"faults of {name} (A): {kind}" in done.stdout for kind in kinds), done.stdout
    assert shown in done.stdout, done.stdout
    # The error is the last thing said (a worker stopped mid-start may first print asyncio's
    # "Exception ignored" note about its closed event loop; the error itself must be clean).
    error = done.stderr[done.stderr.index(f"error: {name} cannot play") :]
    assert "--keep-going" in error and "Traceback" not in error
    assert done.stderr.count("\n") == 1, done.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "stopped: a bot cannot play" and summary["cannot_play"] == ["a"]
    assert summary["games_played"] < 40
    assert set(summary["result"]["faults_by_kind"]["a"][0]) >= {"kind", "count", "first_detail"}


def test_keep_going_plays_every_game_of_a_bot_that_cannot_play(tmp_path):
    bot, out = _bot(tmp_path / "no-command", "no-command"), tmp_path / "m"
    done = _match(bot, RANDOM, "--games", "6", "--keep-going", "--out", out)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "faults of no-command (A): start_failed x6" in done.stdout, done.stdout
    summary = json.loads((out / "summary.json").read_text())
    assert (summary["status"], summary["games_played"]) == ("finished", 6)


def test_a_bot_against_itself_is_found_unable_to_play_though_it_forfeits_first(tmp_path):
    """Seat 0 forfeits before seat 1 is asked anything: that game says nothing of B."""
    entrant = Entrant.from_folder(_bot(tmp_path / "no-command", "no-command"))
    settings = MatchSettings(games=20, concurrency=1)
    summary = run_match(
        entrant, entrant, settings, tmp_path / "m", announce=lambda _: None,
        stop_if_unplayable=True,
    )  # fmt: skip
    assert summary.status is MatchStatus.CANNOT_PLAY and summary.cannot_play == ("a", "b")
    assert summary.games_played < 20


def test_a_bot_that_plays_is_never_stopped_for_its_opponent(tmp_path):
    entrant = Entrant.from_folder(_bot(tmp_path / "no-command", "no-command"))
    settings = MatchSettings(games=4, concurrency=1, rules={"hand_cap": 2})
    summary = run_match(
        Entrant.from_folder(RANDOM), entrant, settings, tmp_path / "m",
        announce=lambda _: None, stop_if_unplayable=True,
    )  # fmt: skip
    assert summary.cannot_play == ("b",) and summary.a_faults == ()
    assert [tally.kind for tally in summary.b_faults] == ["start_failed"]
