"""A bot's log lines beside the step they came at, in a real Chromium: from a real match
run the documented way (a relative ``--out``), in the viewer, at a fault step (the bot's
last lines and its exception), in one seat's view, and on a live page as the game goes."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from pitch_sdk import reference
from pitch_web.app import create_app
from pitch_web.source import FolderSource

ROOT = Path(__file__).resolve().parents[2]
CHATTY = ROOT / "referee" / "tests" / "chatty_bot.py"
GAME = "m/games/pair-00000-a.json.gz"

pytestmark = pytest.mark.slow


def chatty_match(served: Path, crash_at: int, think_s: float, hands: int) -> subprocess.Popen:
    """``pitch match`` of the chatty bot (seats 0 and 2) against random, into ``served/m``."""
    bot = served.parent / "chatty"
    bot.mkdir(exist_ok=True)
    command = f'["{sys.executable}", "{CHATTY}", "{crash_at}", "{think_s}"]'
    (bot / "bot.toml").write_text(f'name = "chatty"\nversion = "1"\ncommand = {command}\n')
    served.mkdir(exist_ok=True)
    return subprocess.Popen(
        [sys.executable, "-m", "pitch_cli", "match", str(bot), str(reference.folder("random")),
         "--games", "1", "--no-duplicate", "--concurrency", "1", "--sandbox", "off",
         "--rule", f"hand_cap={hands}", "--seed", "5", "--out", "m"],
        cwd=served, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip


def get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.load(response)


def goto_step(page: Any, step: int, view: str = "all") -> None:
    page.evaluate(f"window.location.hash = 'step={step}&view={view}'")
    expect(page.get_by_test_id("position")).to_contain_text(f" step {step} of ")


@pytest.fixture(scope="module")
def crashed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    served = tmp_path_factory.mktemp("step-logs") / "served"
    match = chatty_match(served, crash_at=5, think_s=0, hands=1)
    assert match.wait(timeout=120) == 0, match.stderr.read() if match.stderr else ""
    return served


def test_the_viewer_shows_the_current_steps_lines_and_a_fault_steps_last_lines_and_exception(
    crashed, page, serve, screenshot
):
    with serve(create_app(FolderSource(crashed))) as server:
        data = get_json(f"{server.url}/api/timeline/{GAME}")
        chose = [line for line in data["logs"] if line["t"].startswith("chose ")]
        first, second = chose[0], next(line for line in chose if line["at"] != chose[0]["at"])
        page.goto(f"{server.url}/view/{GAME}")
        goto_step(page, first["at"])
        step_logs = page.get_by_test_id("step-logs")
        expect(step_logs).to_contain_text(first["t"])
        expect(step_logs).not_to_contain_text(second["t"])
        screenshot("step")
        assert first["s"] in (0, 2)  # the chatty bot's seats; seat 1's view hides its lines
        goto_step(page, first["at"], "1")
        expect(page.get_by_test_id("step-logs")).not_to_contain_text("chose")
        fault = next(i for i, step in enumerate(data["steps"]) if step["k"] == "fault")
        goto_step(page, fault)
        exception = page.get_by_test_id("fault-exception")
        expect(exception).to_have_text("ValueError: chatty gives up at its decision 5")
        last = page.get_by_test_id("fault-logs").locator(".log-line").all_inner_texts()
        said = max(n for n, text in enumerate(last) if text.startswith("chose "))
        raised = last.index("ValueError: chatty gives up at its decision 5")
        sdk = min(n for n, text in enumerate(last) if "pitch_sdk" in text)
        assert said < raised < last.index("Traceback (most recent call last):") < sdk
        screenshot("fault")
        goto_step(page, fault, "1")  # another seat's view: the fault, not the bot's lines
        expect(page.get_by_test_id("fault-logs")).to_contain_text("crashed")
        # the fault's own message names the exception (it is in the record); no log line is shown
        expect(page.get_by_test_id("fault-logs").locator(".log-line")).to_have_count(0)


def test_a_live_page_shows_the_lines_of_a_game_being_played_at_their_steps(
    tmp_path, page, serve, screenshot
):
    served = tmp_path / "served"
    match = chatty_match(served, crash_at=100_000, think_s=0.1, hands=5)
    try:
        with serve(create_app(FolderSource(served))) as server:
            page.goto(f"{server.url}/live")
            page.get_by_role("link", name="pair-00000-a").click(timeout=30_000)
            page.wait_for_selector("[data-testid=live-status]")
            page.wait_for_function(
                "() => window.pitchViewer.viewer.logs.some("
                "(line) => line.t.startsWith('chose ') && line.at !== null)",
                timeout=30_000,
            )
            assert "in progress" in page.get_by_test_id("result").inner_text()
            line = page.evaluate(
                "window.pitchViewer.viewer.logs.find("
                "(line) => line.t.startsWith('chose ') && line.at !== null)"
            )
            page.evaluate("window.pitchViewer.follow(false)")
            page.evaluate(f"window.pitchViewer.goto({line['at']})")
            expect(page.get_by_test_id("step-logs")).to_contain_text(line["t"])
            screenshot("live")
        assert match.wait(timeout=120) == 0
    finally:
        match.kill()
        match.wait()
