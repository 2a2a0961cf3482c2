"""``pitch replay``: show a recorded game hand by hand, as the engine replays it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from pitch_referee.errors import PitchError
from pitch_sdk.record import load_record
from pitch_sdk.record import replay as replay_record

from .render import count_of, output_console, render_game


def replay(
    record: Annotated[
        Path,
        typer.Argument(
            help="A game record, JSON or gzip-compressed JSON, e.g. games/pair-00000-a.json.gz."
        ),
    ],
    hand: Annotated[
        int | None, typer.Option("--hand", min=1, help="Show only this hand (1 is the first).")
    ] = None,
    seat: Annotated[
        int | None,
        typer.Option(
            "--seat", min=0, max=3, help="Show only what this seat knew, as its bot saw it."
        ),
    ] = None,
) -> None:
    """Show a recorded game hand by hand: deal, bids, discards, stock, tricks, scores.

    All re-run by the engine; if it disagrees, shows what replays, the discrepancy, exits 1.
    """
    game = load_record(record)
    replayed = replay_record(game)
    if replayed.malformed:  # nothing to show: say what is wrong, on one line
        raise PitchError(f"{record}: not a well-formed game record: {replayed.discrepancy}")
    hands = len(game["hands"])
    if hand is not None and hand > hands:
        raise PitchError(f"{record}: no hand {hand}; the record has {count_of(hands, 'hand')}")
    output_console().print(render_game(game, replayed, hand=hand, seat=seat))
    if not replayed.ok:
        raise typer.Exit(1)
