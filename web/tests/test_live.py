"""Live games in the web application: the list, the viewer page and the event stream,
over journals written by a real table in this process (the browser test is in
test_live_browser.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from pitch_ladder.ladder import Ladder
from pitch_referee.live import JournalPublisher
from pitch_sdk.bots import RandomBot
from pitch_sdk.record import write_record
from pitch_sdk.selfplay import BotPlayer
from pitch_sdk.table import Table, play_in_process
from pitch_testkit.journal import (
    GAME,
    KEY,
    MATCH,
    cut_after_deal,
    journaled_game,
    record_of,
    write_final,
)
from pitch_web.app import create_app
from pitch_web.live_hands import hands_update
from pitch_web.routes import live
from pitch_web.source import FolderSource, LadderSource
from pitch_web.timeline import timeline


@pytest.fixture
def served(tmp_path: Path) -> Path:
    return tmp_path / "served"


@pytest.fixture
def client(served: Path) -> TestClient:
    served.mkdir()
    return TestClient(create_app(FolderSource(served)))


def _events(client: TestClient, url: str, headers: dict | None = None) -> list[tuple[str, dict]]:
    """The events of a stream that ends."""
    events, name = [], None
    with client.stream("GET", url, headers=headers) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        for line in response.iter_lines():
            if line.startswith("event: "):
                name = line.removeprefix("event: ")
            elif line.startswith("data: "):
                events.append((name, json.loads(line.removeprefix("data: "))))
    return events


def test_a_game_going_on_is_listed_with_its_hand_and_score_and_its_page_follows_it(client, served):
    journal, record = journaled_game(served)
    cut_after_deal(journal, 2)
    (game,) = client.get("/api/live").json()
    assert game["key"] == KEY and game["match"] == MATCH and game["hand"] == 2
    assert record.hands[0].score is not None
    assert game["score"] == list(record.hands[0].score.scores)
    assert game["players"] == ["random"] * 4 and game["url"] == f"/live/{KEY}"
    page = client.get("/live")
    assert page.status_code == 200 and f'href="/live/{KEY}"' in page.text
    viewer = client.get(f"/live/{KEY}")
    assert viewer.status_code == 200
    assert f'data-events="/api/live/{KEY}/events"' in viewer.text
    assert "/static/live.js" in viewer.text and "/static/viewer.js" in viewer.text


def test_the_stream_sends_the_timeline_so_far_then_the_rest_then_the_end(client, served):
    journal, record = journaled_game(served)
    whole = journal.read_text()
    cut_after_deal(journal, 1)
    so_far = len(timeline(record_of(journal))["steps"])
    journal.write_text(whole)  # the game ends: the stream catches up and ends
    write_final(served, record)
    events = _events(client, f"/api/live/{KEY}/events?after={so_far}")
    names = [name for name, _ in events]
    assert names[0] == "timeline" and names[-1] == "end"
    first = events[0][1]
    assert first["from"] == so_far and first["header"]["players"][0]["name"] == "random"
    steps = [step for _, data in events if "steps" in data for step in data["steps"]]
    assert steps == timeline(record)["steps"][so_far:]
    end = events[-1][1]
    assert record.result is not None and end["header"]["result"] == record.result.to_json()
    assert end["view"] == f"/view/{MATCH}/games/{GAME}.json.gz"
    resumed = _events(client, f"/api/live/{KEY}/events", {"Last-Event-ID": str(so_far + 5)})
    assert resumed[0][1]["from"] == so_far + 5  # a reconnecting browser resumes where it was


def test_the_page_shows_the_hands_so_far_and_the_stream_grows_them_to_the_games_end(client, served):
    journal, record = journaled_game(served)
    whole = journal.read_text()
    cut_after_deal(journal, 2)
    so_far = timeline(record_of(journal))
    page = client.get(f"/live/{KEY}").text
    assert page.count('data-testid="hand-row"') == 2  # hand 1 scored, hand 2 being played
    assert page.count("not scored") == 1 and page.count('data-testid="bid-mark"') == 1
    journal.write_text(whole)
    write_final(served, record)
    events = _events(client, f"/api/live/{KEY}/events?after={len(so_far['steps'])}")
    players = so_far["header"]["players"]
    rows = hands_update(so_far["steps"], players, [])[0]["rows"]
    chart = ""
    for _, data in events:
        if "hands" in data:
            rows = rows[: data["hands"]["from"]] + data["hands"]["rows"]
            chart = data["hands"].get("chart", chart)
    final = hands_update(timeline(record)["steps"], players, [])[0]
    assert len(rows) == len(record.hands) and (rows, chart) == (final["rows"], final["chart"])


def test_a_finished_game_is_not_listed_and_its_live_page_sends_to_its_record(client, served):
    journal, record = journaled_game(served)
    write_final(served, record)
    assert client.get("/api/live").json() == []  # its end line is written
    journal.unlink()
    response = client.get(f"/live/{KEY}", follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == f"/view/{MATCH}/games/{GAME}.json.gz#step=end"
    events = _events(client, f"/api/live/{KEY}/events")
    assert [name for name, _ in events] == ["timeline", "end"]
    assert events[0][1]["steps"] == timeline(record)["steps"]


def test_an_unknown_or_malformed_key_is_a_404(client):
    response = client.get("/api/live/m-random/pair-00009-a/events")
    assert response.status_code == 404 and "no live game" in response.json()["detail"]
    assert client.get("/api/live/%2e%2e/%2e%2e/etc/events").status_code == 404
    assert client.get("/api/live/a/b/c/d/events").status_code == 404
    page = client.get("/live/m-random/pair-00009-a")
    assert page.status_code == 404 and "no live game" in page.text
    assert "Traceback" not in page.text


WRITER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from pitch_referee.live import JournalPublisher
    from pitch_sdk.table import Started

    feed = JournalPublisher(Path(sys.argv[1]), 30).feed("pair-00003-b")
    heading = {"rules": {}, "seed": 1, "first_dealer": 0,
               "players": [{"seat": s, "name": "slow", "version": "1"} for s in range(4)]}
    feed(Started("pair-00003-b", heading))
    print("written", flush=True)
    time.sleep(60)
    """
)


