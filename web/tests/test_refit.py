"""The web's standings never wait for a refit but the first: after new games they show
the kept fit at once while a new one is computed in the background, then the new one."""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlmodel import Session

from pitch_ladder.rating_tables import current_fit, kept_fit
from pitch_testkit.ladder import add_match, ladder_with, store_game
from pitch_web.app import create_app
from pitch_web.source import LadderSource


def _ratings(client: TestClient) -> dict[str, float]:
    page = client.get("/api/standings").json()
    return {line["bot"]: line["rating"] for line in page["standings"]}


def test_standings_after_new_games_show_the_kept_fit_then_the_refitted_one(
    db_url, tmp_path, monkeypatch
):
    ladder, versions = ladder_with(db_url, tmp_path, ["alpha", "beta"])
    with Session(ladder.engine) as session:
        match = add_match(session, 1, versions["alpha"], versions["beta"])
        for n, score in enumerate((1.0, 0.0, 1.0)):
            store_game(session, match, f"pair-0000{n}-a", score)
    ladder.close()
    source = LadderSource(tmp_path / "ladder", db_url)
    try:
        client = TestClient(create_app(source))
        first = _ratings(client)  # no fit kept yet: this reader fits, and keeps it
        assert first["alpha"] > first["beta"]
        with Session(source.ladder.engine) as session:
            for n in range(3, 9):
                store_game(session, match, f"pair-0000{n}-a", 0.0)  # beta wins them all

        monkeypatch.setattr(source.refit, "start", lambda: None)  # no refit yet: stale
        stale = client.get("/api/standings").json()
        assert stale["fit_through_game"] == 3 and stale["newest_game"] == 9, "it names both"
        assert "Ratings and ranks are of the games up to game 3" in client.get("/").text
        monkeypatch.undo()
        assert _ratings(client) == first  # at once, from the kept fit
        source.refit.join(timeout=60)
        with Session(source.ladder.engine) as session:
            kept = kept_fit(session)
            assert kept is not None and kept[1], "the background refit kept the new fit"
            fresh = current_fit(session).ratings
        now = _ratings(client)
        assert "Up to date with the newest game (9)" in client.get("/").text
        assert now["beta"] > now["alpha"]
        assert now == {
            "alpha": fresh[versions["alpha"]].rating,
            "beta": fresh[versions["beta"]].rating,
        }
        page = client.get("/api/bots/beta").json()
        assert page["versions"][0]["rating"] == fresh[versions["beta"]].rating
    finally:
        source.close()
