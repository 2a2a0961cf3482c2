"""Pages and answers go gzipped to a browser that takes it: a long game's viewer page
is ten times smaller on the wire."""

from __future__ import annotations

from fastapi.testclient import TestClient

from pitch_sdk.bots import GreedyBot
from pitch_sdk.options import RuleOptions
from pitch_sdk.record import write_record
from pitch_sdk.selfplay import play_game
from pitch_web.app import create_app
from pitch_web.source import FolderSource


def test_a_viewer_page_and_its_timeline_are_gzipped_when_the_browser_accepts_it(tmp_path):
    game = play_game([GreedyBot(s) for s in range(4)], 3, RuleOptions(hand_cap=20))
    write_record(game, tmp_path / "long.json")
    client = TestClient(create_app(FolderSource(tmp_path)))
    for path in ("/view/long.json", "/api/timeline/long.json"):
        zipped = client.get(path, headers={"Accept-Encoding": "gzip"})
        plain = client.get(path, headers={"Accept-Encoding": "identity"})
        assert zipped.status_code == plain.status_code == 200
        assert zipped.headers["content-encoding"] == "gzip"
        assert "content-encoding" not in plain.headers
        assert zipped.text == plain.text  # the client unzips: the same page
        assert int(zipped.headers["content-length"]) * 4 < len(plain.content)
