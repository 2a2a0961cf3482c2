"""The game viewer in a real Chromium: what the table shows, step by step, against the engine.

Screenshots go to the artifacts folder (see conftest.py), for a person to look at.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from pitch_sdk.bots import RandomBot
from pitch_sdk.cards import card_name, cards_in
from pitch_sdk.gamerecord import GameRecord
from pitch_sdk.options import RuleOptions
from pitch_sdk.record import write_record
from pitch_sdk.replay import Dealt, ReplayResult, replay
from pitch_sdk.selfplay import play_game
from pitch_sdk.table import FaultPolicy
from pitch_testkit.viewer import IllegalPlayer, moon_record
from pitch_web.app import create_app
from pitch_web.source import FolderSource
from pitch_web.timeline import timeline

# One Chromium at a time: pytest-xdist runs the group on one worker.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("browser")]

HANDS_SHOWN = """() => [0, 1, 2, 3].map((seat) => [...document.querySelectorAll(
    `[data-testid=hand-${seat}] [data-card]`)].map((card) => card.dataset.card).sort())"""


def text(page: Any, testid: str) -> str:
    return page.get_by_test_id(testid).inner_text()


@pytest.fixture(scope="module")
def record() -> GameRecord:
    bots = [RandomBot(f"9:{seat}") for seat in range(4)]
    return play_game(bots, seed=9, options=RuleOptions(hand_cap=3))


@pytest.fixture
def served(record, serve, tmp_path: Path) -> Any:
    write_record(record, tmp_path / "game.json")
    first = record.hands[0]
    cut = replace(first, decisions=first.decisions[:20], score=None)
    unfinished = replace(record, hands=(cut,), result=None)
    write_record(unfinished, tmp_path / "unfinished.json")
    (tmp_path / "corrupt.json").write_text('{"format": "pitch-game-record", "version": 1')
    with serve(create_app(FolderSource(tmp_path))) as server:
        yield server


def expected_hands(record: GameRecord, hand: int) -> list[list[list[str]]]:
    """The engine's four hands after each step of ``hand``: its deal, then each decision."""
    shown = []
    for event in replay(record):
        if isinstance(event, ReplayResult) or event.hand != hand:
            continue
        state = event.state if isinstance(event, Dealt) else event.after
        shown.append([sorted(card_name(c) for c in cards_in(state.hands[s])) for s in range(4)])
    return shown


def test_stepping_through_a_hand_shows_the_records_cards_tricks_points_and_score(
    page, served, record, screenshot
):
    page.goto(f"{served.url}/view/game.json")
    page.get_by_test_id("hand-0").wait_for()
    hand = record.hands[0]
    assert hand.score is not None
    tricks = iter(hand.score.tricks)
    steps = [e for e in replay(record) if not isinstance(e, ReplayResult) and e.hand == 1]
    for number, (event, hands) in enumerate(zip(steps, expected_hands(record, 1), strict=True)):
        assert page.evaluate(HANDS_SHOWN) == hands, f"step {number}"
        if not isinstance(event, Dealt) and len(event.after.tricks) > len(event.before.tricks):
            trick = next(tricks)
            winner = page.get_by_test_id("trick-winner")
            assert winner.get_attribute("data-winner") == str(trick.winner), f"step {number}"
            for seat, card in trick.plays:
                shown = page.get_by_test_id(f"trick-card-{seat}").locator("[data-card]")
                assert shown.get_attribute("data-card") == card
        if number == 0:
            screenshot("dealt")
        if number < len(steps) - 1:
            page.keyboard.press("ArrowRight")
    assert next(tricks, None) is None
    assert text(page, "team-points-0") == str(hand.score.points[0])
    assert text(page, "team-points-1") == str(hand.score.points[1])
    assert text(page, "score-0") == str(hand.score.scores[0])
    assert text(page, "score-1") == str(hand.score.scores[1])
    assert f"dead {hand.score.dead}" in text(page, "hand-score")
    screenshot("hand-scored")


