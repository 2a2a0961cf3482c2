"""``pitch analyze``: each hand's par, what each card played in a recorded game cost its
team with every card seen, and what each decision before the play (bids, trumps,
discards, pick-ups, the stock) is expected to cost on sampled deals
(``pitch_sdk.analysis``); for a match folder, where each bot lost points in its first
few games."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from pitch_referee.errors import PitchError
from pitch_referee.match.folder import MatchFolder, record_game
from pitch_sdk.analysis.choices import DEFAULT_SAMPLES, DecisionValue, decision_values
from pitch_sdk.analysis.costs import PlayCost, play_costs
from pitch_sdk.analysis.losses import BotLosses, bot_losses
from pitch_sdk.analysis.par import HandPar, hand_pars
from pitch_sdk.record import load_record
from pitch_sdk.replay import Replayed, replayed

from .render import count_of, output_console

DEFAULT_GAMES = 2
"""Games of a match analysed by default: each takes about a minute of CPU with the
decisions before the play sampled (bench/RESULTS.md, section "decision values")."""
TOP_DECISIONS = 5
"""The costliest decisions shown for each bot of a match."""


def analyze(
    record: Annotated[
        Path,
        typer.Argument(
            help="A game record (JSON or gzip-compressed JSON), or a match folder to rank "
            "each bot's costliest decisions."
        ),
    ],
    hand: Annotated[
        int | None, typer.Option("--hand", min=1, help="Analyze only this hand (1 is the first).")
    ] = None,
    games: Annotated[
        int, typer.Option("--games", min=1, help="A match folder's games to analyze, the first.")
    ] = DEFAULT_GAMES,
    samples: Annotated[
        int,
        typer.Option(
            "--samples",
            help="Sampled deals per decision before the play (2 or more); 0 skips those "
            "decisions and costs the card plays only.",
        ),
    ] = DEFAULT_SAMPLES,
    seed: Annotated[
        int,
        typer.Option(
            "--seed", help="The seed of the sampled deals: the same seed, the same values."
        ),
    ] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")] = False,
) -> None:
    """Show each hand's par and what each card, bid, trump, discard and stock choice cost.

    The par is the hand solved from its first lead with all hands seen and every seat
    playing its best. A card's cost is its team's points lost against the best card, for
    the whole hand (0 when the card was best). A bid, trump, discard, pick-up or stock
    decision is valued on --samples deals sampled from what its seat knew, each played
    on by the greedy bot and solved double-dummy: its cost is the mover's team's expected
    hand score lost against the best choice, with its standard error. Given a match
    folder: each bot's points lost per game and its costliest decisions, over the
    folder's first --games games.
    """
    if samples == 1 or samples < 0:
        raise PitchError(
            f"--samples must be 0 (card plays only) or at least 2 (an error needs two), "
            f"not {samples}"
        )
    if record.is_dir():
        _analyze_match(record, hand, games, samples, seed, as_json)
        return
    game = replayed(load_record(record))  # once, for the pars, the cards and the decisions
    if not game.result.ok:
        raise PitchError(f"{record}: the record does not replay: {game.result.discrepancy}")
    hands = len(game.record.hands)
    if hand is not None and hand > hands:
        raise PitchError(f"{record}: no hand {hand}; the record has {count_of(hands, 'hand')}")
    pars = list(hand_pars(game, hand))
    costs = list(play_costs(game, hand))
    decisions = (
        list(_with_progress(decision_values(game, hand, samples=samples, seed=seed), hands))
        if samples
        else []
    )
    if as_json:
        shown = {
            "pars": [par.as_dict() for par in pars],
            "plays": [c.as_dict() for c in costs],
            "samples": samples,
            "seed": seed,
            "decisions": [decision.to_json() for decision in decisions],
        }
        typer.echo(json.dumps(shown, indent=1))
    else:
        console = output_console()
        console.print(_par_table(pars))
        console.print(_table(costs))
        if samples:
            console.print(_decisions_table(decisions, samples, seed))


def _with_progress(decisions: Iterator[DecisionValue], hands: int) -> Iterator[DecisionValue]:
    """The decisions, with a line on stderr as each hand's are valued."""
    shown = 0
    for decision in decisions:
        if decision.hand != shown:
            shown = decision.hand
            typer.echo(f"valuing the decisions of hand {shown} of {hands}", err=True)
        yield decision


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


