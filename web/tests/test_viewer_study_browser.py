"""The viewer as a place to study a game, in a real Chromium: one step numbering, the
draggable timeline, the legend of the marks and the spoiler-free mode (docs/viewer.md).

Screenshots go to the artifacts folder (see conftest.py), for a person to look at.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pitch_sdk.bots import RandomBot
from pitch_sdk.options import RuleOptions
from pitch_sdk.record import write_record
from pitch_sdk.selfplay import play_game
from pitch_testkit.journal import KEY, cut_after_deal, journaled_game, record_of, write_final
from pitch_testkit.samples import match_folder
from pitch_web.app import create_app
from pitch_web.source import FolderSource
from pitch_web.timeline import timeline

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("browser")]

PHONE = {"width": 390, "height": 844}
POSITION = "window.pitchViewer.position"


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    bots = [RandomBot(f"5:{seat}") for seat in range(4)]
    return play_game(bots, seed=5, options=RuleOptions(hand_cap=3))


@pytest.fixture
def served(record, serve, tmp_path: Path) -> Any:
    write_record(record, tmp_path / "game.json")
    with serve(create_app(FolderSource(tmp_path))) as server:
        yield server


def open_game(page: Any, url: str) -> None:
    page.goto(url)
    page.get_by_test_id("hand-0").wait_for()


def test_the_screen_the_link_and_the_hand_list_number_a_step_alike(page, served):
    open_game(page, f"{served.url}/view/game.json#step=30")  # a link written before
    assert page.evaluate(POSITION) == 30
    assert " step 30 of 0\u2013" in page.get_by_test_id("position").inner_text()
    current = page.locator("[data-testid=narrative] li.current")
    number = page.evaluate(
        """() => { const li = document.querySelector("[data-testid=narrative] li.current");
        return [...li.parentNode.children].indexOf(li) + li.parentNode.start; }"""
    )
    assert number == 30 and current.get_attribute("data-step") == "30"
    page.keyboard.press("ArrowRight")
    assert "#step=31&" in page.url
    assert " step 31 of " in page.get_by_test_id("position").inner_text()


@pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "phone"])
def test_the_timeline_drags_and_keys_to_any_step_and_marks_each_hand(
    page, served, record, screenshot, viewport
):
    if viewport:
        page.set_viewport_size(viewport)
    steps = timeline(record)["steps"]
    deals = [index for index, step in enumerate(steps) if step["k"] == "deal"]
    open_game(page, f"{served.url}/view/game.json")
    slider = page.get_by_test_id("timeline")
    assert slider.get_attribute("max") == str(len(steps) - 1)
    marks = page.locator("[data-testid=hand-marks] .pv-mark")
    assert [int(m) for m in marks.evaluate_all("ms => ms.map((m) => m.dataset.step)")] == deals
    box = slider.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    middle = page.evaluate(POSITION)
    assert abs(middle - (len(steps) - 1) / 2) <= len(steps) / 20
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] - 1, box["y"] + box["height"] / 2, steps=5)
    page.mouse.up()
    assert page.evaluate(POSITION) == len(steps) - 1
    assert page.get_by_test_id("game-over").is_visible()
    slider.focus()
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    assert page.evaluate(POSITION) == 1 and slider.input_value() == "1"
    page.keyboard.press("PageDown")  # the next hand, as everywhere in the viewer
    assert page.evaluate(POSITION) == deals[1]
    marks.nth(2).click()
    assert page.evaluate(POSITION) == deals[2]
    screenshot("timeline")


@pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "phone"])
def test_the_legend_names_the_marks_and_the_point_dot_leaves_a_tens_rank_clear(
    page, served, record, screenshot, viewport
):
    if viewport:
        page.set_viewport_size(viewport)
    steps = timeline(record)["steps"]
    trump = next(index for index, step in enumerate(steps) if step["k"] == "trump")
    open_game(page, f"{served.url}/view/game.json#step={trump}")
    legend = page.get_by_test_id("legend").inner_text()
    for words in ("a point card", "not trump", "dealer", "the bid's winner", "acts next"):
        assert words in legend
    overlaps = page.evaluate(
        """() => [...document.querySelectorAll(".card .pip")].map((pip) => {
            const rank = pip.parentNode.querySelector(".rank").getBoundingClientRect();
            const dot = pip.getBoundingClientRect();
            return dot.left < rank.right && dot.right > rank.left
                && dot.top < rank.bottom && dot.bottom > rank.top; })"""
    )
    assert overlaps and not any(overlaps)
    tens = page.locator(".card:has(.pip) .rank", has_text="10")
    assert tens.count() > 0  # a ten of trump is shown: the case the dot used to cover
    screenshot("legend")


def test_the_spoiler_free_mode_hides_the_result_until_the_last_step_and_is_remembered(
    page, served, record, screenshot
):
    result = f"{record.result.scores[0]} to {record.result.scores[1]}"
    open_game(page, f"{served.url}/view/game.json")
    assert result in page.get_by_test_id("result").inner_text()
    page.get_by_test_id("hide-result").check()
    assert result not in page.get_by_test_id("headline").inner_text()
    assert "result=hidden" in page.url
    link = page.url
    screenshot("hidden")
    page.keyboard.press("End")
    assert result in page.get_by_test_id("result").inner_text()
    page.keyboard.press("Home")
    assert result not in page.get_by_test_id("headline").inner_text()
    fresh = page.context.new_page()  # the same browser: remembered without the link
    open_game(fresh, f"{served.url}/view/game.json")
    assert fresh.get_by_test_id("hide-result").is_checked()
    assert result not in fresh.get_by_test_id("headline").inner_text()
    other = page.context.browser.new_context()  # another browser: the link carries it
    shared = other.new_page()
    try:
        open_game(shared, link)
        assert result not in shared.get_by_test_id("headline").inner_text()
    finally:
        other.close()


def test_a_live_page_says_whose_turn_it_is_and_opened_after_the_end_shows_the_last_step(
    page, serve, tmp_path, screenshot
):
    served = tmp_path / "served"
    journal, record = journaled_game(served)
    whole = journal.read_text()
    cut_after_deal(journal, 2)
    going_on = timeline(record_of(journal))
    to_act = going_on["header"]["to_act"]
    with serve(create_app(FolderSource(served))) as server:
        open_game(page, f"{server.url}/live/{KEY}")
        shown = page.get_by_test_id("position").inner_text()
        assert f"seat {to_act['seat']} (random 1.0) to bid" in shown
        chip = page.get_by_test_id(f"seat-{to_act['seat']}").locator(".chip.turn")
        assert chip.inner_text() == "to act"
        screenshot("live-turn")
        page.close()
        journal.write_text(whole)  # the game ends, its record is written, its journal goes
        write_final(served, record)
        journal.unlink()
        ended = page.context.new_page()
        open_game(ended, f"{server.url}/live/{KEY}")
        assert ended.evaluate(POSITION) == len(timeline(record)["steps"]) - 1
        assert ended.get_by_test_id("game-over").is_visible()
        assert " to bid" not in ended.get_by_test_id("position").inner_text()


@pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "phone"])
def test_stepping_never_moves_the_layout_and_the_trick_stays_between_its_seats(
    page, served, screenshot, viewport
):
    if viewport:
        page.set_viewport_size(viewport)
    open_game(page, f"{served.url}/view/game.json")
    boxes = page.evaluate(
        """() => { const seen = new Set(); const n = window.pitchViewer.length;
        for (let i = 0; i < n; i++) { window.pitchViewer.goto(i);
            const table = document.querySelector(".pv-table").getBoundingClientRect();
            const side = document.querySelector(".pv-side").getBoundingClientRect();
            const tricks = document.querySelector(".pv-tricks").getBoundingClientRect();
            const legend = document.querySelector(".pv-legend").getBoundingClientRect();
            seen.add([table.top, table.height, side.top, tricks.top, tricks.height, legend.top]
                .map(Math.round).join()); }
        return [...seen]; }"""
    )
    assert len(boxes) == 1, boxes  # the table, the trick grid and what follows never move
    steps = page.evaluate("window.pitchViewer.viewer.steps")
    full = next(i for i, step in enumerate(steps) if "trick" in step)
    page.evaluate(f"window.pitchViewer.goto({full})")
    centre = page.locator(".pv-centre").bounding_box()
    where = {}
    for seat in range(4):
        card = page.get_by_test_id(f"trick-card-{seat}").bounding_box()
        assert (
            centre["x"] <= card["x"] and card["x"] + card["width"] <= centre["x"] + centre["width"]
        ), seat
        assert (
            centre["y"] <= card["y"]
            and card["y"] + card["height"] <= centre["y"] + centre["height"]
        ), seat
        where[seat] = (card["x"], card["y"])
    # seat 0 at the bottom, 1 on the left, 2 at the top, 3 on the right
    assert where[1][0] < where[0][0] < where[3][0] and where[2][1] < where[0][1]
    west = page.get_by_test_id("seat-1").bounding_box()
    assert west["y"] <= where[1][1] <= west["y"] + west["height"]  # level with its seat
    screenshot("trick")


def test_a_match_game_links_to_its_match_its_twin_and_the_games_beside_it(
    page, serve, tmp_path, screenshot
):
    match_folder(tmp_path / "m")
    games = "/view/m/games"
    with serve(create_app(FolderSource(tmp_path))) as server:
        open_game(page, f"{server.url}{games}/pair-00000-a.json.gz")
        links = page.get_by_test_id("game-links")
        assert links.get_by_test_id("link-match").get_attribute("href") == "/matches/m"
        assert links.get_by_test_id("link-previous").count() == 0  # the first game
        for name in ("twin", "next"):
            assert links.get_by_test_id(f"link-{name}").get_attribute("href") == (
                f"{games}/pair-00000-b.json.gz"
            )
        screenshot("links")
        links.get_by_test_id("link-twin").click()
        page.wait_for_url(f"**{games}/pair-00000-b.json.gz*")
        page.get_by_test_id("hand-0").wait_for()
        assert page.get_by_test_id("link-next").count() == 0  # the last game
        assert page.get_by_test_id("link-previous").get_attribute("href") == (
            f"{games}/pair-00000-a.json.gz"
        )
        page.get_by_test_id("link-match").click()
        page.wait_for_url("**/matches/m")
