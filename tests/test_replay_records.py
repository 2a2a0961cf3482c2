"""`pitch replay` (and `pitch rerun`) read records plain or gzip-compressed alike."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pitch_cli import app, main
from pitch_sdk.bots import GreedyBot, RandomBot
from pitch_sdk.options import RuleOptions
from pitch_sdk.record import GZIP_MAGIC, write_record
from pitch_sdk.selfplay import play_game


def _replayed(path: Path, *options: str) -> str:
    result = CliRunner().invoke(app, ["replay", str(path), *options])
    assert result.exit_code == 0, result.output
    return result.output


def test_a_gzip_record_and_a_plain_one_replay_the_same(tmp_path):
    bots = [GreedyBot(0), RandomBot(1), GreedyBot(2), RandomBot(3)]
    record = play_game(bots, 7, RuleOptions(hand_cap=2))
    write_record(record, tmp_path / "game.json")
    write_record(record, tmp_path / "game.json.gz")
    write_record(record, tmp_path / "renamed.json", compress=True)  # gzip, whatever its name
    assert (tmp_path / "game.json.gz").read_bytes().startswith(GZIP_MAGIC)
    plain = _replayed(tmp_path / "game.json")
    assert "Hand 1" in plain
    assert _replayed(tmp_path / "game.json.gz") == plain
    assert _replayed(tmp_path / "renamed.json") == plain
    assert _replayed(tmp_path / "game.json.gz", "--seat", "1") == _replayed(
        tmp_path / "game.json", "--seat", "1"
    )


def test_a_damaged_gzip_record_is_one_error_line(tmp_path, monkeypatch, capsys):
    path = tmp_path / "game.json.gz"
    write_record(play_game([RandomBot(s) for s in range(4)], 3, RuleOptions(hand_cap=1)), path)
    path.write_bytes(path.read_bytes()[:100])
    monkeypatch.setattr(sys, "argv", ["pitch", "replay", str(path)])
    with pytest.raises(SystemExit) as exit_:
        main()
    assert exit_.value.code == 1
    error = re.sub(r"\x1b\[[0-9;]*m", "", capsys.readouterr().err)  # colour, if forced
    assert error.startswith(f"error: {path}: not a readable JSON game record")
    assert error.count("\n") == 1 and "Traceback" not in error
