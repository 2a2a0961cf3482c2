"""The duplicate comparison and the match page's pairs in a real Chromium, on a desktop
window and a phone: a match played by ``pitch match`` (real bot processes over gRPC),
and a pair made by the engine where one bot plays another card once (its divergence is a
card, analysed double-dummy). Screenshots go to the artifacts folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from pitch_cli import app as cli
from pitch_sdk.bots import GreedyBot
from pitch_testkit.duplicate import CONTRARY_HAND, Contrary, duplicate_pair, write_match
from pitch_web.app import create_app
from pitch_web.source import FolderSource

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("browser")]

PHONE = {"width": 390, "height": 844}
VIEWPORTS = pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "phone"])
POSITION = "window.pitchViewer.position"


@pytest.fixture(scope="module")
def served_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``played``: greedy against random, 4 games of 3 hands; ``engine``: a pair where the
    contrary bot plays another card once."""
    folder = tmp_path_factory.mktemp("compare")
    result = CliRunner().invoke(
        cli,
        ["match", "@greedy", "@random", "--games", "4", "--seed", "3", "--concurrency", "1",
         "--rule", "hand_cap=3", "--sandbox", "off", "--out", str(folder / "played")],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    other = duplicate_pair(lambda: Contrary(CONTRARY_HAND), GreedyBot)
    write_match(folder / "engine", [*other, *other], faults=1)
    return folder


@pytest.fixture
def site(served_folder: Path, serve: Any) -> Any:
    with serve(create_app(FolderSource(served_folder))) as server:
        yield server


@VIEWPORTS
def test_the_match_page_has_a_row_per_pair_with_both_games_the_result_and_faults(
    page, site, screenshot, viewport
):
    if viewport:
        page.set_viewport_size(viewport)
    page.goto(f"{site.url}/matches/played")
    rows = page.get_by_test_id("pair-row")
    assert rows.count() == 2
    for n in range(2):
        row = rows.nth(n)
        assert row.locator("a.view").all_inner_texts() == ["a", "b"]
        assert row.get_by_test_id("pair-score").inner_text().split()[0] in {
            "0", "0.5", "1", "1.5", "2"
        }  # fmt: skip
        assert row.get_by_test_id("pair-faults").inner_text() == "0 / 0"
        compare = row.get_by_test_id("pair-compare")
        assert compare.get_attribute("href") == f"/compare/played/{n}"
        box, table = compare.bounding_box(), page.locator(".scroll").bounding_box()
        assert box["x"] + box["width"] <= table["x"] + table["width"]  # in view on a phone
    assert (
        page.evaluate("() => document.documentElement.scrollWidth") <= page.viewport_size["width"]
    )
    screenshot("pairs")
    rows.nth(1).get_by_test_id("pair-compare").click()
    page.wait_for_url("**/compare/played/1")
    assert page.locator("h1").inner_text() == "Pair 1: greedy vs random"


@VIEWPORTS
def test_the_comparison_shows_both_tables_by_hand_and_links_the_divergence_to_the_viewer(
    page, site, screenshot, viewport
):
    if viewport:
        page.set_viewport_size(viewport)
    page.goto(f"{site.url}/compare/engine/0")
    rows = page.get_by_test_id("compare-row")
    assert rows.count() == 3
    headings = page.locator("[data-testid=compare-hands] th").all_inner_texts()
    if viewport:  # a phone's short headings
        assert headings == ["#", "table a", "pts", "table b", "pts", "±", "diverged"]
    else:
        assert headings == [
            "hand", "table a", "points a", "table b", "points b", "swing", "first divergence"
        ]  # fmt: skip
    assert rows.nth(0).get_by_test_id("divergence").inner_text() == "none: the same play"
    assert " play: play " in rows.nth(CONTRARY_HAND - 1).get_by_test_id("divergence").inner_text()
    table = page.locator(".scroll").first.bounding_box()
    for cell in ("points-a", "points-b", "swing", "divergence"):
        box = rows.nth(0).get_by_test_id(cell).bounding_box()
        assert box["x"] + box["width"] <= table["x"] + table["width"] + 1, cell
    detail = page.get_by_test_id("compare-detail")
    assert detail.locator("h2").inner_text() == f"Hand {CONTRARY_HAND}"
    cards = detail.get_by_test_id("compare-cards")
    assert cards.locator("tbody tr").count() == 4
    box = cards.bounding_box()
    assert box["x"] + box["width"] <= page.viewport_size["width"]  # the cards wrap
    choices = detail.get_by_test_id("analysis-choice")
    assert choices.count() >= 2
    marked = detail.get_by_test_id("analysis").inner_text()
    assert "table a" in marked and "table b" in marked  # each table's card marked
    screenshot("compare")
    link = detail.get_by_test_id("divergence-link-b")
    step = int(link.get_attribute("href").rsplit("=", 1)[1])
    link.click()
    page.wait_for_url("**/view/engine/games/pair-00000-b.json.gz#step=*")
    page.get_by_test_id("hand-0").wait_for()
    page.wait_for_function(f"() => {POSITION} === {step}")
    assert page.get_by_test_id("link-compare").get_attribute("href") == "/compare/engine/0"
    screenshot("divergence-in-viewer")


def test_a_hands_link_shows_that_hand_in_full(page, site):
    page.goto(f"{site.url}/compare/played/0")
    page.get_by_test_id("compare-row").nth(2).locator("a").first.click()
    page.wait_for_url("**/compare/played/0?hand=3#hand")
    assert page.get_by_test_id("compare-detail").locator("h2").inner_text() == "Hand 3"
    assert "current" in page.get_by_test_id("compare-row").nth(2).get_attribute("class")
