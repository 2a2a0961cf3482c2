"""A bot's log lines in the viewer are its author's: anyone sees the operator's bots' lines
beside a ladder game, an author (with their token) their own bots' too, an admin every
bot's; the page adds them when the author's token is in the tab."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from playwright.sync_api import expect
from sqlmodel import Session, select

from pitch_ladder.authors import add_author, author_named
from pitch_ladder.models import Bot, Game, GameRecord, Match
from pitch_referee.logindex import LogTag, index_path
from pitch_sdk.bots import RandomBot
from pitch_sdk.options import RuleOptions
from pitch_sdk.selfplay import play_game
from pitch_testkit.ladder import add_game_with_record, add_match, add_team_match, ladder_with
from pitch_testkit.viewer import IllegalPlayer
from pitch_web import create_app
from pitch_web.routes.service import enable_service
from pitch_web.source import LadderSource

GAME = "pair-00000-a"


@dataclass
class Served:
    source: LadderSource
    number: int
    tokens: dict[str, str]


@pytest.fixture
def arena(tmp_path: Path) -> Iterator[Served]:
    """A ladder game of alice's bot ``alpha`` (seats 0 and 2) against the operator's
    ``beta`` (seats 1 and 3), each seat's log holding a line of its own."""
    db = f"sqlite:///{tmp_path / 'ladder.db'}"
    ladder, versions = ladder_with(db, tmp_path, ["alpha", "beta"])
    tokens = {
        name: add_author(ladder, name, admin=name == "op").token for name in ("alice", "bob", "op")
    }
    record = play_game(
        [RandomBot(seat) for seat in range(4)], seed=3, options=RuleOptions(hand_cap=1)
    ).to_json()  # stored as the database holds it
    logs = ladder.folder / "matches" / "1" / "logs" / "worker-0"
    logs.mkdir(parents=True)
    for player in record["players"]:
        seat = player["seat"]
        player["name"] = "alpha" if seat % 2 == 0 else "beta"
        (logs / f"seat{seat}.log").write_text(
            f"game {GAME}: playing seat {seat}\n{player['name']} at seat {seat} thinks\n"
        )
        player["log"] = str(logs / f"seat{seat}.log")
    with Session(ladder.engine) as session:
        session.get_one(Bot, 1).author_id = author_named(session, "alice").id  # alpha
        match = add_match(session, 1, versions["alpha"], versions["beta"])
        number = add_game_with_record(session, match, GAME, 1.0, record)
    ladder.close()
    source = LadderSource(tmp_path / "ladder", db)
    yield Served(source, number, tokens)
    source.close()


def _client(arena: Served) -> TestClient:
    app = create_app(arena.source)
    enable_service(app)
    return TestClient(app)


def _said(logs: list[dict]) -> list[str]:
    return [line["t"] for line in logs if "thinks" in line["t"]]


def test_anyone_sees_the_operators_bots_log_lines_and_no_authors(arena):
    client = _client(arena)
    shown = client.get(f"/api/timeline/{arena.number}").json()
    assert _said(shown["logs"]) == ["beta at seat 1 thinks", "beta at seat 3 thinks"]
    page = client.get(f"/view/{arena.number}").text
    assert "alpha at seat 0" not in page and "/static/own_logs.js" in page


def test_an_author_reads_their_own_bots_lines_and_an_admin_every_bots(arena):
    client = _client(arena)

    def logs_as(author: str | None):
        token = {"Authorization": f"Bearer {arena.tokens[author]}"} if author else {}
        return client.get(f"/api/game-logs/{arena.number}", headers=token)

    assert _said(logs_as("alice").json()["logs"]) == [
        "alpha at seat 0 thinks",
        "alpha at seat 2 thinks",
    ]
    assert len(_said(logs_as("op").json()["logs"])) == 4
    refused = logs_as("bob")
    assert refused.status_code == 403 and "its authors'" in refused.json()["detail"]
    assert logs_as(None).status_code == 401
    missing = client.get(
        f"/api/game-logs/{arena.number + 1}",
        headers={"Authorization": f"Bearer {arena.tokens['alice']}"},
    )
    assert missing.status_code == 404


@pytest.mark.slow
def test_the_viewer_adds_the_authors_own_lines_when_their_token_is_in_the_tab(
    arena, page, serve, screenshot
):
    app = create_app(arena.source)
    enable_service(app)
    with serve(app) as served:
        page.goto(f"{served.url}/view/{arena.number}")
        logs = page.get_by_test_id("logs")
        expect(logs).to_contain_text("beta at seat 1 thinks")
        expect(logs).not_to_contain_text("alpha")
        page.evaluate(f"sessionStorage.setItem('pitch-token', '{arena.tokens['alice']}')")
        page.reload()
        expect(logs).to_contain_text("alpha at seat 0 thinks")
        expect(logs).to_contain_text("beta at seat 1 thinks")
        screenshot("own-logs")