def test_a_game_whose_writer_was_killed_is_not_listed_and_its_stream_says_so(client, served):
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(served / MATCH / "live")],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert writer.stdout is not None and writer.stdout.readline() == "written\n"
        assert [game["game"] for game in client.get("/api/live").json()] == ["pair-00003-b"]
    finally:
        os.kill(writer.pid, signal.SIGKILL)
        writer.wait()
    assert client.get("/api/live").json() == []
    # a browser that connects after the death (a page opened just before) is told so
    events = _events(client, f"/api/live/{MATCH}/pair-00003-b/events")
    assert [name for name, _ in events] == ["timeline", "gone"]
    assert "its run was killed" in events[1][1]["message"]
    assert "No game is being played now." in client.get("/live").text


def test_a_ladder_lists_the_games_of_its_match_folders_and_shows_a_finished_one(tmp_path):
    Ladder.init(tmp_path / "ladder").close()
    source = LadderSource(tmp_path / "ladder")
    match = tmp_path / "ladder" / "matches" / "0001-random-vs-random"
    feed = JournalPublisher.for_match(match, 30).feed(GAME)
    table = Table([BotPlayer(RandomBot(seat)) for seat in range(4)], seed=4, watchers=[feed])
    record = play_in_process(table.play()).record
    cut_after_deal(feed.path, 1)
    key = f"matches/0001-random-vs-random/{GAME}"
    with TestClient(create_app(source)) as client:
        assert [game["key"] for game in client.get("/api/live").json()] == [key]
        (match / "games").mkdir()
        write_record(record, match / "games" / f"{GAME}.json")
        feed.close()  # the game is over and its record written
        assert client.get("/api/live").json() == []
        page = client.get(f"/live/{key}", follow_redirects=False)
        assert page.status_code == 200 and "timeline-data" in page.text
        assert "live-status" not in page.text  # the finished game, not a live one
    source.close()


def test_a_match_folder_with_a_space_in_its_name_is_listed_and_followed(client, served):
    feed = JournalPublisher.for_match(served / "my match", 30).feed(GAME)
    table = Table([BotPlayer(RandomBot(seat)) for seat in range(4)], seed=9, watchers=[feed])
    play_in_process(table.play())
    cut_after_deal(feed.path, 1)
    (game,) = client.get("/api/live").json()
    assert game["key"] == f"my match/{GAME}" and game["url"] == f"/live/my%20match/{GAME}"
    assert client.get(game["url"]).status_code == 200


def test_viewers_of_one_game_share_its_timeline(client, served, monkeypatch):
    _, record = journaled_game(served)
    write_final(served, record)
    replays = []

    def counted(record, **options):
        replays.append(options)
        return timeline(record, **options)

    monkeypatch.setattr(live, "timeline", counted)
    first = _events(client, f"/api/live/{KEY}/events")
    second = _events(client, f"/api/live/{KEY}/events")
    assert first == second and len(replays) == 1