def test_trick_by_trick_the_winners_shown_are_the_records(page, served, record):
    steps = timeline(record)["steps"]
    ends = {index for index, step in enumerate(steps) if "trick" in step}
    winners = [trick.winner for hand in record.hands if hand.score for trick in hand.score.tricks]
    page.goto(f"{served.url}/view/game.json")
    page.get_by_test_id("hand-0").wait_for()
    shown = []
    while page.evaluate("window.pitchViewer.position") < len(steps) - 1:
        page.keyboard.press("ArrowDown")  # the next trick (or hand, or the end)
        if page.evaluate("window.pitchViewer.position") in ends:
            shown.append(int(page.get_by_test_id("trick-winner").get_attribute("data-winner")))
    assert shown == winners
    assert page.get_by_test_id("game-over").is_visible()
    assert text(page, "score-0") == str(record.result.scores[0])


def test_one_seats_view_hides_the_other_hands(page, served, record, screenshot):
    page.goto(f"{served.url}/view/game.json#step=12")
    page.get_by_test_id("hand-0").wait_for()
    page.get_by_test_id("mode").select_option("1")
    hands = page.evaluate(HANDS_SHOWN)
    expected = expected_hands(record, 1)[12]
    assert hands[1] == expected[1]
    for seat in (0, 2, 3):
        assert hands[seat] == []
        hidden = page.get_by_test_id(f"hand-{seat}")
        assert hidden.get_attribute("data-hidden-count") == str(len(expected[seat]))
    assert "view=1" in page.url
    assert page.locator("[data-testid=narrative] li.future").count() == 0  # no later steps
    screenshot("seat-1")
    page.keyboard.press("a")
    assert page.evaluate(HANDS_SHOWN) == expected
    assert page.locator("[data-testid=narrative] li.future").count() > 0


def test_the_keys_move_by_decision_trick_and_hand_and_space_plays(page, served, record):
    steps = timeline(record)["steps"]
    first_trick = next(index for index, step in enumerate(steps) if "trick" in step)
    second_hand = [index for index, step in enumerate(steps) if step["k"] == "deal"][1]
    page.goto(f"{served.url}/view/game.json")
    page.get_by_test_id("hand-0").wait_for()
    position = "window.pitchViewer.position"
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert page.evaluate(position) == 2
    page.keyboard.press("ArrowLeft")
    assert page.evaluate(position) == 1
    page.keyboard.press("ArrowDown")
    assert page.evaluate(position) == first_trick
    page.keyboard.press("PageDown")
    assert page.evaluate(position) == second_hand
    assert text(page, "position").startswith("hand 2 ")
    page.keyboard.press("PageUp")
    assert page.evaluate(position) == 0
    page.keyboard.press("End")
    assert page.evaluate(position) == len(steps) - 1
    page.keyboard.press("Home")
    page.keyboard.press("+")
    page.keyboard.press("+")
    page.keyboard.press("+")  # 8 steps a second
    page.keyboard.press(" ")
    page.wait_for_function(f"() => {position} >= 3", timeout=5000)
    page.keyboard.press(" ")
    stopped = page.evaluate(position)
    page.wait_for_timeout(400)
    assert page.evaluate(position) == stopped


def test_the_url_holds_the_position_and_view_across_a_reload(page, served):
    page.goto(f"{served.url}/view/game.json")
    page.get_by_test_id("hand-0").wait_for()
    page.get_by_test_id("hand-menu").select_option("2")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("2")
    where = page.evaluate("window.pitchViewer.position")
    assert page.url.endswith(f"#step={where}&view=2")
    page.reload()
    page.get_by_test_id("hand-0").wait_for()
    assert page.evaluate("window.pitchViewer.position") == where
    assert page.get_by_test_id("mode").input_value() == "2"
    assert page.get_by_test_id("hand-0").get_attribute("data-hidden-count") is not None


