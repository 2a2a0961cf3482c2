"""`pitch analyze`: each hand's par and the double-dummy cost of each card of a recorded game,
as tables or JSON."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from pitch_cli import app, main
from pitch_sdk.actions import Bid
from pitch_sdk.analysis.choices import decision_values
from pitch_sdk.analysis.costs import play_costs
from pitch_sdk.analysis.par import hand_pars
from pitch_sdk.bots import GreedyBot
from pitch_sdk.cards import TEAM_OF
from pitch_sdk.options import RuleOptions
from pitch_sdk.record import load_record, write_record
from pitch_sdk.selfplay import play_game
from pitch_sdk.table import FaultPolicy
from pitch_sdk.views import PlayerView
from pitch_web.timeline import timeline


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
    result = invoke("analyze", record_file, "--json", "--samples", 0)
    assert result.exit_code == 0, result.output
    game = load_record(record_file)
    shown = json.loads(result.stdout)
    assert shown["decisions"] == [] and shown["samples"] == 0
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
        score = game.hands[par.hand - 1].score
        assert score is not None and par.points == score.points
        assert par.made == (par.taken[par.bidding_team] >= par.bid)


def test_the_table_shows_the_hands_par_and_one_row_per_card_of_the_hand_and_the_points_lost(
    record_file: Path,
) -> None:
    result = invoke("analyze", record_file, "--hand", 2, "--samples", 0)
    assert result.exit_code == 0, result.output
    assert "Expected points of each decision" not in result.output
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


ANALYSED_DECISION = {
    "step", "seat", "kind", "chosen", "best", "value", "cost", "error", "samples", "choices",
}  # fmt: skip
"""The analysed decision's fields that the viewer reads."""


class IllegalFirstBid(GreedyBot):
    """Answers its first bid with an illegal one: a fault, and a step of its own."""

    faulted = False

    def bid(self, view: PlayerView, legal: Sequence[Bid]) -> Bid:
        if not self.faulted:
            self.faulted = True
            return Bid(99)
        return super().bid(view, legal)


@pytest.fixture(scope="module")
def faulty_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two hands; seat 3's first bid was a fault, replaced by a random legal one."""
    bots = [GreedyBot(), GreedyBot(), GreedyBot(), IllegalFirstBid()]
    options = RuleOptions(hand_cap=2)
    game = play_game(bots, seed=2, options=options, fault_policy=FaultPolicy.SUBSTITUTE)
    assert game.faults[0].hand == 1 and len(game.hands) == 2
    path = tmp_path_factory.mktemp("analyze") / "faulty.json"
    write_record(game, path)
    return path


def test_json_values_each_decision_before_the_play_at_the_viewers_step(
    faulty_file: Path,
) -> None:
    result = invoke("analyze", faulty_file, "--json", "--hand", 1, "--samples", 2, "--seed", 5)
    assert result.exit_code == 0, result.output
    game = load_record(faulty_file)
    shown = json.loads(result.stdout)
    assert (shown["samples"], shown["seed"]) == (2, 5)
    decisions = shown["decisions"]
    assert decisions == [d.to_json() for d in decision_values(game, 1, samples=2, seed=5)]
    assert {"bid", "trump"} <= {decision["kind"] for decision in decisions}
    steps = timeline(game)["steps"]
    for decision in decisions:
        assert decision.keys() >= ANALYSED_DECISION
        assert decision["hand"] == 1 and decision["samples"] == 2
        step = steps[decision["step"]]
        assert (step["k"], step["s"], step["a"]) == (
            decision["kind"],
            decision["seat"],
            decision["chosen"],
        )
        actions = [choice["action"] for choice in decision["choices"]]
        assert decision["chosen"] in actions and decision["best"] in actions
        assert decision["cost"] >= 0 and decision["error"] >= 0
    assert result.stderr == "valuing the decisions of hand 1 of 2\n"


def test_the_decisions_table_shows_each_decision_with_its_cost_and_error(
    record_file: Path,
) -> None:
    result = invoke("analyze", record_file, "--hand", 2, "--samples", 2, "--seed", 3)
    assert result.exit_code == 0, result.output
    assert "Expected points of each decision before the play (2 sampled deals each, seed 3)" in (
        result.stdout
    )
    values = list(decision_values(load_record(record_file), 2, samples=2, seed=3))
    for value in values:
        row = rf"│ +2 │ +{value.index + 1} │ +{value.step} │ +{value.seat} │ {value.kind} +│"
        assert re.search(row + rf".* {value.cost:.1f} ± {value.error:.1f} │", result.stdout)
    assert "expected points lost by seat: 0: " in result.stdout


@pytest.mark.parametrize("samples", [1, -2])
def test_too_few_samples_are_a_one_line_error(
    record_file: Path,
    samples: int,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["pitch", "analyze", str(record_file), "--samples", str(samples)]
    monkeypatch.setattr(sys, "argv", argv)
    with pytest.raises(SystemExit) as exit_:
        main()
    assert exit_.value.code == 1
    error = re.sub(r"\x1b\[[0-9;]*m", "", capsys.readouterr().err)  # colour, if forced
    assert (
        error.startswith("error: ")
        and "--samples must be 0 (card plays only) or at least 2" in error
    )
    assert error.count("\n") == 1
