"""The hand's tricks as a grid under the viewer's table (Bridge Base Online's trick
review), in a real Chromium, on a desktop window and a phone-sized one: each row checked
against the record's own tricks (docs/viewer.md).

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
from pitch_testkit.viewer import IllegalPlayer
from pitch_web.app import create_app
from pitch_web.source import FolderSource
from pitch_web.timeline import timeline

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("browser")]

PHONE = {"width": 390, "height": 844}
POSITION = "window.pitchViewer.position"
VIEWPORTS = pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "phone"])


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    bots = [RandomBot(f"5:{seat}") for seat in range(4)]
    return play_game(bots, seed=5, options=RuleOptions(hand_cap=3))


@pytest.fixture(scope="module")
def steps(record) -> list[dict[str, Any]]:
    return timeline(record)["steps"]


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


def trick_ends(steps: list[dict[str, Any]], hand: int) -> list[int]:
    """The steps that end hand ``hand``'s tricks."""
    deals = [i for i, step in enumerate(steps) if step["k"] == "deal"] + [len(steps)]
    return [i for i in range(deals[hand - 1], deals[hand]) if "trick" in steps[i]]


def grid_rows(page: Any) -> list[dict[str, Any]]:
    """What the grid shows, row by row."""
    return page.evaluate(
        """() => [...document.querySelectorAll("[data-testid=trick-row]")].map((row) => ({
            trick: Number(row.dataset.trick), step: Number(row.dataset.step),
            leader: Number(row.dataset.leader),
            winner: row.dataset.winner === undefined ? null : Number(row.dataset.winner),
            current: row.classList.contains("current"),
            cards: Object.fromEntries([...row.querySelectorAll("td[data-seat]")].map(
                (cell) => [cell.dataset.seat, cell.querySelector(".card").dataset.card])),
            led: row.querySelector("td.lead").dataset.seat,
            won: row.querySelector("td.won") ? row.querySelector("td.won").dataset.seat : null,
            points: row.querySelector("[data-testid=trick-row-points]").innerText.trim() }))"""
    )


def points_text(teams: list[int], phone: bool) -> str:
    """The points cell of a trick that each team took ``teams[team]`` of."""
    parts = [f"{'t' if phone else 'team '}{team} +{n}" for team, n in enumerate(teams) if n]
    return ", ".join(parts) or "0"


@VIEWPORTS
def test_at_a_hands_end_the_grid_shows_each_trick_of_the_record_with_leader_winner_points(
    page, served, record, steps, screenshot, viewport
):
    ends = trick_ends(steps, 1)
    open_game(page, f"{served.url}/view/game.json#step={ends[-1]}", viewport)  # scored
    rows = grid_rows(page)
    recorded = record.hands[0].score.tricks
    assert [row["trick"] for row in rows] == list(range(1, len(recorded) + 1))
    assert [row["step"] for row in rows] == ends
    for row, trick, end in zip(rows, recorded, ends, strict=True):
        leader = trick.plays[0][0]
        assert row["cards"] == {str(seat): card for seat, card in trick.plays}
        assert row["leader"] == leader and row["led"] == str(leader)
        assert row["winner"] == trick.winner and row["won"] == str(trick.winner)
        assert row["points"] == points_text(steps[end]["trick"]["teams"], bool(viewport))
    screenshot("hand-end")


@VIEWPORTS
def test_mid_trick_the_grid_shows_the_tricks_before_and_the_one_being_played(
    page, served, record, steps, screenshot, viewport
):
    ends = trick_ends(steps, 1)
    second_card = ends[0] + 2  # the second card of trick 2
    open_game(page, f"{served.url}/view/game.json#step={second_card}", viewport)
    rows = grid_rows(page)
    assert len(rows) == 2
    assert [row["current"] for row in rows] == [False, True]
    playing = rows[1]
    assert playing["winner"] is None and playing["won"] is None and playing["points"] == ""
    trick_2 = record.hands[0].score.tricks[1].plays[:2]
    assert playing["cards"] == {str(seat): card for seat, card in trick_2}
    assert playing["leader"] == trick_2[0][0] and playing["step"] == second_card
    winner = page.get_by_test_id("trick-row").nth(1).get_by_test_id("trick-row-winner")
    assert winner.inner_text() == "playing"
    screenshot("mid-trick")


@VIEWPORTS
def test_clicking_a_trick_goes_to_its_last_step(page, served, steps, screenshot, viewport):
    ends = trick_ends(steps, 1)
    open_game(page, f"{served.url}/view/game.json#step={ends[-1]}", viewport)
    page.get_by_test_id("trick-row").nth(1).click()
    assert page.evaluate(POSITION) == ends[1]
    assert f"#step={ends[1]}&" in page.url
    shown = page.get_by_test_id("trick-winner")
    assert shown.get_attribute("data-winner") == str(steps[ends[1]]["trick"]["winner"])
    rows = grid_rows(page)
    assert len(rows) == 2 and rows[1]["current"]  # the tricks after it are not shown yet
    page.get_by_test_id("trick-row").first.get_by_role("button").click()  # by its number
    assert page.evaluate(POSITION) == ends[0]
    screenshot("clicked")


@VIEWPORTS
def test_at_a_hands_deal_the_grid_is_empty_and_keeps_its_size(
    page, served, steps, screenshot, viewport
):
    deals = [i for i, step in enumerate(steps) if step["k"] == "deal"]
    open_game(page, f"{served.url}/view/game.json#step={deals[1] - 1}", viewport)
    assert len(grid_rows(page)) > 0
    full = page.get_by_test_id("trick-grid").bounding_box()
    page.keyboard.press("ArrowRight")  # hand 2's deal
    assert page.evaluate(POSITION) == deals[1]
    assert grid_rows(page) == []
    assert page.get_by_test_id("trick-grid-empty").inner_text() == (
        "no trick played yet in this hand"
    )
    assert page.get_by_test_id("trick-grid").bounding_box() == full
    screenshot("deal")


def test_a_trick_cut_short_by_a_forfeit_is_shown_unfinished(page, serve, tmp_path, screenshot):
    bots = [RandomBot(0), IllegalPlayer(1), RandomBot(2), RandomBot(3)]
    record = play_game(bots, seed=4, options=RuleOptions(hand_cap=3))
    assert record.result.termination == "forfeit"
    write_record(record, tmp_path / "forfeit.json")
    with serve(create_app(FolderSource(tmp_path))) as server:
        open_game(page, f"{server.url}/view/forfeit.json#step=end", None)
        (row,) = grid_rows(page)  # the card played before seat 1's illegal play
        assert row["winner"] is None and len(row["cards"]) == 1
        winner = page.get_by_test_id("trick-row").get_by_test_id("trick-row-winner")
        assert winner.inner_text() == "unfinished"
        page.keyboard.press("ArrowLeft")  # the fault step: the game is not over yet
        page.keyboard.press("ArrowLeft")  # the card: the trick is being played
        assert winner.inner_text() == "playing"
        screenshot("forfeit")
