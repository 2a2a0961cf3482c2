"""The server as the open internet meets it: security headers on every answer, no 500
from any number, no server path in an error, relative redirects whatever the ``Host``,
and no token in the access log (issue 20's findings, each a test).

The ladder is ``test_api``'s (SQLite, and PostgreSQL when ``PITCH_TEST_POSTGRES_URL`` is
set), through FastAPI's test client; the access log is a real ``pitch serve``'s.
"""

from __future__ import annotations

import contextlib
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from pitch_sdk.record import write_record
from pitch_testkit.ladder import POSTGRES, fresh_database
from pitch_testkit.samples import build_ladder, game_record, match_folder
from pitch_web import create_app
from pitch_web.source import FolderSource, LadderSource

HUGE = 10**23
"""Past SQLite's and PostgreSQL's 64-bit integers: ``OverflowError`` on today's code."""
INT64_MAX = 2**63 - 1


@pytest.fixture(
    scope="module",
    params=[
        "sqlite",
        pytest.param(
            "postgresql",
            marks=pytest.mark.skipif(not POSTGRES, reason="PITCH_TEST_POSTGRES_URL is not set"),
        ),
    ],
)
def ladder_client(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """One ladder per database for the module: its tests only read."""
    tmp_path = tmp_path_factory.mktemp("ladder")
    with fresh_database(request.param, tmp_path) as url:
        build_ladder(url, tmp_path).close()
        source = LadderSource(tmp_path / "ladder", url)
        with TestClient(create_app(source), raise_server_exceptions=False) as client:
            yield client
        source.close()


@pytest.fixture
def folder_client(tmp_path: Path):
    served = tmp_path / "served"
    match_folder(served / "greedy-vs-random")
    write_record(game_record(seed=9), served / "loose.json")
    (served / "corrupt.json").write_text('{"format": "pitch-game-record", "version": 1')
    (served / "old.json").write_text('{"format": "pitch-game-record", "version": 99}')
    with TestClient(create_app(FolderSource(served)), raise_server_exceptions=False) as client:
        yield client


INTEGER_QUERIES = [
    f"/api/matches?offset={HUGE}",
    f"/api/matches?before={HUGE}",
    f"/api/games?offset={HUGE}",
    f"/api/games?before={HUGE}",
    f"/api/games?match={HUGE}",
    f"/api/games?bot=alpha&before={HUGE}",
    f"/matches?before={HUGE}",
    f"/matches/1?offset={HUGE}",
    f"/games?before={HUGE}",
    f"/games?offset={HUGE}",
    f"/?offset={HUGE}",
    f"/api/live/x/events?after={HUGE}",
    f"/api/matches?offset={INT64_MAX + 1}",
]
NUMBERED_KEYS = [
    f"/api/games/{HUGE}",
    f"/api/matches/{HUGE}",
    f"/api/timeline/{HUGE}",
    f"/view/{HUGE}",
    f"/matches/{HUGE}",
    f"/api/games/{INT64_MAX + 1}",
    "/api/games/\u00b2",  # a digit to str.isdigit, not to int()
    "/api/matches/\u00b2",
]


@pytest.mark.parametrize("url", INTEGER_QUERIES)
def test_an_integer_past_64_bits_is_a_422_not_a_500(ladder_client, url):
    response = ladder_client.get(url)
    assert response.status_code == 422, (url, response.status_code, response.text)


@pytest.mark.parametrize("url", NUMBERED_KEYS)
def test_a_game_or_match_number_past_64_bits_is_a_404_not_a_500(ladder_client, url):
    response = ladder_client.get(url)
    assert response.status_code == 404, (url, response.status_code, response.text)


@pytest.mark.parametrize("number", [2**31 - 1, 2**31, INT64_MAX])
def test_the_largest_numbers_are_answered(ladder_client, number):
    for url in (
        f"/api/games?before={number}",
        f"/api/matches?before={number}",
        f"/api/games?offset={number}",
        f"/games?before={number}",
    ):
        assert ladder_client.get(url).status_code == 200, url
    assert ladder_client.get(f"/api/games?before={number}").json()["games"]
    for url in (f"/api/games/{number}", f"/api/matches/{number}", f"/view/{number}"):
        assert ladder_client.get(url).status_code == 404, url
    assert ladder_client.get(f"/api/games?match={number}").status_code in (200, 422)


def test_every_integer_parameter_in_the_api_description_is_bounded_to_64_bits(tmp_path):
    from pitch_web.routes.service import enable_service

    app = create_app(FolderSource(tmp_path))
    enable_service(app)  # its routes are described whatever is served
    described = app.openapi()
    unbounded = []
    for path, operations in described["paths"].items():
        for method, operation in operations.items():
            for parameter in operation.get("parameters", []):
                schema = parameter["schema"]
                choices = schema.get("anyOf", [schema])
                for choice in choices:
                    if choice.get("type") != "integer":
                        continue
                    low, high = choice.get("minimum"), choice.get("maximum")
                    if low is None or high is None or low < -(2**63) or high > INT64_MAX:
                        unbounded.append(f"{method} {path} {parameter['name']}")
    assert unbounded == []


@pytest.mark.parametrize("url", ["/view/corrupt.json", "/view/old.json"])
def test_an_unreadable_records_422_page_names_no_server_path(folder_client, tmp_path, url):
    response = folder_client.get(url)
    assert response.status_code == 422
    assert "cannot be read" in response.text
    assert str(tmp_path) not in response.text and "/tmp" not in response.text
    assert "corrupt.json" in response.text or "old.json" in response.text


@pytest.mark.parametrize(
    "url", ["/api/games/corrupt.json", "/api/timeline/corrupt.json", "/api/timeline/old.json"]
)
def test_an_unreadable_records_json_error_names_no_server_path(folder_client, tmp_path, url):
    response = folder_client.get(url)
    assert response.status_code == 422
    assert str(tmp_path) not in response.json()["detail"]
    assert "/tmp" not in response.json()["detail"]


SECURITY_HEADERS = {
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
}


@pytest.mark.parametrize(
    "url",
    [
        "/",
        "/matches",
        "/view/loose.json",
        "/api/matches",
        "/api/games/loose.json",
        "/static/site.css",
        "/docs",
        "/api/openapi.json",
        "/nothing-here",
        "/api/games/nothing.json",
        "/view/corrupt.json",
        "/games?offset=-1",
        "/live",
    ],
)
def test_every_answer_carries_the_security_headers(folder_client, url):
    response = folder_client.get(url, follow_redirects=False)
    for name, value in SECURITY_HEADERS.items():
        assert response.headers.get(name) == value, (url, name, response.headers)
    policy = response.headers["content-security-policy"]
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";") if part.strip())
    assert directives["default-src"] == "'self'"
    assert directives["script-src"] == "'self'"
    assert directives["frame-ancestors"] == "'none'"
    assert directives["object-src"] == "'none'"
    assert directives["base-uri"] == "'none'"
    assert "unsafe" not in policy


