"""The ladder's and the folder's pages in a real Chromium: standings, a bot's page, the
chart, game links to the viewer, filters, and the 404 page.

The ladder and the match folder are ``test_api``'s (records of real one-hand games,
no bot started). Screenshots go to ``web/tests/artifacts``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session

from pitch_ladder.schedule import partnership_round
from pitch_sdk.record import write_record
from pitch_testkit.ladder import add_team_match, ladder_with
from pitch_testkit.samples import build_ladder, game_record, match_folder
from pitch_web import create_app
from pitch_web.source import FolderSource, LadderSource

pytestmark = pytest.mark.slow


@pytest.fixture
def ladder_site(tmp_path: Path, serve: Any) -> Iterator[str]:
    url = f"sqlite:///{tmp_path / 'pages.db'}"
    build_ladder(url, tmp_path).close()
    source = LadderSource(tmp_path / "ladder", url)
    with serve(create_app(source)) as served:
        yield served.url
    source.close()


@pytest.fixture
def folder_site(tmp_path: Path, serve: Any) -> Iterator[str]:
    served = tmp_path / "matches"
    match_folder(served / "greedy-vs-random")
    write_record(game_record(seed=9), served / "loose.json")
    with serve(create_app(FolderSource(served))) as site:
        yield site.url


def test_standings_list_the_bots_in_order_and_link_to_their_pages(page, ladder_site, screenshot):
    page.goto(ladder_site)
    names = page.locator("table.standings a.bot").all_inner_texts()
    assert names == ["alpha", "gamma", "beta"]
    screenshot("standings")
    page.locator("table.standings a.bot", has_text="gamma").click()
    page.wait_for_url("**/bots/gamma")
    assert page.locator("h1").inner_text() == "gamma"
    opponents = page.locator("table.opponents tbody tr").all_inner_texts()
    assert len(opponents) == 1 and opponents[0].startswith("beta")
    screenshot("bot")


def test_the_rating_chart_draws_a_line_per_bot(page, ladder_site):
    page.goto(ladder_site)
    lines = page.locator("svg.rating-chart path.series")
    assert lines.count() == 3
    for index in range(3):
        assert len(lines.nth(index).get_attribute("d") or "") > 10
    legend = page.locator("svg.rating-chart .legend text").all_text_contents()
    assert [text.split()[0] for text in legend] == ["alpha", "gamma", "beta"]


def test_a_game_link_opens_the_viewer_of_that_game(page, ladder_site):
    page.goto(f"{ladder_site}/games?bot=alpha&result=lost")
    links = page.locator("table.games a.view")
    assert links.all_inner_texts() == ["#4"]
    links.first.click()
    # The viewer writes its position into the hash as soon as it starts, so the
    # address may already carry one when the wait begins.
    page.wait_for_url(re.compile(r"/view/4(#.*)?$"))
    assert page.locator("section.error").count() == 0  # the viewer, not an error page


def test_the_games_filters_keep_what_was_asked(page, ladder_site, screenshot):
    page.goto(f"{ladder_site}/games")
    page.fill("input[name=bot]", "beta")
    page.select_option("select[name=result]", "drawn")
    page.click("form.filters button")
    page.wait_for_url("**/games?bot=beta*result=drawn*")
    assert page.locator("table.games a.view").all_inner_texts() == ["#5"]
    assert page.input_value("input[name=bot]") == "beta"
    screenshot("games-filtered")


def test_a_missing_bot_or_game_is_the_404_page(page, ladder_site, screenshot):
    response = page.goto(f"{ladder_site}/bots/nobody")
    assert response is not None and response.status == 404
    assert "no bot named 'nobody'" in page.locator(".error .message").inner_text()
    screenshot("missing-bot")
    response = page.goto(f"{ladder_site}/view/999")
    assert response is not None and response.status == 404
    assert "no game 999" in page.locator(".error .message").inner_text()
    response = page.goto(f"{ladder_site}/matches/999")
    assert response is not None and response.status == 404
    response = page.goto(f"{ladder_site}/games?bot=beta&result=won&version=zzzz")
    assert response is not None and response.status == 404
    response = page.goto(f"{ladder_site}/games?fault=maybe")
    assert response is not None and response.status == 422
    assert page.locator(".error .message").inner_text() == "fault must be yes or no, not 'maybe'"


def test_a_folder_lists_its_matches_and_records_readably_on_a_phone(page, folder_site, screenshot):
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(folder_site)
    assert page.locator("table.matches a").all_inner_texts() == ["greedy-vs-random"]
    assert page.locator("ul.records a").all_inner_texts() == ["loose.json"]
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390  # wide tables scroll inside their box, not the page
    page.locator("table.matches a").click()
    page.wait_for_url("**/matches/greedy-vs-random")
    views = page.locator("table.pairs a.view")  # a line per deal pair: its games a and b
    assert views.all_inner_texts() == ["a", "b"]
    assert views.first.get_attribute("href") == "/view/greedy-vs-random/games/pair-00000-a.json.gz"
    screenshot("folder-match-phone")


def test_standings_show_the_team_models_rating_beside_elo_when_bots_partnered(
    page, tmp_path, serve, screenshot
):
    url = f"sqlite:///{tmp_path / 'teams.db'}"
    ladder, versions = ladder_with(url, tmp_path, ["ace", "bee", "cat", "dog"])
    with Session(ladder.engine) as session:
        for lineup, scores in zip(
            partnership_round(list(versions)), ([1.0, 1.0], [1.0, 0.0], [0.0, 0.5]), strict=True
        ):
            add_team_match(session, 1, lineup, versions, scores)
        session.commit()
    ladder.close()
    source = LadderSource(tmp_path / "ladder", url)
    with serve(create_app(source)) as served:
        page.goto(served.url)
        headings = page.locator("table.standings th").all_inner_texts()
        assert "team" in headings and "Elo" in headings
        teams = page.locator("table.standings td.team").all_inner_texts()
        assert len(teams) == 4 and all(text.isdigit() for text in teams)
        assert "(6 games)" in page.locator("table.standings").inner_text()
        screenshot("standings-with-teams")
        page.goto(f"{served.url}/games?bot=dog")
        cells = page.locator("table.games td").all_inner_texts()
        assert any("+ dog" in cell or cell.startswith("dog +") for cell in cells)
        page.goto(f"{served.url}/matches")
        assert "ace + bee" in page.locator("table").first.inner_text()
        api = page.request.get(f"{served.url}/api/standings").json()["standings"]
        assert [line["team"]["games"] for line in api] == [6] * 4
        assert all(line["team"]["lower"] < line["team"]["mu"] for line in api)
        page.goto(f"{served.url}/bots/dog")
        partners = page.locator("table.partners tbody tr td:first-child").all_inner_texts()
        assert sorted(partners) == ["ace", "bee", "cat"]  # one team match beside each
        assert "No same-bot games yet." in page.inner_text("main")
        shown = page.get_by_test_id("team-rating").inner_text()
        detail = page.request.get(f"{served.url}/api/bots/dog").json()
        assert sum(line["games"] for line in detail["partners"]) == 6
        assert detail["opponents"] == []
        assert shown == f"{detail['team']['mu']:.0f}" and detail["team"]["games"] == 6
        screenshot("bot-with-partners")
    source.close()


@pytest.mark.parametrize("folder", ["ladder", "arena"])
def test_the_nav_names_each_place_in_one_word(tmp_path: Path, folder: str) -> None:
    from fastapi.testclient import TestClient

    from pitch_ladder.ladder import Ladder

    Ladder.init(tmp_path / folder).close()
    source = LadderSource(tmp_path / folder)
    try:
        page = TestClient(create_app(source)).get("/").text
    finally:
        source.close()
    nav = re.search(r"<nav>(.*?)</nav>", page, re.S)
    assert nav is not None
    links = re.findall(r">([^<]*)</a>", nav.group(1))
    assert links == [folder, "matches", "games", "live", "API"]  # "ladder ladder" before


@pytest.mark.parametrize("folder", ["matches", "live", "my games"])
def test_a_folder_sites_nav_says_home_when_its_name_is_a_place_or_several_words(
    tmp_path: Path, folder: str
) -> None:
    from fastapi.testclient import TestClient

    (tmp_path / folder).mkdir()
    page = TestClient(create_app(FolderSource(tmp_path / folder))).get("/").text
    nav = re.search(r"<nav>(.*?)</nav>", page, re.S)
    assert nav is not None
    links = re.findall(r">([^<]*)</a>", nav.group(1))
    assert links == ["home", "matches", "games", "live", "API"]  # "matches matches" before


@pytest.mark.parametrize("where", ["folder", "ladder"])
def test_on_a_phone_a_games_table_keeps_its_result_column_in_view(
    page, folder_site, ladder_site, screenshot, where
):
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(
        f"{folder_site}/matches/greedy-vs-random" if where == "folder" else f"{ladder_site}/games"
    )
    # a match's games are listed by deal pair: the pair's result is its result column
    results = page.locator("table.games td.result, table.pairs td[data-testid=pair-score]")
    assert results.count() > 0
    for box in [results.nth(n).bounding_box() for n in range(results.count())]:
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
    screenshot("games-phone")
