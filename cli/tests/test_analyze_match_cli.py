"""`pitch analyze MATCH_FOLDER`: each bot's points lost to costly card plays and decisions
before the play, ranked."""

from __future__ import annotations

import json
import re
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from pitch_cli import app, main
from pitch_sdk.analysis.choices import decision_values
from pitch_sdk.analysis.costs import play_costs
from pitch_sdk.bots import GreedyBot, RandomBot
from pitch_sdk.options import RuleOptions
from pitch_sdk.record import load_record, write_record
from pitch_sdk.selfplay import play_game

GAMES = ("pair-00000-a", "pair-00000-b", "pair-00001-a")


def invoke(*args: object) -> Any:
    return CliRunner().invoke(app, [str(arg) for arg in args])


@pytest.fixture(scope="module")
def match(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three two-hand games of greedy (seats 0 and 2) against random, as a match folder."""
    folder = tmp_path_factory.mktemp("analyze-match")
    (folder / "games").mkdir()
    for seed, game in enumerate(GAMES):
        bots = [GreedyBot(), RandomBot(), GreedyBot(), RandomBot()]
        record = play_game(bots, seed=seed, options=RuleOptions(hand_cap=2))
        write_record(record, folder / "games" / f"{game}.json.gz")
    return folder


def lost_by_seats(folder: Path, game: str, seats: tuple[int, int], hand: int | None = None) -> int:
    costs = play_costs(load_record(folder / "games" / f"{game}.json.gz"), hand)
    return sum(cost.cost for cost in costs if cost.seat in seats)


def test_json_ranks_the_bots_by_points_lost_per_game_over_the_first_games(match: Path) -> None:
    result = invoke("analyze", match, "--games", 2, "--json", "--samples", 0)
    assert result.exit_code == 0, result.output
    ranked = json.loads(result.stdout)
    assert {bot["bot"] for bot in ranked} == {"greedy 1.0", "random 1.0"}
    assert [bot["per_game"] for bot in ranked] == sorted(
        (bot["per_game"] for bot in ranked), reverse=True
    )
    seats = {"greedy 1.0": (0, 2), "random 1.0": (1, 3)}
    for bot in ranked:
        expected = {game: lost_by_seats(match, game, seats[bot["bot"]]) for game in GAMES[:2]}
        assert bot["lost_by_game"] == expected
        assert bot["lost"] == sum(expected.values())
        assert bot["error"] == 0 and {play["kind"] for play in bot["costliest"]} <= {"play"}
        costs = [play["cost"] for play in bot["costliest"]]
        assert costs == sorted(costs, reverse=True) and len(costs) <= 5 and 0 not in costs
        assert all(play["seat"] in seats[bot["bot"]] for play in bot["costliest"])
    assert result.stderr.splitlines() == [
        f"analyzing game 1 of 2: {GAMES[0]}",
        f"analyzing game 2 of 2: {GAMES[1]}",
    ]


def test_the_tables_show_each_bots_losses_and_costliest_plays_of_the_hand_asked(
    match: Path,
) -> None:
    result = invoke("analyze", match, "--games", 1, "--hand", 2, "--samples", 0)
    assert result.exit_code == 0, result.output
    assert "Points lost to costly decisions, by bot" in result.stdout
    assert "not valued (--samples 0)" in " ".join(result.stdout.split())
    assert "costliest decisions" in result.stdout
    greedy = lost_by_seats(match, GAMES[0], (0, 2), 2)
    assert re.search(rf"│ greedy 1.0 │ +1 │ +{greedy:.1f} ± 0.0 │", result.stdout)


def test_a_record_that_does_not_replay_is_skipped_with_a_note(match: Path, tmp_path: Path) -> None:
    (tmp_path / "games").mkdir()
    record = load_record(match / "games" / f"{GAMES[0]}.json.gz")
    write_record(record, tmp_path / "games" / "pair-00000-a.json")
    first = record.hands[0]
    shuffled = replace(first, decisions=first.decisions[::-1])
    write_record(
        replace(record, hands=(shuffled, *record.hands[1:])),
        tmp_path / "games" / "pair-00000-b.json",
    )
    result = invoke("analyze", tmp_path, "--json", "--samples", 0)
    assert result.exit_code == 0, result.output
    assert {game for bot in json.loads(result.stdout) for game in bot["lost_by_game"]} == {
        "pair-00000-a"
    }
    assert "pair-00000-b.json: skipped, the record does not replay: " in result.stderr


def test_a_folder_without_records_is_a_one_line_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "argv", ["pitch", "analyze", str(tmp_path)])
    with pytest.raises(SystemExit) as exit_:
        main()
    assert exit_.value.code == 1
    error = re.sub(r"\x1b\[[0-9;]*m", "", capsys.readouterr().err)  # colour, if forced
    assert error.startswith("error: ") and "no game records in" in error
    assert error.count("\n") == 1


def test_cards_and_decisions_before_the_play_are_ranked_together_each_with_its_error(
    match: Path,
) -> None:
    result = invoke(
        "analyze", match, "--games", 1, "--hand", 1, "--samples", 2, "--seed", 4, "--json"
    )
    assert result.exit_code == 0, result.output
    record = load_record(match / "games" / f"{GAMES[0]}.json.gz")
    values = list(decision_values(record, 1, samples=2, seed=4))
    seats = {"greedy 1.0": (0, 2), "random 1.0": (1, 3)}
    kinds = set()
    for bot in json.loads(result.stdout):
        mine = [value for value in values if value.seat in seats[bot["bot"]]]
        lost = lost_by_seats(match, GAMES[0], seats[bot["bot"]], 1)
        assert bot["lost"] == pytest.approx(lost + sum(value.cost for value in mine))
        assert bot["error"] == pytest.approx(sum(value.error**2 for value in mine) ** 0.5)
        costs = [decision["cost"] for decision in bot["costliest"]]
        assert costs == sorted(costs, reverse=True) and 0 not in costs
        for decision in bot["costliest"]:
            kinds.add(decision["kind"])
            exact = decision["kind"] == "play"
            assert (decision["error"] is None, decision["samples"] is None) == (exact, exact)
    assert "play" in kinds and kinds - {"play"}


def test_the_tables_name_the_samples_and_show_each_cost_with_its_error(match: Path) -> None:
    result = invoke("analyze", match, "--games", 1, "--hand", 1, "--samples", 2)
    assert result.exit_code == 0, result.output
    shown = " ".join(result.stdout.split())
    assert "the stock: on 2 sampled deals each" in shown
    assert re.search(r"│ (bid|trump|discard|pickup|stock) +│ .* \d+\.\d ± \d+\.\d │", result.stdout)
