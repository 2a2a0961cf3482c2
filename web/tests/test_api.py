"""The JSON API over a ladder (SQLite, and PostgreSQL when ``PITCH_TEST_POSTGRES_URL`` is
set) and over a folder of matches and records, through FastAPI's test client.

The ladders are written straight into the database (``pitch_testkit.ladder``), each game with
the record of a real one-hand game, so that nothing here starts a bot.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session

from pitch_ladder.ratings import elo_step
from pitch_sdk.record import write_record
from pitch_testkit.ladder import add_match, ladder_with, store_game
from pitch_testkit.samples import build_ladder, game_record, match_folder
from pitch_web import create_app
from pitch_web.routes import pages
from pitch_web.source import FolderSource, LadderSource


@pytest.fixture
def ladder_client(db_url: str, tmp_path: Path) -> Iterator[TestClient]:
    ladder = build_ladder(db_url, tmp_path)
    ladder.close()
    source = LadderSource(tmp_path / "ladder", db_url)
    with TestClient(create_app(source)) as client:
        yield client
    source.close()


@pytest.fixture
def folder_client(tmp_path: Path) -> Iterator[TestClient]:
    served = tmp_path / "matches"
    match_folder(served / "greedy-vs-random")
    write_record(game_record(seed=9), served / "loose.json")
    with TestClient(create_app(FolderSource(served))) as client:
        yield client


def ok(client: TestClient, url: str) -> Any:
    response = client.get(url)
    assert response.status_code == 200, (url, response.text)
    return response.json()


def refused(client: TestClient, url: str, status: int) -> str:
    """The one-line ``detail`` of a refused request."""
    response = client.get(url)
    assert response.status_code == status, (url, response.text)
    detail = response.json()["detail"]
    assert isinstance(detail, str) and "\n" not in detail and "Traceback" not in detail
    return detail


def test_standings_rank_the_bots_with_their_intervals_and_pages(ladder_client, monkeypatch):
    page = ok(ladder_client, "/api/standings")
    assert (page["total"], page["next"]) == (3, None)
    assert page["fit_through_game"] == page["newest_game"] == 6  # fitted on the first read
    lines = page["standings"]
    assert [line["bot"] for line in lines] == ["alpha", "gamma", "beta"]
    assert [line["rank"] for line in lines] == [1, 2, 3]
    for line in lines:
        assert line["lower"] < line["rating"] < line["upper"]
        assert line["url"] == f"/bots/{line['bot']}"
    assert (lines[0]["games"], lines[0]["wins"], lines[0]["losses"]) == (4, 3, 1)
    first = ok(ladder_client, "/api/standings?limit=2")
    assert [line["bot"] for line in first["standings"]] == ["alpha", "gamma"]
    assert first["next"] == "/api/standings?limit=2&offset=2"
    rest = ok(ladder_client, first["next"])
    assert [line["bot"] for line in rest["standings"]] == ["beta"] and rest["next"] is None
    assert ok(ladder_client, f"/api/standings?offset={2**63 - 1}")["standings"] == []
    assert "less than or equal to 1000" in refused(ladder_client, "/api/standings?limit=1001", 422)
    monkeypatch.setattr(pages, "STANDINGS_PAGE", 2)
    html = ladder_client.get("/").text
    assert "lines 1–2 of 3" in html and 'href="/?offset=2"' in html and "beta" not in html
    html = ladder_client.get("/?offset=2").text
    assert "lines 3–3 of 3" in html and 'href="/"' in html and "beta" in html


def test_bots_and_a_bots_page(ladder_client):
    assert [bot["name"] for bot in ok(ladder_client, "/api/bots")] == ["alpha", "beta", "gamma"]
    beta = ok(ladder_client, "/api/bots/beta")
    opponents = {line["opponent"]: line for line in beta["opponents"]}
    assert (opponents["alpha"]["games"], opponents["alpha"]["wins"]) == (4, 1)
    assert (opponents["gamma"]["draws"], opponents["gamma"]["losses"]) == (1, 1)
    assert beta["faults"] == {}  # the timeout was alpha's
    assert ok(ladder_client, "/api/bots/alpha")["faults"] == {"timeout": 1}
    assert [game["key"] for game in beta["recent_games"]] == ["6", "5", "4", "3", "2", "1"]
    assert [version["games"] for version in beta["versions"]] == [6]


def test_a_missing_bot_or_game_is_a_404_with_one_line(ladder_client):
    assert "no bot named 'nobody'" in refused(ladder_client, "/api/bots/nobody", 404)
    assert "no game 99" in refused(ladder_client, "/api/games/99", 404)
    assert "numbered" in refused(ladder_client, "/api/games/x.json", 404)


def test_games_come_newest_first_and_page_by_number(ladder_client):
    page = ok(ladder_client, "/api/games?limit=4")
    assert [game["key"] for game in page["games"]] == ["6", "5", "4", "3"]
    assert page["next"] == "/api/games?limit=4&before=3"
    rest = ok(ladder_client, page["next"])
    assert [game["key"] for game in rest["games"]] == ["2", "1"]
    assert rest["next"] is None
    first = page["games"][0]
    assert first["url"] == "/view/6" and first["record"] == "/api/games/6"
    assert ok(ladder_client, "/api/games?offset=5")["games"][0]["key"] == "1"


def test_games_filter_by_bot_result_fault_version_and_match(ladder_client):
    def keys(query: str) -> list[str]:
        return [game["key"] for game in ok(ladder_client, f"/api/games?{query}")["games"]]

    assert keys("bot=beta&result=won") == ["4"]
    assert keys("bot=gamma&result=won") == ["6"]
    assert keys("bot=alpha&result=lost") == ["4"]
    assert keys("bot=beta&result=drawn") == ["5"]
    assert keys("fault=true") == ["4"]
    assert keys("bot=alpha&fault=false") == ["3", "2", "1"]
    assert keys("bot=gamma&version=1") == ["6", "5"]
    matches = ok(ladder_client, "/api/matches?bot=gamma")["matches"]
    assert keys(f"match={matches[0]['key']}") == ["6", "5"]


def test_bad_parameters_are_a_422_that_says_which(ladder_client):
    assert "limit" in refused(ladder_client, "/api/games?limit=0", 422)
    assert "result" in refused(ladder_client, "/api/games?bot=beta&result=maybe", 422)
    assert "needs a bot" in refused(ladder_client, "/api/games?result=won", 422)
    assert "no version '9'" in refused(ladder_client, "/api/games?bot=beta&version=9", 404)
    assert "before" in refused(ladder_client, "/api/games?before=x", 422)
    assert "status" in refused(ladder_client, "/api/matches?status=lost", 422)


@pytest.mark.parametrize(
    "url", ["/api/matches?bot=be%00ta", "/api/games?bot=beta&version=1%00", "/api/games?match=1%00"]
)
def test_a_nul_character_in_a_text_parameter_is_a_422_not_the_databases_error(ladder_client, url):
    # PostgreSQL refuses a NUL in text: it was a DataError and a 500 (found by the fuzzer)
    assert refused(ladder_client, url, 422)


def test_a_games_record_is_served_whole(ladder_client):
    record = ok(ladder_client, "/api/games/1")
    assert record["format"] == "pitch-game-record"
    assert record == game_record().to_json()


def test_matches_show_their_games_so_far_from_as_side(ladder_client):
    listed = ok(ladder_client, "/api/matches")["matches"]
    assert [(m["a"], m["b"]) for m in listed] == [("beta", "gamma"), ("alpha", "beta")]
    newest = listed[0]
    assert (newest["games_played"], newest["wins"], newest["losses"], newest["draws"]) == (
        2,
        0,
        1,
        1,
    )
    assert newest["url"] == f"/matches/{newest['key']}"
    assert ok(ladder_client, "/api/matches?status=finished")["matches"] == []


def test_a_match_is_found_by_its_number_or_its_folder(ladder_client, folder_client):
    assert ok(ladder_client, "/api/matches/2")["b"] == "gamma"
    assert "no match 9" in refused(ladder_client, "/api/matches/9", 404)
    assert ok(folder_client, "/api/matches/greedy-vs-random")["games_played"] == 2
    assert "no match folder" in refused(folder_client, "/api/matches/nothing", 404)


def test_a_ladder_without_bots_has_empty_standings(db_url, tmp_path):
    ladder_with(db_url, tmp_path, [])[0].close()
    source = LadderSource(tmp_path / "ladder", db_url)
    with TestClient(create_app(source)) as client:
        assert ok(client, "/api/standings")["standings"] == []
        assert ok(client, "/api/games") == {"games": [], "next": None}
        assert "No bots yet" in client.get("/").text
    source.close()


def test_a_bots_rating_history_starts_at_1500_and_has_a_point_per_game(ladder_client):
    points = ok(ladder_client, "/api/bots/alpha/ratings")
    assert points[0] == {"games": 0, "rating": 1500.0}
    assert [point["games"] for point in points] == [0, 1, 2, 3, 4]
    assert points[3]["rating"] > points[1]["rating"] > 1500  # three wins, then a loss
    assert points[4]["rating"] < points[3]["rating"]


def test_a_rating_history_follows_the_elo_order_when_games_are_stored_out_of_it(db_url, tmp_path):
    ladder, versions = ladder_with(db_url, tmp_path, ["alpha", "beta", "gamma"])
    with Session(ladder.engine) as session:
        first = add_match(session, 1, versions["alpha"], versions["beta"])
        second = add_match(session, 1, versions["alpha"], versions["gamma"])
        store_game(session, second, "pair-00000-a", 0.0)  # the later match's game first
        store_game(session, first, "pair-00000-a", 1.0)
    ladder.close()
    source = LadderSource(tmp_path / "ladder", db_url)
    with TestClient(create_app(source)) as client:
        points = ok(client, "/api/bots/alpha/ratings")
    source.close()
    won, _ = elo_step(1500.0, 1500.0, 1.0)
    lost, _ = elo_step(won, 1500.0, 0.0)
    assert points == [
        {"games": 0, "rating": 1500.0},
        {"games": 1, "rating": pytest.approx(won)},
        {"games": 2, "rating": pytest.approx(lost)},
    ]


def test_the_openapi_description_names_the_response_models(ladder_client):
    schemas = ok(ladder_client, "/api/openapi.json")["components"]["schemas"]
    assert {"StandingOut", "BotDetailOut", "GamesPage", "MatchesPage", "GameOut"} <= set(schemas)
    assert ladder_client.get("/docs").status_code == 200


def test_a_folder_lists_its_matches_games_and_loose_records(folder_client):
    (match,) = ok(folder_client, "/api/matches")["matches"]
    assert (match["key"], match["a"], match["b"], match["games_played"]) == (
        "greedy-vs-random",
        "greedy",
        "random",
        2,
    )
    games = ok(folder_client, "/api/games?match=greedy-vs-random")["games"]
    assert [game["key"] for game in games] == [
        "greedy-vs-random/games/pair-00000-a.json.gz",
        "greedy-vs-random/games/pair-00000-b.json.gz",
    ]
    assert games[0]["url"] == "/view/greedy-vs-random/games/pair-00000-a.json.gz"
    assert ok(folder_client, games[1]["record"]) == game_record(seed=2).to_json()
    loose = ok(folder_client, "/api/games")["games"]
    assert [game["key"] for game in loose] == ["loose.json"]


def test_a_folder_refuses_what_only_a_ladder_has_and_paths_outside_it(folder_client):
    assert "not a ladder" in refused(folder_client, "/api/standings", 404)
    assert "no match folder" in refused(folder_client, "/api/games?match=nothing", 404)
    assert "no record" in refused(folder_client, "/api/games/..%2F..%2Fetc%2Fpasswd", 404)
    assert "by match" in refused(folder_client, "/api/games?bot=greedy", 422)


def test_a_folder_answers_a_name_too_long_for_its_file_system_with_a_404(folder_client):
    long = "x" * 300  # a component over the file system's 255 bytes: ENAMETOOLONG
    assert "no match folder" in refused(folder_client, f"/api/matches/{long}", 404)
    assert "no record" in refused(folder_client, f"/api/games/{long}.json", 404)
