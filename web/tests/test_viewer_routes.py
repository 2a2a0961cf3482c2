"""The viewer's routes, through FastAPI's test client over a folder of records and a ladder."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session

from pitch_sdk.bots import RandomBot
from pitch_sdk.gamerecord import Fault, GameRecord
from pitch_sdk.options import RuleOptions
from pitch_sdk.record import write_record
from pitch_sdk.selfplay import play_game
from pitch_testkit.ladder import add_game_with_record, add_match, ladder_with
from pitch_web.app import create_app
from pitch_web.source import FolderSource, LadderSource
from pitch_web.timeline import timeline


def a_game(hand_cap: int = 2) -> GameRecord:
    return play_game(
        [RandomBot(seat) for seat in range(4)], seed=7, options=RuleOptions(hand_cap=hand_cap)
    )


def with_logs(record: GameRecord, logs: dict[int, str]) -> GameRecord:
    """``record`` whose players at these seats name these log files."""
    players = tuple(replace(p, log=logs.get(p.seat, p.log)) for p in record.players)
    return replace(record, players=players)


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    (tmp_path / "m" / "games").mkdir(parents=True)
    write_record(a_game(), tmp_path / "m" / "games" / "g.json.gz")
    (tmp_path / "corrupt.json").write_text('{"format": "pitch-game-record", "hands": [')
    broken = a_game().to_json()
    broken["hands"][0]["deck"][0] = "ZZ"
    (tmp_path / "malformed.json").write_text(json.dumps(broken))
    return TestClient(create_app(FolderSource(tmp_path)))


def test_the_timeline_route_serves_the_timeline_of_the_record(client):
    answer = client.get("/api/timeline/m/games/g.json.gz")
    assert answer.status_code == 200
    assert answer.json() == timeline(a_game(), game="m/games/g.json.gz")


def test_the_viewer_page_carries_its_timeline_inline_and_loads_the_viewer(client):
    answer = client.get("/view/m/games/g.json.gz")
    assert answer.status_code == 200
    page = answer.text
    assert '<script src="/static/viewer.js"></script>' in page
    inline = page.split('<script type="application/json" id="timeline-data">', 1)[1]
    data = json.loads(inline.split("</script>", 1)[0])
    assert data["steps"] == timeline(a_game())["steps"]
    assert client.get("/static/viewer.js").status_code == 200
    assert client.get("/static/viewer.css").status_code == 200


def test_a_missing_game_is_a_404_page_and_a_404_answer(client):
    page = client.get("/view/m/games/nothing.json")
    assert page.status_code == 404 and "m/games/nothing.json" in page.text
    assert "Traceback" not in page.text
    answer = client.get("/api/timeline/m/games/nothing.json")
    assert answer.status_code == 404 and "no record" in answer.json()["detail"]


@pytest.mark.parametrize(
    ("key", "says"),
    [
        ("corrupt.json", "not a readable JSON game record"),
        ("malformed.json", "hand 1: unreadable deck"),
    ],
)
def test_a_corrupt_record_is_an_error_page_saying_why(client, key, says):
    page = client.get(f"/view/{key}")
    assert page.status_code == 422
    assert "this game&#39;s record cannot be read" in page.text and says in page.text
    assert "Traceback" not in page.text
    answer = client.get(f"/api/timeline/{key}")
    assert answer.status_code == 422 and says in answer.json()["detail"]


def test_a_script_end_inside_the_record_cannot_end_the_inline_timeline(tmp_path):
    record = a_game(hand_cap=1)
    sly = replace(record.players[0], name="</script><script>alert(1)</script>")
    record = replace(record, players=(sly, *record.players[1:]))
    write_record(record, tmp_path / "sly.json")
    page = TestClient(create_app(FolderSource(tmp_path))).get("/view/sly.json").text
    inline = page.split('id="timeline-data">', 1)[1].split("</script>", 1)[0]
    assert json.loads(inline)["header"]["players"][0]["name"] == record.players[0].name


def test_the_bots_log_lines_of_that_game_come_with_the_timeline(tmp_path):
    record = a_game(hand_cap=1)
    logs = tmp_path / "m" / "logs" / "worker-0"
    logs.mkdir(parents=True)
    (logs / "A1.log").write_text(
        "05:30:41 INFO connected to pitch-referee 0.1.0\n"
        "05:30:41 INFO game pair-00000-a: playing seat 1\n"
        "thinking about hand 1\n"
        "05:30:42 INFO game pair-00000-b: playing seat 3\n"
        "a line of the other game\n"
    )
    outside = tmp_path.parent / f"{tmp_path.name}-outside.log"
    outside.write_text("game pair-00000-a: playing seat 2\nsecret\n")
    record = with_logs(record, {1: "logs/worker-0/A1.log", 2: str(outside)})  # 2: outside
    (tmp_path / "m" / "games").mkdir()
    write_record(record, tmp_path / "m" / "games" / "pair-00000-a.json.gz")
    client = TestClient(create_app(FolderSource(tmp_path)))

    shown = client.get("/api/timeline/m/games/pair-00000-a.json.gz").json()["logs"]
    assert [(line["s"], line["t"]) for line in shown] == [
        (1, "05:30:41 INFO game pair-00000-a: playing seat 1"),
        (1, "thinking about hand 1"),
    ]
    assert all(line["at"] is None for line in shown)


def test_a_rewritten_record_is_shown_anew_not_from_the_kept_timeline(tmp_path):
    write_record(a_game(hand_cap=1), tmp_path / "g.json")
    client = TestClient(create_app(FolderSource(tmp_path)))
    assert client.get("/api/timeline/g.json").json()["header"]["rules"]["hand_cap"] == 1
    write_record(a_game(hand_cap=2), tmp_path / "g.json")
    again = client.get("/api/timeline/g.json").json()
    assert again["header"]["rules"]["hand_cap"] == 2
    assert again == timeline(a_game(hand_cap=2), game="g.json")


def test_a_ladder_game_is_viewed_by_its_number_with_its_bots_log_lines(tmp_path):
    db = f"sqlite:///{tmp_path / 'ladder.db'}"
    ladder, versions = ladder_with(db, tmp_path, ["alpha", "beta"])
    log = ladder.folder / "matches" / "1" / "logs" / "worker-0" / "A0.log"
    log.parent.mkdir(parents=True)
    log.write_text("game pair-00000-a: playing seat 0\nalpha thinks\n")
    record = a_game(hand_cap=1).to_json()
    record["players"][0]["log"] = str(log)
    record["players"][0]["name"] = "alpha"  # a bot of the operator's: its lines are shown
    record["faults"] = [
        {"hand": 1, "decision": 0, "seat": 1, "kind": "timeout", "log": str(log.parent / "B1.log"),
         "detail": f"too slow; see {log.parent / 'B1.log'}", "decision_kind": "bid"},
    ]  # fmt: skip
    with Session(ladder.engine) as session:
        match = add_match(session, 1, versions["alpha"], versions["beta"])
        number = add_game_with_record(session, match, "pair-00000-a", 1.0, record)
    ladder.close()
    source = LadderSource(tmp_path / "ladder", db)
    try:
        client = TestClient(create_app(source))
        shown = client.get(f"/api/timeline/{number}").json()
        sent = client.get(f"/api/games/{number}").json()
        assert shown["steps"] == timeline(GameRecord.from_json(sent))["steps"]
        assert [line["t"] for line in shown["logs"]] == [
            "game pair-00000-a: playing seat 0",
            "alpha thinks",
        ]  # an old record's absolute path still reads...
        for path in (f"/api/games/{number}", f"/api/timeline/{number}", f"/view/{number}"):
            assert str(tmp_path) not in client.get(path).text  # ...and is never sent
        assert sent["players"][0]["log"] == "matches/1/logs/worker-0/A0.log"
        assert sent["faults"][0]["detail"] == "too slow; see matches/1/logs/worker-0/B1.log"
        assert client.get(f"/view/{number}").status_code == 200
        assert client.get(f"/view/{number + 1}").status_code == 404
        assert client.get("/view/first").status_code == 404
    finally:
        source.close()


def test_an_old_records_absolute_log_paths_still_read_and_are_never_sent(tmp_path):
    match = tmp_path / "served" / "m"
    log = match / "logs" / "worker-0" / "A1-random.log"
    log.parent.mkdir(parents=True)
    log.write_text("game pair-00000-a: playing seat 1\nthinking\n")
    elsewhere = tmp_path / "elsewhere.log"
    elsewhere.write_text("game pair-00000-a: playing seat 2\nnot served\n")
    record = with_logs(a_game(hand_cap=1), {1: str(log), 2: str(elsewhere)})
    fault = Fault(0, 0, 2, "start_failed", f"exited before its hello; see {elsewhere}",
                  log=str(elsewhere))  # fmt: skip
    (match / "games").mkdir()
    write_record(replace(record, faults=(fault,)), match / "games" / "pair-00000-a.json")
    client = TestClient(create_app(FolderSource(tmp_path / "served")))
    key = "m/games/pair-00000-a.json"
    sent = client.get(f"/api/games/{key}").json()
    assert sent["players"][1]["log"] == "logs/worker-0/A1-random.log"
    assert "log" not in sent["players"][2] and "log" not in sent["faults"][0]
    assert sent["faults"][0]["detail"] == "exited before its hello; see elsewhere.log"
    lines = client.get(f"/api/timeline/{key}").json()["logs"]
    assert [(line["s"], line["t"]) for line in lines] == [
        (1, "game pair-00000-a: playing seat 1"),
        (1, "thinking"),
    ]
    for path in (f"/api/games/{key}", f"/api/timeline/{key}", f"/view/{key}"):
        assert str(tmp_path) not in client.get(path).text
