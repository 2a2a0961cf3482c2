"""The API's ladder reads find their rows by index, on SQLite and PostgreSQL: the query
plans of every statement that the pages' hot routes run (``test_query_plans``' check),
none of which may read a table that grows with the games whole.

Not checked here, because it reads what it skips: the faults filter without a bot
(``/api/games?fault=true``) walks the games newest first until it has a page.
"""

from __future__ import annotations

import sys
from pathlib import Path

from fastapi.testclient import TestClient

HERE = Path(__file__).parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import test_api  # noqa: E402
from test_query_plans import _full_scans, _statements  # noqa: E402

from pitch_web import create_app  # noqa: E402
from pitch_web.source import LadderSource  # noqa: E402

db_url = test_api.db_url  # the fixture: SQLite, and PostgreSQL when configured

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
]


def test_the_api_routes_never_read_the_games_or_matches_whole(db_url: str, tmp_path: Path):
    test_api.build_ladder(db_url, tmp_path).close()
    source = LadderSource(tmp_path / "ladder", db_url)
    engine = source.ladder.engine
    checked = 0
    with TestClient(create_app(source)) as client:
        client.get("/api/standings")  # the first read fits and keeps the fit
        for route in ROUTES:
            with _statements(engine) as statements:
                assert client.get(route).status_code == 200, route
            assert statements, route
            for statement, parameters in statements:
                scans, plan = _full_scans(engine, statement, parameters)
                assert not scans, f"{route} reads {scans} whole:\n{statement}\n{plan}"
                checked += 1
    source.close()
    assert checked >= 30
