"""The duplicate comparison's routes and the match pages grouped by deal pair, through
FastAPI's test client: over a folder of matches (its pairs made by the engine) and over a
ladder (SQLite, and PostgreSQL when ``PITCH_TEST_POSTGRES_URL`` is set)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlmodel import Session

from pitch_sdk.bots import GreedyBot
from pitch_testkit.duplicate import CONTRARY_HAND, Contrary, duplicate_pair, write_match
from pitch_testkit.ladder import add_game_with_record, add_match, ladder_with
from pitch_web.app import create_app
from pitch_web.compare import compare_hands
from pitch_web.source import FolderSource, LadderSource
from pitch_web.timeline import timeline


@pytest.fixture(scope="module")
def records() -> list[dict[str, Any]]:
    """Pair 0: the same bots at both tables; pair 1: bot A plays another card once."""
    same = duplicate_pair(GreedyBot, GreedyBot)
    other = duplicate_pair(lambda: Contrary(CONTRARY_HAND), GreedyBot)
    return [*same, *other]


@pytest.fixture
def folder(tmp_path: Path, records) -> Path:
    write_match(tmp_path / "m", records, faults=2)
    return tmp_path


@pytest.fixture
def client(folder: Path) -> TestClient:
    return TestClient(create_app(FolderSource(folder)))


def rows_of(html: str, testid: str) -> list[str]:
    """The text of each element with ``data-testid`` ``testid`` (tags removed)."""
    cells = re.findall(rf'data-testid="{testid}"[^>]*>(.*?)</t[dr]>', html, re.S)
    return [" ".join(re.sub(r"<[^>]+>", " ", cell).split()) for cell in cells]


def test_a_folder_match_lists_a_row_per_pair_with_its_result_faults_and_comparison(client, records):
    page = client.get("/matches/m")
    assert page.status_code == 200
    assert page.text.count('data-testid="pair-row"') == 2
    assert rows_of(page.text, "pair-faults") == ["0 / 0", "0 / 2"]  # the records' faults
    summary = json.loads(Path(client.app.state.source.folder / "m" / "summary.json").read_text())
    scores = [entry["a_score"] for entry in summary["games"]]
    shown = [cell.split()[0] for cell in rows_of(page.text, "pair-score")]
    assert shown == [f"{scores[0] + scores[1]:g}", f"{scores[2] + scores[3]:g}"]
    assert 'href="/compare/m/0"' in page.text and 'href="/compare/m/1"' in page.text


def test_a_folder_match_reads_faults_from_its_outcome_log_where_it_agrees_with_the_record(
    folder, client
):
    games = folder / "m" / "games"
    lines = []
    for name, faults in (("pair-00000-a.json.gz", 3), ("pair-00001-b.json.gz", 5)):
        stat = (games / name).stat()
        size = stat.st_size + (name == "pair-00001-b.json.gz")  # a stale line: not this record
        lines.append({"game": name.split(".")[0], "record": name, "size": size,
                      "mtime_ns": stat.st_mtime_ns, "faults": faults})  # fmt: skip
    (folder / "m" / "outcomes.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in lines) + "{cut short\n"
    )
    page = client.get("/matches/m")
    assert rows_of(page.text, "pair-faults") == ["3 / 0", "0 / 2"]


def test_the_comparison_shows_each_hand_at_both_tables_and_its_first_divergence(client, records):
    page = client.get("/compare/m/1")
    assert page.status_code == 200
    steps = [  # game b's has its fault steps
        client.get(f"/api/timeline/m/games/pair-00001-{side}.json.gz").json()["steps"]
        for side in "ab"
    ]
    assert steps[0] == timeline(records[2])["steps"] != steps[1]
    hands = compare_hands(*steps)
    found = hands[CONTRARY_HAND - 1].divergence
    assert page.text.count('data-testid="compare-row"') == len(hands)
    divergences = rows_of(page.text, "divergence")
    assert divergences[0] == "none: the same play"
    assert divergences[CONTRARY_HAND - 1].startswith(f"seat {found.seat} play:")
    # the first hand that diverged is shown in full, its two steps linked and analysed
    assert f"<h2>Hand {CONTRARY_HAND}</h2>" in page.text
    for side, choice in (("a", found.a), ("b", found.b)):
        link = f'href="/view/m/games/pair-00001-{side}.json.gz#step={choice.step}"'
        assert link in page.text
    assert page.text.count('data-testid="analysis-choice"') >= 2
    assert "less than the best" in page.text or "the best" in page.text
    points = rows_of(page.text, "points-a")
    assert points[0] == "{} – {}".format(*hands[0].points(0))
    bidder = hands[0].a.bidder  # named with the bot holding that seat at each table
    bots = ("contrary", "greedy")
    assert rows_of(page.text, "contract-a")[0].startswith(f"{bots[bidder % 2]} (seat {bidder})")
    assert rows_of(page.text, "contract-b")[0].startswith(f"{bots[1 - bidder % 2]} (seat")


def test_a_hand_asked_for_is_shown_in_full(client):
    page = client.get("/compare/m/0?hand=3")
    assert page.status_code == 200
    assert "<h2>Hand 3</h2>" in page.text and "Both tables took every decision" in page.text
    assert 'data-testid="analysis"' not in page.text


def test_a_missing_match_pair_or_hand_is_a_404(client):
    for path in ("/compare/m/2", "/compare/nowhere/0", "/compare/0", "/compare/m/0?hand=4"):
        answer = client.get(path)
        assert answer.status_code == 404, path
        assert "traceback" not in answer.text.lower()


def test_bad_numbers_are_a_422(client):
    for path in ("/compare/m/x", "/compare/m/-1", "/compare/m/0?hand=0", f"/compare/m/{10**30}"):
        assert client.get(path).status_code == 422, path


def test_a_corrupt_record_in_the_pair_is_a_422_saying_so(folder, client):
    (folder / "m" / "games" / "pair-00001-b.json.gz").write_bytes(b"not a record")
    answer = client.get("/compare/m/1")
    assert answer.status_code == 422
    assert "cannot be read" in answer.text and str(folder) not in answer.text


def test_the_match_folder_served_itself_compares_at_the_root(tmp_path, records):
    write_match(tmp_path / "m", records)
    client = TestClient(create_app(FolderSource(tmp_path / "m")))
    assert 'href="/compare/1"' in client.get("/").text
    assert client.get("/compare/1").status_code == 200
    links = client.get("/view/games/pair-00001-a.json.gz").text
    assert 'href="/compare/1" data-testid="link-compare"' in links


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(path=st.text(st.characters(codec="utf-8"), max_size=30), hand=st.text(max_size=8))
def test_no_comparison_path_is_a_server_error(client, path, hand):
    answer = client.get(f"/compare/{quote(path, safe='/')}", params={"hand": hand})
    assert answer.status_code < 500


@pytest.fixture
def ladder(db_url: str, tmp_path: Path, records) -> Iterator[tuple[TestClient, list[int]]]:
    """A ladder match of the two pairs, stored in the order ``-b`` before ``-a``."""
    ladder, versions = ladder_with(db_url, tmp_path, ["contrary", "greedy"])
    numbers = {}
    with Session(ladder.engine) as session:
        match = add_match(session, 1, versions["contrary"], versions["greedy"])
        for n in (1, 0, 3, 2):
            game = f"pair-{n // 2:05d}-{'ab'[n % 2]}"
            numbers[n] = add_game_with_record(session, match, game, 1.0, records[n].to_json())
    ladder.close()
    source = LadderSource(tmp_path / "ladder", db_url)
    try:
        yield TestClient(create_app(source)), [numbers[n] for n in range(4)], match
    finally:
        source.close()


def test_a_ladder_match_lists_its_pairs_and_compares_them(ladder):
    client, numbers, match = ladder
    page = client.get(f"/matches/{match}")
    assert page.text.count('data-testid="pair-row"') == 2
    assert rows_of(page.text, "pair-score")[0].startswith("2")  # won both
    assert rows_of(page.text, "pair-faults") == ["0 / 0", "0 / 0"]
    assert f'href="/compare/{match}/1"' in page.text
    compared = client.get(f"/compare/{match}/1")
    assert compared.status_code == 200
    assert f'href="/view/{numbers[2]}#step=' in compared.text
    assert client.get(f"/compare/{match}/2").status_code == 404
    assert client.get(f"/compare/{match + 1}/0").status_code == 404


def test_a_ladder_game_links_to_its_match_twin_comparison_and_neighbours(ladder):
    client, numbers, match = ladder

    def links(number: int) -> dict[str, str]:
        page = client.get(f"/view/{number}").text
        found = re.findall(r'<a href="([^"]+)" data-testid="link-(\w+)"', page)
        return {name: href for href, name in found if name != "bot"}

    page = client.get(f"/view/{numbers[0]}").text
    bots = re.findall(r'<a href="([^"]+)" data-testid="link-bot">bot ([^<]+)</a>', page)
    players = client.get(f"/api/timeline/{numbers[0]}").json()["header"]["players"]
    names = sorted({player["name"] for player in players})
    assert sorted(bots) == [(f"/bots/{name}", name) for name in names]
    assert all(client.get(url).status_code == 200 for url, _ in bots)  # their pages

    assert links(numbers[0]) == {
        "match": f"/matches/{match}",
        "twin": f"/view/{numbers[1]}",
        "compare": f"/compare/{match}/0",
        "next": f"/view/{numbers[1]}",
    }  # the schedule's order, not the order the games were stored in
    assert links(numbers[2])["previous"] == f"/view/{numbers[1]}"
    assert "next" not in links(numbers[3])


def test_the_comparison_as_json_has_each_hand_and_both_analysed_decisions(client, records):
    answer = client.get("/api/compare/m/1")
    assert answer.status_code == 200
    data = answer.json()
    assert data["match"] == "m" and data["pair"] == 1 and data["shown"] == CONTRARY_HAND
    assert [game["url"] for game in data["games"]] == [
        f"/view/m/games/pair-00001-{side}.json.gz" for side in "ab"
    ]
    hand = data["hands"][CONTRARY_HAND - 1]
    assert hand["same_cards"] and hand["divergence"]["kind"] == "play"
    assert data["hands"][0]["divergence"] is None and data["hands"][0]["swing"] == 0
    a, b = data["decisions"]
    steps = hand["divergence"]["a"]["step"], hand["divergence"]["b"]["step"]
    assert (a["step"], b["step"]) == steps
    for decision, side in ((a, "a"), (b, "b")):
        assert set(decision) == {
            "step", "seat", "kind", "chosen", "best", "value", "cost", "error", "samples",
            "choices",
        }  # fmt: skip
        assert decision["chosen"] == hand["divergence"][side]["card"]
        chosen = next(c for c in decision["choices"] if c["action"] == decision["chosen"])
        assert decision["cost"] == decision["value"] - chosen["value"] >= 0
        assert decision["error"] is None and decision["samples"] is None
    assert client.get("/api/compare/m/0?hand=3").json()["decisions"] is None


def test_the_json_comparison_refuses_as_the_page_does(client):
    assert client.get("/api/compare/m/2").status_code == 404
    assert client.get("/api/compare/m/0?hand=9").json()["detail"].startswith("no hand 9")
    assert client.get("/api/compare/m/x").status_code == 422
