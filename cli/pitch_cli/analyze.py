"""``pitch analyze``: each hand's par and what each card played in a recorded game cost its
team, with every card seen (``pitch_sdk.analysis``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from pitch_referee.errors import PitchError
from pitch_sdk.analysis.costs import PlayCost, play_costs
from pitch_sdk.analysis.par import HandPar, hand_pars
from pitch_sdk.record import load_record
from pitch_sdk.record import replay as replay_record

from .render import count_of, output_console


def analyze(
    record: Annotated[Path, typer.Argument(help="A game record, JSON or gzip-compressed JSON.")],
    hand: Annotated[
        int | None, typer.Option("--hand", min=1, help="Analyze only this hand (1 is the first).")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the pars and costs as JSON instead of tables.")
    ] = False,
) -> None:
    """Show each hand's par and each card played with its double-dummy cost.

    The par is the hand solved from its first lead with all hands seen and every seat
    playing its best. A card's cost is its team's points lost against the best card, for
    the whole hand (0 when the card was best).
    """
    game = load_record(record)
    replayed = replay_record(game)
    if not replayed.ok:
        raise PitchError(f"{record}: the record does not replay: {replayed.discrepancy}")
    hands = len(game["hands"])
    if hand is not None and hand > hands:
        raise PitchError(f"{record}: no hand {hand}; the record has {count_of(hands, 'hand')}")
    pars = list(hand_pars(game, hand))
    costs = list(play_costs(game, hand))
    if as_json:
        shown = {"pars": [par.as_dict() for par in pars], "plays": [c.as_dict() for c in costs]}
        typer.echo(json.dumps(shown, indent=1))
    else:
        console = output_console()
        console.print(_par_table(pars))
        console.print(_table(costs))


def _par_table(pars: list[HandPar]) -> Table:
    """One row per hand: the contract, its par and the points as played."""
    table = Table(title="Par of each hand: double-dummy from the first lead (team 0 - team 1)")
    for column in ("hand", "bid", "bidding team", "par", "par result", "played"):
        table.add_column(column, justify="left" if column == "par result" else "right")
    for par in pars:
        table.add_row(
            str(par.hand), str(par.bid), str(par.bidding_team),
            f"{par.taken[0]} - {par.taken[1]}", "made" if par.made else "[red]set[/]",
            f"{par.points[0]} - {par.points[1]}",
        )  # fmt: skip
    return table


def _table(costs: list[PlayCost]) -> Table:
    """One row per card played; the costly ones marked."""
    table = Table(title="Double-dummy cost of each card played (points of the player's team)")
    for column in ("hand", "decision", "seat", "played", "best", "team takes", "cost"):
        table.add_column(column, justify="right" if column in ("team takes", "cost") else "left")
    for cost in costs:
        table.add_row(
            str(cost.hand), str(cost.index + 1), str(cost.seat), cost.played,
            " ".join(cost.best), str(cost.value),
            f"[bold red]{cost.cost}[/]" if cost.cost else "0",
        )  # fmt: skip
    lost = [sum(cost.cost for cost in costs if cost.seat == seat) for seat in range(4)]
    table.caption = "points lost by seat: " + ", ".join(
        f"{seat}: {points}" for seat, points in enumerate(lost)
    )
    return table
