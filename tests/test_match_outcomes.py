"""A match reads its games' outcomes, never their records: the outcome log in the match
folder, how it is rebuilt from the records, and what a crash between the two leaves."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pitch_cli import app
from pitch_referee.match import (
    Entrant,
    GameOutcome,
    MatchFolder,
    MatchSettings,
    MatchStatus,
    resume_match,
    run_match,
    schedule,
    summarize,
)
from pitch_referee.match import outcomes as outcome_module
from pitch_sdk import reference
from pitch_sdk.bots import GreedyBot, RandomBot
from pitch_sdk.record import load_record, write_record
from pitch_sdk.selfplay import play_game

RANDOM = reference.folder("random")
GREEDY = reference.folder("greedy")

SETTINGS = MatchSettings(games=8, seed=21, rules={"hand_cap": 3}, compress_records=True)


def _folder(root: Path, settings: MatchSettings = SETTINGS, games: int | None = None) -> Path:
    """A match folder whose first ``games`` games were played in-process (greedy as A
    against random), as a match would have left them, without an outcome log."""
    folder = MatchFolder(root)
    greedy, random = Entrant.from_argument(str(GREEDY)), Entrant.from_argument(str(RANDOM))
    folder.write_header(greedy, random, settings)
    for spec in schedule(settings)[:games]:
        bots = [
            (GreedyBot if seat % 2 == spec.a_team else RandomBot)(f"{spec.game_id}:{seat}")
            for seat in range(4)
        ]
        record = play_game(bots, spec.seed, settings.options(), spec.first_dealer)
        write_record(record, folder.record_path(spec, settings.compress_records))
    return root


def _log(root: Path) -> list[dict]:
    return [json.loads(line) for line in (root / "outcomes.jsonl").read_text().splitlines()]


@pytest.fixture
def reads(monkeypatch) -> list[Path]:
    """The records the outcome log reads (it has no other way to read one)."""
    read: list[Path] = []

    def counted(path):
        read.append(Path(path))
        return load_record(path)

    monkeypatch.setattr(outcome_module, "load_record", counted)
    return read


def _from_records(root: Path) -> list[GameOutcome]:
    """The outcomes as the records say, computed here without the log."""
    settings = MatchFolder(root).read_header()[2]
    return [
        GameOutcome.from_record(spec, load_record(path))
        for spec in schedule(settings)
        if (path := MatchFolder(root).record_path(spec, True)).exists()
    ]


def test_the_summary_comes_from_the_log_and_equals_the_one_the_records_give(tmp_path, reads):
    root = _folder(tmp_path / "m")
    first = summarize(root, MatchStatus.FINISHED)  # no log yet: built from the records
    assert len(reads) == 8 and len(_log(root)) == 8
    reads.clear()
    again = summarize(root, MatchStatus.FINISHED)
    assert reads == []  # every game from its line, no record read
    assert again.to_json() == first.to_json()
    expected = _from_records(root)
    assert [game.game for game in again.games] == [o.spec.game_id for o in expected]
    assert [game.a_score for game in again.games] == [o.a_score for o in expected]
    assert again.points == (sum(o.a_points for o in expected), sum(o.b_points for o in expected))
    assert all(game.record.endswith(".json.gz") for game in again.games)
    assert json.loads((root / "summary.json").read_text()) == again.to_json()


def test_a_record_without_its_line_is_read_once_and_a_line_written_twice_counts_once(
    tmp_path, reads
):
    root = _folder(tmp_path / "m")
    whole = summarize(root, MatchStatus.FINISHED).to_json()
    lines = (root / "outcomes.jsonl").read_text().splitlines(keepends=True)
    # killed between the last record and its line; the one before it was logged twice
    (root / "outcomes.jsonl").write_text("".join(lines[:-1] + lines[-2:-1]))
    reads.clear()
    assert summarize(root, MatchStatus.FINISHED).to_json() == whole
    assert [path.name for path in reads] == ["pair-00003-b.json.gz"]
    assert [line["game"] for line in _log(root)] == [s.game_id for s in schedule(SETTINGS)]
    # killed in the middle of writing a line: the half line is dropped, its game reread
    (root / "outcomes.jsonl").write_text("".join(lines[:-1]) + lines[-1][:40])
    reads.clear()
    assert summarize(root, MatchStatus.FINISHED).to_json() == whole
    assert [path.name for path in reads] == ["pair-00003-b.json.gz"]
    assert len(_log(root)) == 8


def test_a_line_counts_only_while_its_record_is_there_unchanged(tmp_path, reads):
    root = _folder(tmp_path / "m")
    summarize(root, MatchStatus.FINISHED)
    games = root / "games"
    (games / "pair-00001-a.json.gz").unlink()  # to play it again, or refused by the ladder
    (games / "pair-00002-a.json.gz").rename(games / "pair-00002-a.rejected.json")
    replaced = games / "pair-00000-b.json.gz"
    record = load_record(replaced)
    assert record.result is not None  # a record written again since its line was:
    write_record(replace(record, result=replace(record.result, scores=(1, 2))), replaced)
    os.utime(replaced, ns=(1, 1))
    reads.clear()
    summary = summarize(root, MatchStatus.RUNNING)
    assert [path.name for path in reads] == ["pair-00000-b.json.gz"]
    played = [game.game for game in summary.games]
    assert "pair-00001-a" not in played and "pair-00002-a" not in played
    assert summary.games_played == 6 and len(_log(root)) == 6
    assert next(g for g in summary.games if g.game == "pair-00000-b").scores == (1, 2)


def test_an_old_folder_of_plain_records_without_a_log_summarizes_the_same(tmp_path, reads):
    plain = MatchSettings(games=4, seed=5, rules={"hand_cap": 2})  # compress_records off
    root = _folder(tmp_path / "m", plain)
    assert sorted(p.name for p in (root / "games").iterdir())[0] == "pair-00000-a.json"
    summary = summarize(root, MatchStatus.FINISHED)
    assert summary.games_played == 4 and len(reads) == 4
    assert summary.games[0].record == "games/pair-00000-a.json"


def test_pitch_matches_counts_the_records_of_a_running_match_by_name(tmp_path, reads):
    root = _folder(tmp_path / "matches" / "m", games=3)
    summary = summarize(root, MatchStatus.RUNNING)
    games = root / "games"
    (games / "pair-00001-a.json.gz").rename(games / "pair-00001-a.rejected.json")
    (games / "pair-00001-b.json.gz.tmp").write_bytes(b"half a record")
    reads.clear()
    assert MatchFolder(root).finished_count() == 2 and summary.games_played == 3
    listed = CliRunner().invoke(app, ["matches", "--root", str(tmp_path / "matches")])
    assert listed.exit_code == 0, listed.output
    assert "2 of 8" in listed.output and reads == []


def _run(root: Path) -> dict:
    greedy, random = Entrant.from_argument(str(GREEDY)), Entrant.from_argument(str(RANDOM))
    settings = MatchSettings(
        games=6,
        seed=17,
        rules={"hand_cap": 2},
        compress_records=True,
        sandbox="off",
        # generous limits: a fault of a bot slowed by a loaded machine would change a game
        time_limit_ms=10_000,
        time_reserve_ms=60_000,
        start_timeout_s=60,
    )
    run_match(greedy, random, settings, root, announce=lambda _: None)
    return json.loads((root / "summary.json").read_text())


@pytest.mark.slow
def test_a_match_killed_between_a_record_and_its_line_resumes_without_losing_or_doubling(
    tmp_path, reads
):
    whole = _run(tmp_path / "whole")
    cut = tmp_path / "cut"
    _run(cut)
    assert len(_log(cut)) == 6 and reads == []  # lines written as games finished
    lines = (cut / "outcomes.jsonl").read_text().splitlines(keepends=True)
    # as if killed: the last game's record written but not its line, and the game
    # before it not finished at all (no record; its line not written either)
    (cut / "outcomes.jsonl").write_text("".join(lines[:4]))
    (cut / "games" / "pair-00002-a.json.gz").unlink()
    resumed = resume_match(cut, announce=lambda _: None)
    assert [path.name for path in reads] == ["pair-00002-b.json.gz"]
    assert resumed.games_played == 6 and resumed.status is MatchStatus.FINISHED
    logged = sorted(line["game"] for line in _log(cut))  # the replayed game last
    assert logged == [f"pair-{pair:05d}-{side}" for pair in range(3) for side in "ab"]
    again = json.loads((cut / "summary.json").read_text())
    assert again["result"] == whole["result"] and again["stats"] == whole["stats"]
    assert [g["game"] for g in again["games"]] == [g["game"] for g in whole["games"]]


@pytest.mark.slow
def test_a_resumed_match_reads_no_record_of_a_game_it_finished_before(tmp_path, reads):
    root = tmp_path / "m"
    whole = _run(root)
    (root / "games" / "pair-00001-b.json.gz").unlink()
    # the other records made unreadable, keeping their size and time: only reading one
    # would notice
    kept = {}
    for path in (root / "games").iterdir():
        stat = path.stat()
        path.write_bytes(bytes(stat.st_size))
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        kept[path.name] = path.read_bytes()
    reads.clear()
    summary = resume_match(root, announce=lambda _: None)
    assert summary.games_played == 6 and reads == []
    assert all((root / "games" / name).read_bytes() == data for name, data in kept.items())
    again = json.loads((root / "summary.json").read_text())
    assert again["result"] == whole["result"] and again["games"] == whole["games"]
