"""A live game followed in a real Chromium: a real ``pitch match`` with bot processes that
take their time, a real uvicorn server, a viewer opened mid-game that follows the game to
its end without a reload."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
import time
import urllib.request
from pathlib import Path

import pytest

from pitch_sdk.record import load_record
from pitch_web.app import create_app
from pitch_web.source import FolderSource

# One Chromium at a time: pytest-xdist runs the group on one worker.
pytestmark = pytest.mark.xdist_group("browser")

SLOW_BOT = textwrap.dedent(
    """
    import time

    from pitch_sdk.bots import RandomBot
    from pitch_sdk.run import run


    class Slow(RandomBot):
        name = "slow"

        def decide(self, view):
            time.sleep(0.06)  # a few seconds a game: time to open it mid-game
            return super().decide(view)


    if __name__ == "__main__":
        raise SystemExit(run(Slow()))
    """
)


@pytest.fixture
def slow_bot(tmp_path: Path) -> Path:
    folder = tmp_path / "slow"
    folder.mkdir()
    (folder / "bot.toml").write_text(
        'name = "slow"\nversion = "1.0"\ncommand = ["python", "bot.py"]\n'
    )
    (folder / "bot.py").write_text(SLOW_BOT)
    return folder


def _get_json(url: str) -> object:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.load(response)


def _wait_for(condition, timeout_s: float, what: str):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(0.1)
    pytest.fail(f"timed out waiting for {what}")


@pytest.mark.slow
def test_a_viewer_opened_mid_game_follows_a_real_match_to_its_end(
    tmp_path, slow_bot, page, screenshot, serve
):
    served = tmp_path / "served"
    served.mkdir()
    command = [sys.executable, "-m", "pitch_cli", "match", str(slow_bot), str(slow_bot),
               "--games", "1", "--no-duplicate", "--concurrency", "1", "--sandbox", "off",
               "--rule", "hand_cap=3", "--seed", "5", "--out", str(served / "m-slow")]  # fmt: skip
    with serve(create_app(FolderSource(served))) as server:
        page.goto(f"{server.url}/live")
        assert page.get_by_test_id("live-empty").is_visible()
        match = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            link = page.get_by_role("link", name="pair-00000-a")
            link.wait_for(timeout=30_000)  # the list refreshes itself
            (game,) = _get_json(f"{server.url}/api/live")
            assert game["key"] == "m-slow/pair-00000-a" and game["players"] == ["slow"] * 4
            screenshot("list")
            link.click()
            page.wait_for_selector("[data-testid=live-status]")
            result = page.get_by_test_id("result")
            assert "in progress" in result.inner_text()
            steps_at_open = page.evaluate("window.pitchViewer.length")
            page.evaluate("window.openedOnce = true")  # a reload would lose it
            screenshot("mid-game")
            page.wait_for_function(
                "() => document.querySelector('[data-testid=live-status]').textContent"
                ".includes('The game is over')",
                timeout=60_000,
            )
            assert page.evaluate("window.pitchViewer.length") > steps_at_open
            record = load_record(next((served / "m-slow" / "games").iterdir()))
            assert record.result is not None
            scores = record.result.scores
            shown = [int(n) for n in re.findall(r"-?\d+", result.inner_text())]
            final = any(tuple(shown[n : n + 2]) == scores for n in range(len(shown)))
            assert final  # the final score is shown
            assert page.evaluate("window.pitchViewer.position") == page.evaluate(
                "window.pitchViewer.length - 1"
            )  # it followed to the last step
            rows = page.get_by_test_id("hand-row")  # the hand table grew to the last hand
            assert rows.count() == len(record.hands)
            assert f"{scores[0]} – {scores[1]}" in rows.last.inner_text()
            marks = page.get_by_test_id("bid-mark").count()  # and the chart, a mark a hand
            assert marks == sum(1 for hand in record.hands if hand.score is not None)
            screenshot("finished")
            assert page.evaluate("window.openedOnce === true")  # followed without a reload
            assert _get_json(f"{server.url}/api/live") == []
            assert match.wait(timeout=60) == 0
        finally:
            match.kill()
            match.wait()
    assert not list((served / "m-slow" / "live").glob("*.jsonl"))


WRITER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from pitch_referee.live import JournalPublisher
    from pitch_sdk.gamerecord import FORMAT, VERSION
    from pitch_sdk.table import Started

    feed = JournalPublisher(Path(sys.argv[1]), 30).feed("pair-00000-a")
    rules = {"scoring": "points", "dealer_steal": False, "target": 55, "hand_cap": 200}
    heading = {"format": FORMAT, "version": VERSION, "rules": rules, "seed": 1,
               "first_dealer": 0,
               "players": [{"seat": s, "name": "doomed", "version": "1"} for s in range(4)]}
    feed(Started("pair-00000-a", heading))
    print("written", flush=True)
    time.sleep(60)
    """
)


@pytest.mark.slow
def test_a_followed_game_whose_run_is_killed_says_so(tmp_path, page, screenshot, serve):
    served = tmp_path / "served"
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(served / "m" / "live")],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert writer.stdout is not None and writer.stdout.readline() == "written\n"
        with serve(create_app(FolderSource(served))) as server:
            page.goto(f"{server.url}/live/m/pair-00000-a")
            status = page.get_by_test_id("live-status")
            assert "following" in status.inner_text()
            writer.kill()  # SIGKILL: its journal stays, unfinished
            writer.wait()
            page.wait_for_function(
                "() => document.querySelector('[data-testid=live-status]').textContent"
                ".includes('stopped before its end')",
                timeout=10_000,
            )
            screenshot("killed")
    finally:
        writer.kill()
        writer.wait()
