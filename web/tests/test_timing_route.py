"""``GET /api/bots/{name}/timing``: the timing statistic for an admin only, over the
records a ladder stores (a bot whose times follow its spades is flagged, its opponent
not), and the bot page's script that shows it."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from playwright.sync_api import expect
from sqlmodel import Session

from pitch_ladder.authors import add_author
from pitch_ladder.timing import dealt
from pitch_sdk.bots import RandomBot
from pitch_sdk.gamerecord import parse_deck
from pitch_sdk.options import RuleOptions
from pitch_sdk.selfplay import play_game
from pitch_testkit.ladder import add_game_with_record, add_match, ladder_with
from pitch_web import create_app
from pitch_web.routes.service import enable_service
from pitch_web.source import LadderSource

GAMES = 25
SPADES = frozenset(range(39, 52))


def _timed(record: dict, rng: random.Random) -> dict:
    """``record`` with a time for each decision asked: seats 0 and 2 (``alpha``) answer
    20 ms later in hands where they hold an odd number of spades; everyone else's times
    are noise."""
    for hand in record["hands"]:
        deck = parse_deck(hand["deck"])
        odd = {seat: len(dealt(deck, hand["dealer"], seat) & SPADES) % 2 for seat in range(4)}
        for decision in hand["decisions"]:
            if not decision["forced"]:
                seat = decision["seat"]
                slow = 20 * odd[seat] if seat % 2 == 0 else 0
                decision["ms"] = round(rng.uniform(0.5, 3) + slow, 3)
    return record


@dataclass
class Served:
    app: Any
    client: TestClient
    tokens: dict[str, str]

    def timing(self, bot: str, author: str | None):
        headers = {"Authorization": f"Bearer {self.tokens[author]}"} if author else {}
        return self.client.get(f"/api/bots/{bot}/timing", headers=headers)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    """``alpha`` (seats 0 and 2) against ``beta`` for ``GAMES`` games of 4 hands."""
    db = f"sqlite:///{tmp_path / 'ladder.db'}"
    ladder, versions = ladder_with(db, tmp_path, ["alpha", "beta"])
    tokens = {name: add_author(ladder, name, admin=name == "op").token for name in ("alice", "op")}
    rng = random.Random(7)
    with Session(ladder.engine) as session:
        match = add_match(session, 1, versions["alpha"], versions["beta"])
        for game in range(GAMES):
            record = play_game(
                [RandomBot(seat) for seat in range(4)], seed=game, options=RuleOptions(hand_cap=4)
            ).to_json()  # stored as the database holds it
            add_game_with_record(session, match, f"pair-{game:05}-a", 1.0, _timed(record, rng))
    ladder.close()
    source = LadderSource(tmp_path / "ladder", db)
    app = create_app(source)
    enable_service(app)
    yield Served(app, TestClient(app), tokens)
    source.close()


def test_an_admin_reads_each_versions_timing_statistic_and_the_signaller_is_flagged(served):
    alpha = served.timing("alpha", "op")
    assert alpha.status_code == 200
    body = alpha.json()
    assert body["bot"] == "alpha" and body["threshold"] == 1e-4
    [line] = body["versions"]
    assert line["games"] == GAMES and line["hands"] >= 150, line
    assert line["flagged"] and line["p"] < 1e-4 and line["feature"] == "odd S", line
    [beta] = served.timing("beta", "op").json()["versions"]
    assert beta["games"] == GAMES and not beta["flagged"], beta


def test_an_author_who_is_not_an_admin_gets_a_403_and_no_token_a_401(served):
    refused = served.timing("alpha", "alice")
    assert refused.status_code == 403 and "admin" in refused.json()["detail"]
    assert served.timing("alpha", None).status_code == 401
    assert served.timing("nobody", "op").status_code == 404


def test_the_bot_page_loads_the_admins_timing_script_and_no_inline_one(served):
    page = served.client.get("/bots/alpha")
    assert page.status_code == 200
    assert 'src="/static/timing_flag.js' in page.text
    assert 'id="timing-flag"' in page.text
    script = served.client.get("/static/timing_flag.js")
    assert script.status_code == 200 and "/api/bots/" in script.text


@pytest.mark.slow
def test_the_bot_page_flags_the_signaller_when_an_admins_token_is_in_the_tab(
    served, page, serve, screenshot
):
    with serve(served.app) as server:
        flag = page.get_by_test_id("timing-flag")
        for token in (None, served.tokens["alice"]):
            if token:
                page.evaluate(f"sessionStorage.setItem('pitch-token', '{token}')")
            page.goto(f"{server.url}/bots/alpha")
            expect(page.get_by_role("heading", name="alpha")).to_be_visible()
            page.wait_for_load_state("networkidle")
            expect(flag).to_be_hidden()
        page.evaluate(f"sessionStorage.setItem('pitch-token', '{served.tokens['op']}')")
        page.reload()
        expect(flag).to_be_visible()
        expect(flag).to_contain_text("Flagged: the think times of 1")
        expect(flag).to_contain_text('most with "odd S"')
        screenshot("timing-flag")
        page.goto(f"{server.url}/bots/beta")
        expect(page.get_by_test_id("timing-flag")).to_contain_text("Not flagged")
