"""The ``pitch`` command: one Typer app per noun, joined here.

Library code raises ``PitchError`` (or the SDK's ``ValueError`` subclasses, or the
referee's ``BotError`` for a bot that cannot be used) with a message a user can act on;
``main`` prints it on one line and exits with status 1. Tracebacks appear only with
``--verbose``.
"""

from __future__ import annotations

from pitch_sdk.grpc_io import prefer_classic_io

prefer_classic_io()  # before anything imports grpc: the pitch command is the program

# isort: split
import sys

import typer
from rich.console import Console

from pitch_referee.errors import BotError, PitchError

from . import check, demo, ladder, match, matches, new_bot, replay, rerun, simulate

app = typer.Typer(
    name="pitch",
    help="Pitch Arena: bots playing 13-point partner pitch.",
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_enable=False,
    add_completion=False,
)
app.command()(simulate.simulate)
app.command()(match.match)
app.command(name="new-bot")(new_bot.new_bot)
app.command()(check.check)
app.command()(replay.replay)
app.command()(rerun.rerun)
app.command()(matches.matches)
app.add_typer(ladder.app, name="ladder")
app.command()(demo.demo)


@app.callback()
def _pitch() -> None:
    """Pitch Arena: bots playing 13-point partner pitch. Add --verbose for tracebacks."""


_stderr = Console(stderr=True)


def main() -> None:
    """The entry point: run the app, turning known errors into one-line messages."""
    verbose = "--verbose" in sys.argv
    if verbose:
        sys.argv.remove("--verbose")
    try:
        app()
    except (PitchError, BotError, ValueError, OSError) as error:
        if verbose:
            raise
        _stderr.print(f"[bold red]error:[/] {error}", highlight=False, soft_wrap=True)
        raise SystemExit(1) from None
    except KeyboardInterrupt:
        _stderr.print("interrupted")
        raise SystemExit(130) from None
