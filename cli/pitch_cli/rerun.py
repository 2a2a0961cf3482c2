"""``pitch rerun``: ask a bot the decisions one seat made in a recorded game."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.text import Text

from pitch_referee.errors import ManifestError, PitchError
from pitch_referee.manifest import load_manifest
from pitch_sdk.record import load_record
from pitch_sdk.table import TimeControl

from .bot_folder import HELP as BOT_HELP
from .bot_folder import bot_folder
from .render import context_text, count_of, output_console
from .sandboxing import SandboxOption, sandbox_limits

if TYPE_CHECKING:
    from pitch_referee.rerun import RerunReport

# The rerun and the sandbox bring gRPC: they are imported when a rerun runs, so that
# ``pitch rerun --help`` does not load them.


def rerun(
    record: Annotated[Path, typer.Argument(help="A game record (JSON).")],
    bot: Annotated[str, typer.Argument(help=f"The bot to ask: {BOT_HELP}.")],
    seat: Annotated[int, typer.Option("--seat", min=0, max=3, help="The seat the bot plays.")],
    time_limit: Annotated[
        int, typer.Option("--time-limit", min=1, help="Per-decision limit, milliseconds.")
    ] = TimeControl().limit_ms,
    log: Annotated[
        Path | None, typer.Option("--log", help="Keep the bot's output in this file.")
    ] = None,
    sandbox: SandboxOption = "auto",
) -> None:
    """Ask a bot one seat's decisions of a recorded game, and list where it answers otherwise.

    The game follows the record whatever the bot says: check determinism, or what changed.
    """
    from pitch_referee.rerun import rerun as rerun_bot

    folder = bot_folder(bot)
    game = load_record(record)
    try:
        manifest = load_manifest(folder)
    except ManifestError as error:
        raise PitchError(str(error)) from None
    control = TimeControl(limit_ms=time_limit)
    limits = sandbox_limits(sandbox, "rerun a bot you trust")
    report = asyncio.run(
        rerun_bot(game, seat, manifest, time_control=control, log_path=log, sandbox=limits)
    )
    _print(report)


def _print(report: RerunReport) -> None:
    console = output_console()
    console.print(f"seat {report.seat} played by {report.bot}")
    for finding in report.findings:
        console.print(f"  {finding}", style="red" if finding.fault else "yellow", soft_wrap=True)
        if finding.view is not None:
            console.print(Text("    ").append_text(context_text(finding.view)), soft_wrap=True)
    line = (
        f"{count_of(report.decisions, 'decision')}, {report.differ} differ, "
        f"{count_of(report.faults, 'fault')}"
    )
    if report.not_asked:
        line += f"; {report.not_asked} not asked (the bot was gone)"
    console.print(line, style="bold")
