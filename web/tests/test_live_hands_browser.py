"""A live page's hand table and score chart in a real Chromium, on a desktop window and a
phone-sized one: they grow as the game's hands end, without a reload, and stay hidden in
the spoiler-free mode until the game's last step is shown (docs/live.md).

The game is journaled by this process and its journal released a few hands at a time, as
the referee would write it; test_live_browser.py follows a real match.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pitch_sdk.gamerecord import GameRecord
from pitch_testkit.journal import KEY, journaled_game, write_final
from pitch_web.app import create_app
from pitch_web.source import FolderSource

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("browser")]

PHONE = {"width": 390, "height": 844}
ROWS = "document.querySelectorAll('[data-testid=hand-row]').length"
MARKS = "document.querySelectorAll('[data-testid=bid-mark]').length"
OVER = "document.querySelector('[data-testid=live-status]').textContent.includes('is over')"


class Game:
    """A journaled game released to its journal up to a deal at a time."""

    def __init__(self, served: Path) -> None:
        self.served = served
        self.journal, self.record = journaled_game(served)
        self.lines = self.journal.read_text().splitlines(keepends=True)
        self.deals = [n for n, line in enumerate(self.lines) if line.startswith('{"event":"deal"')]
        self.written = 0
        self.journal.write_text("")

    def until_deal(self, deal: int) -> None:
        """Append the journal's lines up to just after its ``deal``-th deal."""
        self._append(self.deals[deal - 1] + 3)

    def finish(self) -> None:
        """The rest of the game; its record is written and its journal removed."""
        self._append(len(self.lines))
        write_final(self.served, self.record)
        self.journal.unlink()

    def _append(self, end: int) -> None:
        with self.journal.open("a") as journal:  # as the referee writes it: appended
            journal.write("".join(self.lines[self.written : end]))
        self.written = end


def wait_for(page: Any, expression: str) -> None:
    page.wait_for_function(f"() => {expression}", timeout=15_000)


def scored_hands(record: GameRecord) -> int:
    return sum(1 for hand in record.hands if hand.score is not None)


@pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "phone"])
def test_a_live_pages_hand_table_and_score_chart_grow_as_hands_end_without_a_reload(
    page, serve, tmp_path, screenshot, viewport
):
    if viewport:
        page.set_viewport_size(viewport)
    game = Game(tmp_path / "served")
    game.until_deal(2)
    with serve(create_app(FolderSource(game.served))) as server:
        page.goto(f"{server.url}/live/{KEY}")
        page.get_by_test_id("live-status").wait_for()
        page.evaluate("window.openedOnce = true")  # a reload would lose it
        assert page.evaluate(ROWS) == 2 and page.evaluate(MARKS) == 1
        results = page.get_by_test_id("hand-result")
        assert results.nth(1).inner_text() == "not scored"
        screenshot("hand-2")
        game.until_deal(4)
        wait_for(page, f"{ROWS} === 4 && {MARKS} === 3")
        assert [results.nth(n).inner_text() for n in range(4)] == [
            "made" if hand.score and hand.score.made else "set" for hand in game.record.hands[:3]
        ] + ["not scored"]
        assert page.evaluate("window.pitchViewer.following")  # still at the newest step
        screenshot("hand-4")
        first = page.get_by_test_id("hand-row").first
        first.locator("a").click()  # to hand 1's deal: the page stops following
        deal = int(first.get_attribute("data-step"))
        assert page.evaluate("window.pitchViewer.position") == deal
        assert not page.evaluate("window.pitchViewer.following")
        game.finish()
        wait_for(page, OVER)
        assert page.evaluate("window.pitchViewer.position") == deal  # it stayed there
        assert page.evaluate(ROWS) == len(game.record.hands)
        assert page.evaluate(MARKS) == scored_hands(game.record)
        assert "not scored" not in page.get_by_test_id("hand-table").inner_text()
        assert game.record.result is not None
        scores = game.record.result.scores
        last = page.get_by_test_id("hand-row").last.inner_text()
        assert f"{scores[0]} – {scores[1]}" in last
        assert page.evaluate("window.openedOnce === true")
        screenshot("over")


def test_a_live_pages_hand_table_and_chart_stay_hidden_in_the_spoiler_free_mode_until_the_end(
    page, serve, tmp_path, screenshot
):
    game = Game(tmp_path / "served")
    game.until_deal(2)
    with serve(create_app(FolderSource(game.served))) as server:
        page.goto(f"{server.url}/live/{KEY}#result=hidden")
        page.get_by_test_id("live-status").wait_for()
        assert page.get_by_test_id("hide-result").is_checked()
        table = page.get_by_test_id("hand-table-section")
        chart = page.get_by_test_id("score-chart-section")
        assert table.is_hidden() and chart.is_hidden()
        game.until_deal(3)
        wait_for(page, f"{ROWS} === 3")
        assert table.is_hidden() and chart.is_hidden()  # grown, but out of sight
        screenshot("hidden")
        game.finish()
        wait_for(page, OVER)
        assert table.is_visible() and chart.is_visible()  # the last step is shown
        page.keyboard.press("Home")
        assert table.is_hidden() and chart.is_hidden()
