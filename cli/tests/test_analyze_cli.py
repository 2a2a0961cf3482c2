"""`pitch analyze`: each hand's par and the double-dummy cost of each card of a recorded game,
as tables or JSON."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from pitch_cli import app, main
from pitch_sdk.analysis.costs import play_costs
from pitch_sdk.analysis.par import hand_pars
from pitch_sdk.bots import GreedyBot
from pitch_sdk.cards import TEAM_OF
from pitch_sdk.options import RuleOptions
from pitch_sdk.record import load_record, write_record
from pitch_sdk.selfplay import play_game


def invoke(*args: object) -> Any:
    return CliRunner().invoke(app, [str(arg) for arg in args])


@pytest.fixture(scope="module")
def record_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    game = play_game([GreedyBot() for _ in range(4)], seed=11, options=RuleOptions(hand_cap=2))
    path = tmp_path_factory.mktemp("analyze") / "game.json"
    write_record(game, path)
    return path


def test_json_lists_every_hands_par_and_every_card_played_with_the_librarys_values(
    record_file: Path,
) -> None:
    result = invoke("analyze", record_file, "--json")
    assert result.exit_code == 0, result.output
    game = load_record(record_file)
    shown = json.loads(result.output)
    assert shown["pars"] == [par.as_dict() for par in hand_pars(game)]
    assert [par["hand"] for par in shown["pars"]] == [1, 2]
    expected = [cost.as_dict() for cost in play_costs(game)]
    assert shown["plays"] == expected
    assert {row["hand"] for row in expected} == {1, 2}
    assert all(row["cost"] == 0 or row["played"] not in row["best"] for row in expected)


def test_the_par_is_what_the_best_first_lead_is_worth_and_the_points_played_are_the_records(
    record_file: Path,
) -> None:
    game = load_record(record_file)
    for par in hand_pars(game):
        lead = next(cost for cost in play_costs(game, par.hand))
        assert par.taken[TEAM_OF[lead.seat]] == lead.value + lead.cost
        assert list(par.points) == game["hands"][par.hand - 1]["points"]
        assert par.made == (par.taken[par.bidding_team] >= par.bid)


def test_the_table_shows_the_hands_par_and_one_row_per_card_of_the_hand_and_the_points_lost(
    record_file: Path,
) -> None:
    result = invoke("analyze", record_file, "--hand", 2)
    assert result.exit_code == 0, result.output
    (par,) = hand_pars(load_record(record_file), 2)
    par_row = f"{par.taken[0]} - {par.taken[1]} │ {'made' if par.made else 'set'}"
    assert par_row in result.output
    rows = [line for line in result.output.splitlines() if line.startswith("│ 2 ")]
    assert len(rows) == len(list(play_costs(load_record(record_file), 2)))
    assert "points lost by seat: 0: " in result.output


def test_a_hand_the_record_lacks_is_a_one_line_error(
    record_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "argv", ["pitch", "analyze", str(record_file), "--hand", "9"])
    with pytest.raises(SystemExit) as exit_:
        main()
    assert exit_.value.code == 1
    error = re.sub(r"\x1b\[[0-9;]*m", "", capsys.readouterr().err)  # colour, if forced
    assert error.startswith("error: ") and "no hand 9; the record has 2 hands" in error
    assert error.count("\n") == 1
