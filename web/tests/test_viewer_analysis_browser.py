"""A game's analysis on its viewer page, in a real Chromium: the button, the progress bar,
then each step's value, cost in colour and best card, and the hand table's par column
(docs/viewer.md, "Analysis"). Screenshots go to the artifacts folder."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pitch_sdk.bots import RandomBot
from pitch_sdk.options import RuleOptions
from pitch_sdk.record import write_record
from pitch_sdk.selfplay import play_game
from pitch_testkit.analysis import RELEASE, held_analyse
from pitch_web.analysis_jobs import AnalysisJobs
from pitch_web.analysis_store import AnalysisStore
from pitch_web.app import create_app
from pitch_web.game_analysis import analyse, decision_steps
from pitch_web.source import FolderSource
from pitch_web.timeline import timeline

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("browser")]

PHONE = {"width": 390, "height": 844}
VIEWPORTS = pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "phone"])


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    bots = [RandomBot(f"5:{seat}") for seat in range(4)]
    return play_game(bots, seed=5, options=RuleOptions(hand_cap=3))


@pytest.fixture(scope="module")
def analysis(record) -> dict[str, Any]:
    """The card plays' analysis (exact: the page's has the same, and sampled bids...)."""
    return analyse(record, decision_steps(timeline(record)["steps"]), samples=0)


@pytest.fixture
def release(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "release"
    monkeypatch.setenv(RELEASE, str(path))
    return path


@pytest.fixture
def served(record, serve, tmp_path: Path, release) -> Iterator[Any]:
    write_record(record, tmp_path / "game.json")
    app = create_app(FolderSource(tmp_path))
    app.state.analyses = jobs = AnalysisJobs(AnalysisStore(tmp_path / "kept"), analyse=held_analyse)
    with serve(app) as server:
        yield server
    jobs.close()


def analyse_on_the_page(page: Any, url: str, release: Path, screenshot: Any) -> None:
    page.goto(url)
    page.get_by_test_id("hand-0").wait_for()
    assert not page.get_by_test_id("par-heading").is_visible()
    page.get_by_test_id("analyse").click()  # held (pitch_testkit.analysis) after its first hand
    bar = page.get_by_test_id("analysis-progress")
    bar.wait_for()
    page.wait_for_function(
        "() => document.querySelector('[data-testid=analysis-progress]')?.value === 1"
    )
    assert "1 of 3 hands" in page.get_by_test_id("analysis-status").inner_text()
    screenshot("running")
    release.touch()
    page.get_by_test_id("analysis-done").wait_for(timeout=120_000)


@VIEWPORTS
def test_analysing_a_game_shows_progress_then_each_step_s_cost_colour_and_best_card(
    page, served, analysis, release, screenshot, viewport
):
    if viewport:
        page.set_viewport_size(viewport)
    analyse_on_the_page(page, f"{served.url}/view/game.json#step=0", release, screenshot)
    costly = max(analysis["decisions"], key=lambda decision: decision["cost"])
    assert costly["cost"] >= 2
    page.evaluate(f"() => window.pitchViewer.goto({costly['step']})")
    cost = page.get_by_test_id("analysis-cost")
    assert cost.get_attribute("data-colour") == "red"
    assert cost.inner_text() == f"costs {costly['cost']:g} points"
    assert page.get_by_test_id("analysis-best").inner_text() == costly["best"]
    value = page.get_by_test_id("analysis-value").inner_text()
    assert value.startswith(f"value before the move: {costly['value']:g} points for team ")
    best = {choice["action"] for choice in costly["choices"] if choice["value"] == costly["value"]}
    hand = page.get_by_test_id(f"hand-{costly['seat']}")
    marked = hand.get_by_test_id("best-card").evaluate_all(
        "cards => cards.map(c => c.dataset.card)"
    )
    assert marked and set(marked) <= best
    played = page.locator(f"[data-testid=trick-card-{costly['seat']}] .card")
    assert "red" in played.get_attribute("class").split()
    current = page.locator("[data-testid=narrative] li.current .pv-cost")
    assert current.inner_text() == f"\u2212{costly['cost']:g}"
    screenshot("costly-step")

    free = next(decision for decision in analysis["decisions"] if decision["cost"] == 0)
    page.evaluate(f"() => window.pitchViewer.goto({free['step']})")
    assert page.get_by_test_id("analysis-cost").get_attribute("data-colour") == "green"
    assert page.get_by_test_id("analysis-cost").inner_text() == "best"
    page.evaluate("() => window.pitchViewer.goto(0)")  # the deal: no decision
    assert page.get_by_test_id("analysis-step").inner_text() == "no analysed decision at this step"

    heading = page.get_by_test_id("par-heading")
    heading.scroll_into_view_if_needed()
    assert heading.is_visible()
    shown = [text.strip() for text in page.get_by_test_id("hand-par").all_inner_texts()]
    assert shown == [  # on a phone without "made" or "set" (in the cell's title)
        "{} \u2013 {}".format(*par["taken"])
        + ("" if viewport else " made" if par["made"] else " set")
        for par in analysis["pars"]
    ]
    box = heading.bounding_box()
    assert box["x"] + box["width"] <= page.viewport_size["width"]  # the column in view
    assert page.evaluate(  # and every other: the table needs no sideways scrolling
        """() => { const box = document.querySelector("[data-testid=hand-table]").parentNode;
        return box.scrollWidth <= box.clientWidth; }"""
    )
    screenshot("par-column")

    with urllib.request.urlopen(f"{served.url}/api/analysis/game.json") as answer:
        shown_analysis = json.load(answer)["analysis"]
    bid = next(d for d in shown_analysis["decisions"] if d["kind"] == "bid" and d["cost"] > 0)
    page.evaluate(f"() => window.pitchViewer.goto({bid['step']})")
    assert (
        page.get_by_test_id("analysis-cost")
        .inner_text()
        .startswith(f"costs {bid['cost']:g} \u00b1 ")
    )
    choices = page.get_by_test_id("analysis-choices").inner_text()
    assert all(choice["action"] in choices for choice in bid["choices"]) and "\u00b1" in choices
    screenshot("sampled-bid")


def test_a_kept_analysis_shows_at_once_and_hides_other_seats_and_the_par_when_asked(
    page, served, analysis, release, screenshot
):
    release.touch()
    page.goto(f"{served.url}/view/game.json")
    page.get_by_test_id("analyse").click()
    page.get_by_test_id("analysis-done").wait_for(timeout=120_000)
    costly = max(analysis["decisions"], key=lambda decision: decision["cost"])
    other = (costly["seat"] + 1) % 4
    page.goto(f"{served.url}/view/game.json#step={costly['step']}&view={other}&result=hidden")
    page.get_by_test_id("hand-0").wait_for()
    step = page.get_by_test_id("analysis-step")
    step.wait_for()
    assert "shows in the everything view" in step.inner_text()
    assert page.get_by_test_id("best-card").count() == 0
    assert not page.get_by_test_id("par-heading").is_visible()  # the spoiler-free mode
    page.get_by_test_id("mode").select_option(str(costly["seat"]))
    assert page.get_by_test_id("analysis-cost").inner_text().startswith("costs ")
    screenshot("seat-view")
