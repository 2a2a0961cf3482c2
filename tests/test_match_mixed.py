"""The mixed-partnership format end to end: four real bot processes, three team matches
on the same deals, every bot partnering every other one, and the team model's ratings."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from itertools import combinations
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pitch_cli import app
from pitch_referee.match import (
    Entrant,
    MatchError,
    MatchFolder,
    MatchSettings,
    mixed_summary,
    resume_mixed,
    run_mixed,
)
from pitch_sdk.record import load_record
from pitch_sdk.replay import check
from pitch_testkit.bot_copies import renamed_sample

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def four(tmp_path_factory: pytest.TempPathFactory) -> list[Entrant]:
    where = tmp_path_factory.mktemp("bots")
    kinds = (("greedy", "alpha"), ("random", "beta"), ("greedy", "gamma"), ("random", "delta"))
    return [renamed_sample(sample, name, where) for sample, name in kinds]


SETTINGS = MatchSettings(games=2, seed=5, rules={"hand_cap": 2}, sandbox="off")


@pytest.fixture(scope="module")
def played(four: list[Entrant], tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("mixed") / "m"
    run_mixed(four, SETTINGS, root, announce=lambda _: None)
    return root


def _records(root: Path) -> list[dict]:
    return [
        load_record(path)
        for path in sorted(root.glob("*/games/*.json*"))
        if ".tmp" not in path.name
    ]


def test_every_bot_partners_every_other_once_and_meets_each_as_an_opponent(played):
    partners: dict[frozenset[str], int] = {}
    opponents: dict[frozenset[str], int] = {}
    for record in _records(played):
        names = [player.name for player in record.players]
        for team in ((names[0], names[2]), (names[1], names[3])):
            partners[frozenset(team)] = partners.get(frozenset(team), 0) + 1
        for a in (names[0], names[2]):
            for b in (names[1], names[3]):
                opponents[frozenset((a, b))] = opponents.get(frozenset((a, b)), 0) + 1
    every_pair = {frozenset(pair) for pair in combinations(["alpha", "beta", "gamma", "delta"], 2)}
    assert set(partners) == every_pair and set(partners.values()) == {2}  # one pair of games
    assert set(opponents) == every_pair and set(opponents.values()) == {4}


def test_the_three_partnerships_play_the_same_deals_and_every_record_replays(played):
    records = _records(played)
    assert len(records) == 6  # three team matches of one duplicate pair
    assert len({record.seed for record in records}) == 1
    first_decks = {record.hands[0].deck for record in records}
    assert len(first_decks) == 1
    assert all(check(record).ok for record in records)


def test_the_summary_counts_each_bot_in_six_games_and_rates_all_four(played):
    summary = mixed_summary(played)
    assert summary.status == "finished" and summary.games_played == 6
    assert [match.team_name("a") for match in summary.matches] == [
        "alpha+beta",
        "alpha+gamma",
        "alpha+delta",
    ]
    assert sorted(result.name for result in summary.results) == ["alpha", "beta", "delta", "gamma"]
    for result in summary.results:
        assert result.games == 6 == result.wins + result.losses + result.draws
        assert result.rating.games == 6 and result.rating.lower < result.rating.mu
    ratings = [result.rating.mu for result in summary.results]
    assert ratings == sorted(ratings, reverse=True)
    saved = json.loads((played / "summary.json").read_text())
    assert saved["format"] == "pitch-mixed" and len(saved["results"]) == 4


def test_a_team_match_header_names_the_partners(played):
    folder = MatchFolder(played / "alpha+gamma-vs-beta+delta")
    a, b, _settings = folder.read_header()
    a_partner, b_partner = folder.read_partners()
    assert (a.name, a_partner and a_partner.name) == ("alpha", "gamma")
    assert (b.name, b_partner and b_partner.name) == ("beta", "delta")


def test_resuming_plays_only_the_lost_game_and_ends_as_before(played, tmp_path):
    copy = tmp_path / "m"
    shutil.copytree(played, copy)
    before = mixed_summary(copy)
    lost = next((copy / "alpha+delta-vs-beta+gamma" / "games").glob("pair-00000-b.*"))
    lost.unlink()
    assert mixed_summary(copy).games_played == 5
    after = resume_mixed(copy, announce=lambda _: None)
    assert after.games_played == 6
    assert [(r.name, r.wins, r.rating) for r in after.results] == [
        (r.name, r.wins, r.rating) for r in before.results
    ]


def test_a_mixed_match_refuses_a_bot_twice_or_an_sprt(four, tmp_path):
    with pytest.raises(MatchError, match="alpha is there twice"):
        run_mixed([four[0], four[1], four[2], four[0]], SETTINGS, tmp_path / "twice")
    with pytest.raises(MatchError, match="an SPRT compares two sides"):
        settings = MatchSettings(games=2, seed=1, sprt="elo0=0,elo1=10", sandbox="off")
        run_mixed(four, settings, tmp_path / "sprt")
    with pytest.raises(MatchError, match="four bots, not 3"):
        run_mixed(four[:3], SETTINGS, tmp_path / "three")


def test_pitch_match_with_four_bots_prints_each_partnership_and_the_ratings(four, tmp_path):
    folders = [str(entrant.manifest.folder) for entrant in four if entrant.manifest]
    out = tmp_path / "cli"
    arguments = ["match", *folders, "--games", "2", "--seed", "3", "--rule", "hand_cap=2"]
    result = CliRunner().invoke(app, [*arguments, "--sandbox", "off", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "mixed partnerships of alpha, beta, gamma, delta" in result.output
    assert "alpha+beta vs gamma+delta" in result.output
    for name in ("alpha", "beta", "gamma", "delta"):
        assert any(line.lstrip().startswith(name) for line in result.output.splitlines())
    resumed = CliRunner().invoke(app, ["match", "--resume", str(out)])
    assert resumed.exit_code == 0 and "6 games (finished)" in resumed.output


def test_pitch_match_refuses_three_bots_a_bot_twice_or_four_with_an_sprt(four, tmp_path):
    folders = [str(entrant.manifest.folder) for entrant in four if entrant.manifest]
    for args, says in [
        (folders[:3], "give two bots (folders, or names with --attach), four for the"),
        ([*folders, "--sprt", "elo0=0,elo1=10"], "--sprt compares two bots"),
        ([*folders[:3], folders[0], "--out", str(tmp_path / "x")], "alpha is there twice"),
    ]:
        done = subprocess.run(
            [sys.executable, "-m", "pitch_cli", "match", *args],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert done.returncode == 1, (args, done.stderr)
        assert done.stderr.startswith("error:") and done.stderr.count("\n") == 1, done.stderr
        assert says in done.stderr, (args, done.stderr)


def test_listings_show_a_mixed_folders_three_team_matches_by_their_teams(played):
    listed = CliRunner().invoke(app, ["matches", "--root", str(played.parent)])
    assert listed.exit_code == 0, listed.output
    for teams in ("alpha+beta", "alpha+gamma", "alpha+delta"):
        assert f"m/{teams}-vs-" in listed.output
    assert "alpha+gamma 1.0 vs beta+delta 1.0" in listed.output

    from pitch_web.source import FolderSource

    keys = [line.key for line in FolderSource(played.parent).matches()]
    assert keys == [
        "m/alpha+beta-vs-gamma+delta",
        "m/alpha+delta-vs-beta+gamma",
        "m/alpha+gamma-vs-beta+delta",
    ]
