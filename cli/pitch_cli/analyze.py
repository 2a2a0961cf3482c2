"""``pitch analyze``: each hand's par and what each card played in a recorded game cost its
team, with every card seen (``pitch_sdk.analysis``); for a match folder, where each bot
lost points in its first few games."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from pitch_referee.errors import PitchError
from pitch_referee.match.folder import MatchFolder, record_game
from pitch_sdk.analysis.costs import PlayCost, play_costs
from pitch_sdk.analysis.losses import BotLosses, bot_losses
from pitch_sdk.analysis.par import HandPar, hand_pars
from pitch_sdk.record import load_record
from pitch_sdk.record import replay as replay_record

from .render import count_of, output_console

DEFAULT_GAMES = 4
"""Games of a match analysed by default: a few seconds each with the solver."""
TOP_PLAYS = 5
"""The costliest plays shown for each bot of a match."""


def analyze(
    record: Annotated[
        Path,
        typer.Argument(
            help="A game record (JSON or gzip-compressed JSON), or a match folder to rank "
            "each bot's costliest card plays."
        ),
    ],
    hand: Annotated[
        int | None, typer.Option("--hand", min=1, help="Analyze only this hand (1 is the first).")
    ] = None,
    games: Annotated[
        int, typer.Option("--games", min=1, help="A match folder's games to analyze, the first.")
    ] = DEFAULT_GAMES,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")] = False,
) -> None:
    """Show each hand's par and each card played with its double-dummy cost.

    The par is the hand solved from its first lead with all hands seen and every seat
    playing its best. A card's cost is its team's points lost against the best card, for
    the whole hand (0 when the card was best). Given a match folder: each bot's points
    lost per game and its costliest plays, over the folder's first --games games.
    """
    if record.is_dir():
        _analyze_match(record, hand, games, as_json)
        return
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
    table = Table(title="Par: each hand solved from its first lead")
    for column in ("hand", "bid", "bidding team", "par (0 - 1)", "par result", "played (0 - 1)"):
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


def _analyze_match(folder: Path, hand: int | None, games: int, as_json: bool) -> None:
    """Rank the bots of the match in ``folder`` by the points their card plays lost."""
    paths = sorted(
        MatchFolder(folder).games_dir / file.name for file in MatchFolder(folder).records()
    )
    if not paths:
        raise PitchError(f"{folder}: no game records in {folder / 'games'}")
    ranked = bot_losses(_replayable(paths[:games]), hand, TOP_PLAYS)
    if as_json:
        typer.echo(json.dumps([losses.as_dict() for losses in ranked], indent=1))
    else:
        console = output_console()
        console.print(_losses_table(ranked))
        console.print(_costliest_table(ranked))


def _replayable(paths: list[Path]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each record that replays, named by its game, with a progress line on stderr; one
    that does not is skipped with a note."""
    for number, path in enumerate(paths, start=1):
        game = record_game(path)
        typer.echo(f"analyzing game {number} of {len(paths)}: {game}", err=True)
        record = load_record(path)
        replayed = replay_record(record)
        if replayed.ok:
            yield game, record
        else:
            typer.echo(
                f"{path}: skipped, the record does not replay: {replayed.discrepancy}", err=True
            )


def _losses_table(ranked: list[BotLosses]) -> Table:
    """One row per bot: points lost per game and in each game."""
    table = Table(title="Points lost to costly card plays, by bot (double-dummy)")
    for column in ("bot", "games", "lost", "per game", "by game"):
        table.add_column(column, justify="left" if column in ("bot", "by game") else "right")
    for losses in ranked:
        by_game = " ".join(f"{game}: {lost}" for game, lost in losses.lost_by_game.items())
        table.add_row(
            losses.bot, str(len(losses.lost_by_game)), str(losses.lost),
            f"{losses.per_game:.1f}", by_game,
        )  # fmt: skip
    return table


def _costliest_table(ranked: list[BotLosses]) -> Table:
    """Each bot's costliest plays, the costliest first."""
    table = Table(title=f"Each bot's {TOP_PLAYS} costliest card plays")
    for column in ("bot", "game", "hand", "decision", "seat", "played", "best", "cost"):
        table.add_column(column, justify="right" if column == "cost" else "left")
    for losses in ranked:
        for costly in losses.costliest:
            play = costly.play
            table.add_row(
                losses.bot, costly.game, str(play.hand), str(play.index + 1), str(play.seat),
                play.played, " ".join(play.best), f"[bold red]{play.cost}[/]",
            )  # fmt: skip
    return table
