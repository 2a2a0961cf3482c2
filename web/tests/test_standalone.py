"""The self-contained HTML file of a game: everything inlined, and it works offline."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pitch_sdk.bots import RandomBot
from pitch_sdk.options import RuleOptions
from pitch_sdk.selfplay import play_game
from pitch_web.standalone import standalone_html, write_standalone
from pitch_web.timeline import timeline


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    return play_game(
        [RandomBot(seat) for seat in range(4)], seed=21, options=RuleOptions(hand_cap=2)
    )


def test_the_file_inlines_timeline_script_and_styles_and_links_nothing(record):
    page = standalone_html(record, game="g.json")
    inline = page.split('id="timeline-data">', 1)[1].split("</script>", 1)[0]
    assert json.loads(inline) == timeline(record, game="g.json")
    assert "window.pitchViewer" in page and ".pv-table" in page
    for outside in ("src=", "href=", "@import", "url(http", "//fonts."):
        assert outside not in page


@pytest.mark.slow
def test_the_file_plays_from_disk_with_the_network_off(page, record, tmp_path, screenshot):
    path = tmp_path / "game.html"
    write_standalone(record, path, game="game.json", hand=2, seat=3)
    requests: list[str] = []
    page.context.set_offline(True)
    page.context.on("request", lambda request: requests.append(request.url))
    page.context.route("http*://**/*", lambda route: route.abort())
    page.goto(path.as_uri())
    page.get_by_test_id("hand-3").locator("[data-card]").first.wait_for()
    assert page.get_by_test_id("position").inner_text().startswith("hand 2 ")
    assert page.get_by_test_id("hand-0").get_attribute("data-hidden-count") is not None
    screenshot("seat-3")
    page.keyboard.press("a")
    page.keyboard.press("End")
    assert page.get_by_test_id("game-over").is_visible()
    assert page.get_by_test_id("score-0").inner_text() == str(record.result.scores[0])
    screenshot("end")
    assert requests == [path.as_uri()]
