"""The game page's study sections in a real Chromium: the per-hand table and the score
chart under the viewer (docs/viewer.md). Screenshots go to the artifacts folder."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from pitch_sdk.bots import GreedyBot
from pitch_sdk.options import RuleOptions
from pitch_sdk.record import write_record
from pitch_sdk.selfplay import play_game
from pitch_web.app import create_app
from pitch_web.source import FolderSource
from pitch_web.timeline import timeline

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("browser")]

PHONE = {"width": 390, "height": 844}
VIEWPORTS = pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "phone"])


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    return play_game([GreedyBot() for _ in range(4)], seed=7, options=RuleOptions(hand_cap=8))


@pytest.fixture
def served(record, serve, tmp_path: Path) -> Any:
    write_record(record, tmp_path / "game.json")
    with serve(create_app(FolderSource(tmp_path))) as server:
        yield server


def open_game(page: Any, url: str, viewport: dict[str, int] | None) -> None:
    if viewport:
        page.set_viewport_size(viewport)
    page.goto(url)
    page.get_by_test_id("hand-0").wait_for()


@VIEWPORTS
def test_the_hand_table_lists_each_hand_as_scored_and_a_click_goes_to_its_deal(
    page, served, record, screenshot, viewport
):
    steps = timeline(record)["steps"]
    deals = [index for index, step in enumerate(steps) if step["k"] == "deal"]
    scored = [step["scored"] for step in steps if "scored" in step]
    open_game(page, f"{served.url}/view/game.json", viewport)
    rows = page.get_by_test_id("hand-row")
    assert rows.count() == len(deals) == record.result.hands
    results = [text.strip() for text in page.get_by_test_id("hand-result").all_inner_texts()]
    assert results == ["made" if hand["made"] else "set" for hand in scored]
    assert {"made", "set"} <= set(results)  # the game shows both kinds
    last = rows.nth(len(deals) - 1).inner_text()
    assert "{} \u2013 {}".format(*record.result.scores) in last
    assert f"{scored[-1]['bid']}" in last
    row = rows.nth(2)
    row.scroll_into_view_if_needed()
    box = row.get_by_test_id("hand-result").bounding_box()  # a cell away from the link
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_function(f"() => window.pitchViewer.position === {deals[2]}")
    assert f"#step={deals[2]}&" in page.url
    assert page.get_by_test_id("hand-menu").input_value() == "3"
    score = page.locator("[data-testid=hand-table] th:not([hidden])").last.bounding_box()
    assert score["x"] + score["width"] <= page.viewport_size["width"]  # every column in view
    screenshot("hand-table")


def test_the_hand_table_and_score_chart_stay_hidden_in_the_spoiler_free_mode_until_the_end(
    page, served
):
    open_game(page, f"{served.url}/view/game.json#step=0&result=hidden", None)
    for section in ("hand-table", "score-chart"):
        assert not page.get_by_test_id(section).is_visible()
    page.keyboard.press("End")
    for section in ("hand-table", "score-chart"):
        assert page.get_by_test_id(section).is_visible()


@VIEWPORTS
def test_the_score_chart_draws_both_teams_scores_and_marks_each_bid_made_or_set(
    page, served, record, screenshot, viewport
):
    steps = timeline(record)["steps"]
    deals = [index for index, step in enumerate(steps) if step["k"] == "deal"]
    scored = [step["scored"] for step in steps if "scored" in step]
    open_game(page, f"{served.url}/view/game.json", viewport)
    chart = page.get_by_test_id("score-chart")
    chart.scroll_into_view_if_needed()
    for team in (0, 1):
        points = page.get_by_test_id(f"score-line-{team}").get_attribute("points").split()
        assert len(points) == len(scored) + 1  # the start and each hand
    heights = page.evaluate(
        """() => [0, 1].map((team) => document.querySelector(`[data-testid=score-line-${team}]`)
            .getAttribute("points").split(" ").map((p) => Number(p.split(",")[1])))"""
    )
    for team in (0, 1):  # a higher score is drawn higher up
        scores = [0] + [hand["scores"][team] for hand in scored]
        for (a, ya), (b, yb) in pairwise(zip(scores, heights[team], strict=True)):
            assert (b > a) == (yb < ya) and (b == a) == (yb == ya)
    marks = page.get_by_test_id("bid-mark")
    assert marks.count() == len(scored)
    made = marks.evaluate_all("ms => ms.map((m) => m.dataset.made === 'true')")
    assert made == [hand["made"] for hand in scored] and True in made and False in made
    box = chart.bounding_box()
    assert box["width"] <= page.viewport_size["width"] and box["height"] > 80
    screenshot("score-chart")
    marks.nth(3).click()
    page.wait_for_function(f"() => window.pitchViewer.position === {deals[3]}")