def test_an_unexpected_failures_500_carries_the_security_headers(tmp_path, monkeypatch):
    source = FolderSource(tmp_path)

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("failed at /srv/arena/secret.toml")

    monkeypatch.setattr(source, "matches", broken)
    client = TestClient(create_app(source), raise_server_exceptions=False)
    for url in ("/", "/api/matches"):
        response = client.get(url)
        assert response.status_code == 500
        for name, value in SECURITY_HEADERS.items():
            assert response.headers.get(name) == value, (url, name)
        assert "frame-ancestors 'none'" in response.headers["content-security-policy"]


def test_the_docs_page_loads_nothing_from_another_site(folder_client):
    page = folder_client.get("/docs")
    assert page.status_code == 200
    assert "cdn" not in page.text.lower() and "https://" not in page.text
    assert "<script>" not in page.text  # its start is a file: the policy allows no inline
    for asset in ("swagger-ui-bundle.js", "swagger-ui.css"):
        assert f"/static/swagger/{asset}" in page.text
        assert folder_client.get(f"/static/swagger/{asset}").status_code == 200


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("/api/live/", "evil.example"),
        ("/api/live/", "evil.example:8000"),
        ("//evil.example/api/live/", "localhost"),
        ("/\\evil.example/api/live/", "localhost"),
    ],
)
def test_a_redirect_is_relative_whatever_the_host_header(folder_client, url, host):
    response = folder_client.get(url, headers={"host": host}, follow_redirects=False)
    if response.status_code in (301, 302, 303, 307, 308):
        location = response.headers["location"]
        assert location.startswith("/") and not location.startswith(("//", "/\\")), location
        assert "evil.example" not in location
    else:
        assert response.status_code in (404, 422), response.status_code


def test_the_slash_redirect_still_leads_to_the_page(folder_client):
    response = folder_client.get("/api/live/?x=1", follow_redirects=False)
    assert response.status_code == 307
    assert response.headers["location"] == "/api/live?x=1"


@pytest.mark.slow
def test_a_token_in_a_query_string_never_reaches_the_access_log(tmp_path):
    from pitch_testkit.processes import start, stop

    folder = match_folder(tmp_path / "m")
    token = "pa_0123456789abcdef_" + "s" * 43
    process, address = start("serve", folder, "--port", "0")
    try:
        for url in (f"{address}api/games?token={token}", f"{address}view/x?a=1&token={token}"):
            with contextlib.suppress(urllib.error.HTTPError):
                urllib.request.urlopen(url, timeout=20).close()
    finally:
        status, _out, err = stop(process)
    assert status == 0, err
    assert "GET /api/games?" in err  # the access log is on
    assert token not in err and "0123456789abcdef" not in err, err