def _decisions_table(decisions: list[DecisionValue], samples: int, seed: int) -> Table:
    """One row per decision before the play that had a choice; the costly ones marked."""
    table = Table(
        title="Expected points of each decision before the play "
        f"({samples} sampled deals each, seed {seed})"
    )
    columns = ("hand", "decision", "step", "seat", "kind", "chosen", "best", "choices")
    for column in (*columns, "team expects", "cost ± error"):
        table.add_column(column, justify="left" if column in columns[4:7] else "right")
    for value in decisions:
        table.add_row(
            str(value.hand), str(value.index + 1), str(value.step), str(value.seat), value.kind,
            value.chosen, value.best, str(len(value.choices)), f"{value.value:.1f}",
            _cost_text(value.cost, value.error),
        )  # fmt: skip
    lost = [
        (
            sum(value.cost for value in decisions if value.seat == seat),
            math.sqrt(sum(value.error**2 for value in decisions if value.seat == seat)),
        )
        for seat in range(4)
    ]
    table.caption = (
        "team expects: the mover's team's hand score with the best choice (a set bid counts "
        "minus the bid); expected points lost by seat: "
        + ", ".join(
            f"{seat}: {points:.1f} ± {error:.1f}" for seat, (points, error) in enumerate(lost)
        )
    )
    return table


def _cost_text(cost: float, error: float | None) -> str:
    """A cost as a table shows it: exact, or with its standard error; a cost above 0 in red."""
    shown = str(cost) if error is None else f"{cost:.1f} ± {error:.1f}"
    return f"[bold red]{shown}[/]" if cost else shown


def _analyze_match(
    folder: Path, hand: int | None, games: int, samples: int, seed: int, as_json: bool
) -> None:
    """Rank the bots of the match in ``folder`` by the points their decisions lost."""
    paths = sorted(
        MatchFolder(folder).games_dir / file.name for file in MatchFolder(folder).records()
    )
    if not paths:
        raise PitchError(f"{folder}: no game records in {folder / 'games'}")
    ranked = bot_losses(_replayable(paths[:games]), hand, TOP_DECISIONS, samples=samples, seed=seed)
    if as_json:
        typer.echo(json.dumps([losses.as_dict() for losses in ranked], indent=1))
    else:
        console = output_console()
        console.print(_losses_table(ranked, samples))
        console.print(_costliest_table(ranked))


def _replayable(paths: list[Path]) -> Iterator[tuple[str, Replayed]]:
    """Each record that replays, named by its game, with a progress line on stderr; one
    that does not is skipped with a note."""
    for number, path in enumerate(paths, start=1):
        game = record_game(path)
        typer.echo(f"analyzing game {number} of {len(paths)}: {game}", err=True)
        played = replayed(load_record(path))  # once, for every analysis of the game
        if played.result.ok:
            yield game, played
        else:
            typer.echo(
                f"{path}: skipped, the record does not replay: {played.result.discrepancy}",
                err=True,
            )


def _losses_table(ranked: list[BotLosses], samples: int) -> Table:
    """One row per bot: points lost per game and in each game."""
    table = Table(title="Points lost to costly decisions, by bot")
    table.caption = "card plays: double-dummy, exact; " + (
        f"bids, trumps, discards, pick-ups and the stock: on {samples} sampled deals each"
        if samples
        else "the decisions before the play: not valued (--samples 0)"
    )
    for column in ("bot", "games", "lost ± error", "per game", "by game"):
        table.add_column(column, justify="left" if column in ("bot", "by game") else "right")
    for losses in ranked:
        by_game = " ".join(f"{game}: {lost:.1f}" for game, lost in losses.lost_by_game.items())
        table.add_row(
            losses.bot, str(len(losses.lost_by_game)), f"{losses.lost:.1f} ± {losses.error:.1f}",
            f"{losses.per_game:.1f}", by_game,
        )  # fmt: skip
    return table


def _costliest_table(ranked: list[BotLosses]) -> Table:
    """Each bot's costliest decisions, the costliest first."""
    table = Table(title=f"Each bot's {TOP_DECISIONS} costliest decisions")
    columns = ("bot", "game", "hand", "decision", "seat", "kind", "chosen", "best", "cost")
    for column in columns:
        table.add_column(column, justify="right" if column == "cost" else "left")
    for losses in ranked:
        for costly in losses.costliest:
            row = costly.as_dict()
            table.add_row(
                losses.bot, costly.game, str(row["hand"]), str(row["index"] + 1),
                str(row["seat"]), row["kind"], row["chosen"], row["best"],
                _cost_text(costly.cost, costly.error),
            )  # fmt: skip
    return table
