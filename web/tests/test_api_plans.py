"""The API's ladder reads find their rows by index, on SQLite and PostgreSQL: the query
plans of every statement that the pages' hot routes run (``test_query_plans``' check),
none of which may read a table that grows with the games whole.

The games with faults are read through their own partial index (``ix_game_faulty_id``):
without it, the filter walked the games newest first until it had a page.
"""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from pitch_testkit.query_plans import full_scans, statements_run
from pitch_testkit.samples import build_ladder
from pitch_web import create_app
from pitch_web.source import LadderSource

ROUTES = [
    "/api/standings",
    "/api/games",
    "/api/games?before=4",
    "/api/games?bot=beta&result=won",
    "/api/games?bot=beta&version=1&fault=true",
    "/api/games?match=1",
    "/api/matches",
    "/api/matches?bot=gamma",
    "/api/bots/alpha",
    "/api/bots/alpha/ratings",
    "/api/games/3",
    "/api/games?fault=true",
]
USES = {"/api/games?fault=true": "ix_game_faulty_id"}
"""Routes whose plans must name an index (a range of the key would pass the check)."""


def test_the_api_routes_never_read_the_games_or_matches_whole(db_url: str, tmp_path: Path):
    build_ladder(db_url, tmp_path).close()
    source = LadderSource(tmp_path / "ladder", db_url)
    engine = source.ladder.engine
    checked = 0
    with TestClient(create_app(source)) as client:
        client.get("/api/standings")  # the first read fits and keeps the fit
        for route in ROUTES:
            with statements_run(engine) as statements:
                assert client.get(route).status_code == 200, route
            assert statements, route
            plans = []
            for statement, parameters in statements:
                scans, plan = full_scans(engine, statement, parameters)
                assert not scans, f"{route} reads {scans} whole:\n{statement}\n{plan}"
                plans.append(plan)
                checked += 1
            assert USES.get(route, "") in "\n".join(plans), (route, plans)
    source.close()
    assert checked >= 30
