"""The ``pitch`` command: one module per command, each imported only when it runs.

``COMMANDS`` names every command's module and one-line help, so that ``pitch --help``
lists them all without importing any of them (a test keeps each line equal to the first
line of the command's own help). A command's module is imported when the command is
resolved, its own ``--help`` included, and imports the heavy packages (the referee's
gRPC, the ladder's database) in the function that needs them. ``pitch --help`` then
costs Typer and its help formatter, and nothing of ours (``bench/startup.py``).

Library code raises ``PitchError`` (or the SDK's ``ValueError`` subclasses, or the
referee's ``BotError`` for a bot that cannot be used) with a message a user can act on;
``main`` prints it on one line and exits with status 1. Tracebacks appear only with
``--verbose``.
"""

from __future__ import annotations

from pitch_sdk.grpc_io import prefer_classic_io

prefer_classic_io()  # before anything imports grpc: the pitch command is the program

# isort: split
import importlib
import sys
from typing import TYPE_CHECKING, Any, NamedTuple

import typer
from typer.core import TyperCommand, TyperGroup

from pitch_referee.errors import BotError, PitchError  # cheap: no grpc, no database

if TYPE_CHECKING:
    from typer._click import Command, Context  # Typer's own copy of Click


class CommandEntry(NamedTuple):
    """Where a command lives, and the line ``pitch --help`` shows for it."""

    module: str
    """The module in this package."""
    attribute: str
    """The command function in it, or a ``typer.Typer`` app for a group of commands."""
    help: str
    """The first line of the command's help (its docstring, or the app's ``help``)."""


COMMANDS: dict[str, CommandEntry] = {
    "simulate": CommandEntry(
        "simulate",
        "simulate",
        "Play games in-process (no bots processes, no gRPC) and write one record per game.",
    ),
    "match": CommandEntry(
        "match",
        "match",
        "Play a match between two bots: duplicate deals, Elo with a 95% interval, SPRT.",
    ),
    "gauntlet": CommandEntry(
        "gauntlet",
        "gauntlet",
        "Play a bot against each reference bot, weakest first, and place it on their scale.",
    ),
    "new-bot": CommandEntry(
        "new_bot",
        "new_bot",
        "Write a working bot folder: manifest, bot file and a README for its author.",
    ),
    "check": CommandEntry(
        "check",
        "check",
        "Check a bot before you submit it: a legal answer, in time, to every kind of decision.",
    ),
    "replay": CommandEntry(
        "replay",
        "replay",
        "Show a recorded game hand by hand: deal, bids, discards, stock, tricks, scores.",
    ),
    "analyze": CommandEntry(
        "analyze",
        "analyze",
        "Show each hand's par and what each card, bid, trump, discard and stock choice cost.",
    ),
    "rerun": CommandEntry(
        "rerun",
        "rerun",
        "Ask a bot one seat's decisions of a recorded game, and list where it answers otherwise.",
    ),
    "matches": CommandEntry(
        "matches",
        "matches",
        "List local matches: bots, games played, A's wins-losses-draws, Elo and status.",
    ),
    "demo": CommandEntry(
        "demo",
        "demo",
        "Run a small ladder of the reference bots and print its standings (about half a minute).",
    ),
    "submit": CommandEntry(
        "submit",
        "submit",
        "Submit a bot folder to a Pitch Arena server: packed, uploaded, checked there.",
    ),
    "author": CommandEntry(
        "author",
        "app",
        "Your bots on a server: submissions' verdicts, logs, retiring.",
    ),
    "scheduler": CommandEntry(
        "scheduler",
        "app",
        "See, pause or resume a ladder's scheduler, here or through its server.",
    ),
    "ladder": CommandEntry(
        "ladder",
        "app",
        "A ladder: submitted bots play round-robin matches; rated standings.",
    ),
    "cluster": CommandEntry(
        "cluster",
        "app",
        "Run games on a Dask cluster: start a local one to try it.",
    ),
    "serve": CommandEntry(
        "serve",
        "serve",
        "Serve a ladder, a match folder or a folder of records in the browser, with its API.",
    ),
    "view": CommandEntry(
        "view",
        "view",
        "Open a game record or a match folder in the browser's game viewer, served locally.",
    ),
}
"""Every command, in the order ``pitch --help`` lists them."""


def load_command(name: str) -> Command:
    """The command ``name`` as Typer builds it, importing its module now."""
    entry = COMMANDS[name]
    target = getattr(importlib.import_module(f"{__name__}.{entry.module}"), entry.attribute)
    if isinstance(target, typer.Typer):
        command: Command = typer.main.get_group(target)
    else:
        single = typer.Typer(add_completion=False)
        single.command(name=name)(target)
        command = typer.main.get_command(single)
    command.name = name
    _plain_help(command)
    return command


def _plain_help(command: Command) -> None:
    """Click's plain help for ``command`` and its subcommands, as for ``pitch --help``.

    Typer's rich help formatter imports rich's Markdown and traceback support, 0.3 s
    before any help screen prints (``bench/startup.py``); every help screen is plain text.
    """
    command.rich_markup_mode = None  # type: ignore[attr-defined]
    for subcommand in getattr(command, "commands", {}).values():
        _plain_help(subcommand)


class LazyGroup(TyperGroup):
    """The app's commands: listed from ``COMMANDS``, and each imported only to run it.

    Until then a command is a stand-in holding its name and one-line help, which is all
    that the app's help and its "did you mean" suggestions read.
    """

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        for name, entry in COMMANDS.items():
            self.add_command(TyperCommand(name=name, help=entry.help))

    def resolve_command(
        self, ctx: Context, args: list[str]
    ) -> tuple[str | None, Command | None, list[str]]:
        name, command, rest = super().resolve_command(ctx, args)
        if name in COMMANDS:
            command = load_command(name)
        return name, command, rest


app = typer.Typer(
    name="pitch",
    cls=LazyGroup,
    help="Pitch Arena: bots playing 13-point partner pitch.",
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_enable=False,
    add_completion=False,
    rich_markup_mode=None,  # plain help: see _plain_help
)


@app.callback()
def _pitch() -> None:
    """Pitch Arena: bots playing 13-point partner pitch. Add --verbose for tracebacks."""


def _print_error(message: str, label: str = "error: ") -> None:
    """``label`` in bold red, then ``message`` as text: its control characters escaped
    (it may quote a bot's stderr: ``terminal.printable``), no markup read in it."""
    from rich.console import Console  # only on the way out: rich costs a tenth of a second
    from rich.text import Text

    from .terminal import printable

    line = Text(label, style="bold red") + Text(printable(message))
    Console(stderr=True).print(line, highlight=False, soft_wrap=True)


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
        _print_error(str(error))
        raise SystemExit(1) from None
    except KeyboardInterrupt:
        _print_error("interrupted", label="")
        raise SystemExit(130) from None