def test_in_a_mixed_team_game_each_author_sees_the_seats_of_their_own_versions(tmp_path):
    """alice's alpha partners bob's gamma against the operator's beta and delta: each
    author sees the lines of the seats where the game's row puts their versions, whatever
    names the record carries."""
    db = f"sqlite:///{tmp_path / 'ladder.db'}"
    ladder, versions = ladder_with(db, tmp_path, ["alpha", "beta", "gamma", "delta"])
    tokens = {name: add_author(ladder, name).token for name in ("alice", "bob")}
    record = play_game(
        [RandomBot(seat) for seat in range(4)], seed=3, options=RuleOptions(hand_cap=1)
    ).to_json()  # stored as the database holds it
    logs = ladder.folder / "matches" / "1" / "logs" / "worker-0"
    logs.mkdir(parents=True)
    for player in record["players"]:
        seat = player["seat"]
        player["name"] = "alpha"  # a record's names are not who sat there: the row is
        (logs / f"seat{seat}.log").write_text(f"game {GAME}: playing seat {seat}\nseat {seat}\n")
        player["log"] = f"logs/worker-0/seat{seat}.log"
    with Session(ladder.engine) as session:
        for name, author in (("alpha", "alice"), ("gamma", "bob")):
            bot = session.exec(select(Bot).where(Bot.name == name)).one()
            bot.author_id = author_named(session, author).id
        match = add_team_match(session, 1, ("alpha", "gamma", "beta", "delta"), versions, [1.0])
        game = session.exec(select(Game).where(Game.match_id == match)).one()
        session.get_one(Match, match).folder = "matches/1"
        game.record_path = "matches/1/games/pair-00000-a.json"
        session.add(GameRecord.model_validate({"game_id": game.id, "record": record}))
        session.commit()
        number = game.id
    ladder.close()
    source = LadderSource(tmp_path / "ladder", db)
    try:
        client = _client(Served(source, number, tokens))

        def seats(author: str) -> set[int]:
            headers = {"Authorization": f"Bearer {tokens[author]}"}
            lines = client.get(f"/api/game-logs/{number}", headers=headers).json()["logs"]
            return {line["s"] for line in lines}

        assert seats("alice") == {0}  # A1: alpha
        assert seats("bob") == {2}  # A2: gamma, alpha's partner
        shown = client.get(f"/api/timeline/{number}").json()["logs"]
        assert {line["s"] for line in shown} == {1, 3}  # the operator's beta and delta
    finally:
        source.close()


def test_an_author_gets_their_faulty_bots_last_lines_at_its_fault_and_the_public_does_not(
    tmp_path,
):
    """alice's alpha (seat 0) plays an illegal card after logging a traceback: her token
    gets the fault step's last lines and exception; the public timeline has neither."""
    db = f"sqlite:///{tmp_path / 'ladder.db'}"
    ladder, versions = ladder_with(db, tmp_path, ["alpha", "beta"])
    token = add_author(ladder, "alice").token
    bots = [IllegalPlayer(0), RandomBot(1), RandomBot(2), RandomBot(3)]
    record = play_game(bots, seed=4, options=RuleOptions(hand_cap=3)).to_json()
    [fault] = record["faults"]
    logs = ladder.folder / "logs" / "worker-0"  # the test game's record names no match folder
    logs.mkdir(parents=True)
    for player in record["players"]:
        player["name"] = "alpha" if player["seat"] % 2 == 0 else "beta"
        player["log"] = f"logs/worker-0/seat{player['seat']}.log"
    crash = "Traceback (most recent call last):\nIndexError: no such card\n"
    (logs / "seat0.log").write_text(crash)
    tag = LogTag(GAME, fault["hand"], fault["decision"], asked=True)
    index_path(logs / "seat0.log").write_bytes(tag.entry(0))
    with Session(ladder.engine) as session:
        session.get_one(Bot, 1).author_id = author_named(session, "alice").id  # alpha
        match = add_match(session, 1, versions["alpha"], versions["beta"])
        number = add_game_with_record(session, match, GAME, 1.0, record)
    ladder.close()
    source = LadderSource(tmp_path / "ladder", db)
    try:
        client = _client(Served(source, number, {}))
        public = client.get(f"/api/timeline/{number}").json()
        fault_step = next(i for i, step in enumerate(public["steps"]) if step["k"] == "fault")
        assert "last" not in public["steps"][fault_step] and public["logs"] == []
        mine = client.get(f"/api/game-logs/{number}", headers={"Authorization": f"Bearer {token}"})
        assert mine.json()["faults"] == [
            {
                "at": fault_step,
                "last": ["IndexError: no such card"],  # a traceback with no frame of its own
                "exception": "IndexError: no such card",
            }
        ]
    finally:
        source.close()
