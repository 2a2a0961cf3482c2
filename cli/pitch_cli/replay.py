"""``pitch replay``: show a recorded game hand by hand, as the engine replays it, or write
its browser viewer into one HTML file (``--html``; the web package is imported only then)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from pitch_referee.errors import PitchError
from pitch_referee.logindex import record_lines
from pitch_sdk.gamerecord import GameRecord
from pitch_sdk.record import load_record, match_folder
from pitch_sdk.replay import replay_all

from .render import BotLines, count_of, output_console, render_game


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
    html: Annotated[
        Path | None,
        typer.Option(
            "--html",
            help="Write the game's viewer as one self-contained HTML file (no server, no "
            "network) instead of printing it; --hand and --seat choose where it opens.",
        ),
    ] = None,
    logs: Annotated[
        bool,
        typer.Option(
            "--logs",
            help="Print the bots' log lines, each under the decision it came during (or "
            "after), from the match folder's logs; with --seat, that seat's only.",
        ),
    ] = False,
) -> None:
    """Show a recorded game hand by hand: deal, bids, discards, stock, tricks, scores.

    All re-run by the engine; if it disagrees, shows what replays, the discrepancy, exits 1.
    With --html, writes the browser viewer of the game into one file instead.
    """
    game = load_record(record)  # a record that does not read is refused here, in one line
    hands = len(game.hands)
    if hand is not None and hand > hands:
        raise PitchError(f"{record}: no hand {hand}; the record has {count_of(hands, 'hand')}")
    if html is not None:
        discrepancy = _write_html(game, record, html, hand=hand, seat=seat)
        if discrepancy is not None:
            message = f"the record does not replay: {discrepancy}; the file shows it up to there"
            typer.echo(message, err=True)
            raise typer.Exit(1)
    else:
        lines = _bot_lines(game, record, seat) if logs else None
        steps, replayed = replay_all(game)
        output_console().print(render_game(game, steps, replayed, hand=hand, seat=seat, logs=lines))
        if not replayed.ok:
            raise typer.Exit(1)


def _bot_lines(game: GameRecord, record: Path, seat: int | None) -> BotLines:
    """The game's log lines of every seat (or ``seat``'s) by hand and decision; lines of a
    log without an index (no decision known) are the hand-0 deal's."""
    from pitch_referee.match.folder import record_game  # the match package pulls in grpc

    seats = range(4) if seat is None else {seat}
    found: dict[tuple[int, int | None], list[tuple[int, str]]] = {}
    for at, line in record_lines(game, record_game(record), match_folder(record), seats, None):
        where = (0, None) if line.tag is None else (line.tag.hand, line.tag.under)
        found.setdefault(where, []).append((at, line.text))
    return found


def _write_html(
    game: GameRecord, record: Path, html: Path, *, hand: int | None, seat: int | None
) -> str | None:
    """The viewer in one file, and the replay's discrepancy (``None``: it replays); the
    web package is imported only here."""
    from pitch_web.standalone import write_standalone

    try:
        discrepancy = write_standalone(game, html, game=record.name, hand=hand, seat=seat)
    except OSError as error:
        raise PitchError(f"{html}: cannot write the HTML file ({error.strerror})") from None
    print(f"wrote {html}: {count_of(len(game.hands), 'hand')}, open it in a browser")
    return discrepancy