def test_a_live_page_can_append_steps_follow_them_and_finish(page, served, record):
    full = timeline(record)
    page.goto(f"{served.url}/view/unfinished.json")
    page.get_by_test_id("hand-0").wait_for()
    assert "in progress" in text(page, "result")
    known = page.evaluate("window.pitchViewer.length")
    assert known == 21  # the deal and 20 decisions
    page.evaluate("window.pitchViewer.follow(true)")
    page.evaluate("(steps) => window.pitchViewer.append(steps)", full["steps"][known : known + 5])
    assert page.evaluate("window.pitchViewer.position") == known + 4
    page.evaluate("(steps) => window.pitchViewer.append(steps)", full["steps"][known + 5 :])
    page.evaluate("(header) => window.pitchViewer.finish(header)", full["header"])
    assert page.evaluate("window.pitchViewer.position") == len(full["steps"]) - 1
    assert page.get_by_test_id("game-over").is_visible()
    assert "in progress" not in text(page, "result")
    assert not page.evaluate("window.pitchViewer.following")


def test_a_corrupt_record_shows_an_error_page(page, served, screenshot):
    answer = page.goto(f"{served.url}/view/corrupt.json")
    assert answer.status == 422
    assert "cannot be read" in page.locator(".error .message").inner_text()
    assert "Traceback" not in page.content()
    screenshot("corrupt")


def test_a_record_that_stops_replaying_shows_the_discrepancy(page, serve, record, tmp_path):
    tampered = record.to_json()
    decisions = tampered["hands"][0]["decisions"]
    plays = [i for i, d in enumerate(decisions) if d["action"].startswith("play")]
    decisions[plays[1]]["action"] = decisions[plays[0]]["action"]
    (tmp_path / "tampered.json").write_text(json.dumps(tampered))
    with serve(create_app(FolderSource(tmp_path))) as server:
        page.goto(f"{server.url}/view/tampered.json")
        banner = page.get_by_test_id("discrepancy")
        assert f"decision {plays[1] + 1}" in banner.inner_text()


def test_faults_and_substitute_moves_are_marked_where_they_happened(
    page, serve, tmp_path, screenshot
):
    bots = [RandomBot(0), IllegalPlayer(1), RandomBot(2), RandomBot(3)]
    record = play_game(
        bots, seed=4, options=RuleOptions(hand_cap=1), fault_policy=FaultPolicy.SUBSTITUTE
    )
    write_record(record, tmp_path / "faults.json")
    steps = timeline(record)["steps"]
    fault = next(index for index, step in enumerate(steps) if step["k"] == "fault")
    with serve(create_app(FolderSource(tmp_path))) as server:
        page.goto(f"{server.url}/view/faults.json#step={fault + 1}")
        page.get_by_test_id("fault-1").first.wait_for()
        assert "illegal_action" in page.get_by_test_id("fault-1").first.inner_text()
        assert page.get_by_test_id("action-1").locator(".mark.substitute").count() == 1
        assert page.locator(f"[data-step='{fault}'].fault").inner_text().startswith("FAULT seat 1")
        forced = next(i for i, step in enumerate(steps) if step.get("forced"))
        assert page.locator(f"[data-step='{forced}'] .mark.forced").count() == 1
        screenshot("substitute")


def test_a_moon_is_shown_at_the_hands_end(page, serve, tmp_path, screenshot):
    write_record(moon_record(), tmp_path / "moon.json")
    with serve(create_app(FolderSource(tmp_path))) as server:
        page.goto(f"{server.url}/view/moon.json")
        page.get_by_test_id("hand-0").wait_for()
        page.keyboard.press("End")
        assert "shot the moon" in page.get_by_test_id("moon").inner_text()
        assert "shot the moon" in page.get_by_test_id("game-over").inner_text()
        assert text(page, "score-1") == "13"
        screenshot("moon")


def test_on_a_phone_the_table_fits_the_screen_and_the_buttons_step(
    page, served, record, screenshot
):
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{served.url}/view/game.json")
    page.get_by_test_id("hand-0").wait_for()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390, "no sideways scroll"
    for seat in range(4):
        box = page.get_by_test_id(f"hand-{seat}").bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, seat
    hands = expected_hands(record, 1)
    assert page.evaluate(HANDS_SHOWN) == hands[0]
    for _ in range(3):
        page.get_by_test_id("next").click()
    assert page.evaluate(HANDS_SHOWN) == hands[3]
    screenshot("phone")
