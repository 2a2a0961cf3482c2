"""Records name the bots' logs relative to their match folder, never by a path of the disk
they were played on: a match run with a relative ``--out`` is served with its logs, and
nothing a server sends names a path of its own."""

from __future__ import annotations

import json
from pathlib import Path, PurePosixPath

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from pitch_cli import app
from pitch_sdk import reference
from pitch_sdk.record import load_record, log_file
from pitch_web import create_app
from pitch_web.source import FolderSource

ROOT = Path(__file__).resolve().parents[1]
RANDOM = reference.folder("random")

pytestmark = pytest.mark.slow

RAISES = """
from pitch_sdk.bots import RandomBot
from pitch_sdk.run import run


class Raises(RandomBot):
    def decide(self, view, budget=None):
        raise ZeroDivisionError("the first decision goes wrong")


raise SystemExit(run(Raises()))
"""


def _raises(folder: Path) -> Path:
    folder.mkdir()
    (folder / "bot.toml").write_text('name = "raises"\nversion = "0"\ncommand = "python bot.py"\n')
    (folder / "bot.py").write_text(RAISES)
    return folder


def test_a_match_with_a_relative_out_is_served_with_its_bots_logs_and_no_server_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    raises = _raises(tmp_path / "raises")
    result = CliRunner().invoke(
        app,
        ["match", str(RANDOM), str(raises), "--games", "2", "--concurrency", "1",
         "--rule", "hand_cap=1", "--out", "matches/m"],
    )  # fmt: skip
    assert "| ZeroDivisionError" in result.output, "the end of its log, found from the record"
    folder = tmp_path / "matches" / "m"
    record = load_record(next((folder / "games").glob("pair-00000-a.json*")))
    logs = [player.log for player in record.players]
    logs += [fault.log for fault in record.faults]
    assert record.faults and len(logs) > 4
    for log in logs:
        assert not PurePosixPath(log).is_absolute() and "\\" not in log
        assert log.startswith("logs/worker-0/") and log_file(folder, log).is_file()
    assert str(tmp_path) not in json.dumps(record.to_json())

    monkeypatch.chdir(ROOT)  # `pitch serve matches` from wherever
    client = TestClient(create_app(FolderSource(tmp_path / "matches")))
    key = f"m/games/{next((folder / 'games').glob('pair-00000-a.json*')).name}"
    shown = client.get(f"/api/timeline/{key}").json()
    assert {line["s"] for line in shown["logs"]} >= {0, 2}, "the random bot's lines"
    assert any("ZeroDivisionError" in line["t"] for line in shown["logs"])
    for path in (f"/api/games/{key}", f"/api/timeline/{key}", f"/view/{key}"):
        assert str(tmp_path) not in client.get(path).text
