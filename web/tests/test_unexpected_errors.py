"""A failure nobody planned for is a one-line 500, a page for a browser and JSON for the
API, that names no more than the kind of error; the traceback goes to the server's log."""

from __future__ import annotations

import logging

from fastapi.testclient import TestClient

from pitch_web.app import create_app
from pitch_web.source import FolderSource


def test_an_unexpected_failure_is_a_500_without_a_traceback_and_is_logged(
    tmp_path, monkeypatch, caplog
):
    source = FolderSource(tmp_path)

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("an internal detail: /srv/arena/secret.toml")

    monkeypatch.setattr(source, "matches", broken)
    client = TestClient(create_app(source), raise_server_exceptions=False)
    with caplog.at_level(logging.ERROR):
        page = client.get("/")
        answer = client.get("/api/matches")
    assert page.status_code == 500 and "text/html" in page.headers["content-type"]
    assert "the server failed: RuntimeError" in page.text
    assert answer.status_code == 500
    assert answer.json() == {"detail": "the server failed: RuntimeError"}
    for shown in (page.text, answer.text):
        assert "Traceback" not in shown and "secret.toml" not in shown
    assert "secret.toml" in caplog.text and "Traceback" in caplog.text
