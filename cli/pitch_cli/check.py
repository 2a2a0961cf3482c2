"""``pitch check``: put every kind of decision to a bot before it meets anyone.

The conformance check (``pitch_referee.conformance``), as ``ladder submit`` runs it:
each position with the bot's answer and time, every failure with the end of the bot's
output when it died, the latencies, and exit status 0 when the bot passed, 1 when not.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich import box
from rich.table import Table

from pitch_referee.errors import ManifestError, PitchError
from pitch_referee.manifest import load_manifest

from .bot_folder import HELP as BOT_HELP
from .bot_folder import bot_folder
from .render import count_of, output_console
from .sandboxing import SandboxOption, sandbox_limits
from .terminal import printable

if TYPE_CHECKING:
    from pitch_referee.conformance import ConformanceReport

# The conformance check and the sandbox bring gRPC: they are imported when a check runs,
# so that ``pitch check --help`` does not load them.


def check(
    bot: Annotated[str, typer.Argument(help=f"The bot: {BOT_HELP}.")],
    time_limit: Annotated[
        int, typer.Option("--time-limit", min=1, help="Per-decision limit, milliseconds.")
    ] = 1000,
    sandbox: SandboxOption = "auto",
    log: Annotated[
        Path | None, typer.Option("--log", help="Keep the bot's output in this file.")
    ] = None,
) -> None:
    """Check a bot before you submit it: a legal answer, in time, to every kind of decision.

    The bot runs as in a match and is asked the first decision of a game, bids, trumps,
    a discard, a pick-up, every choice of the look through the stock, and plays. Exit
    status 0 when it passes, 1 when it does not.
    """
    from pitch_referee.conformance import check_bot

    folder = bot_folder(bot)
    try:
        manifest = load_manifest(folder)
    except ManifestError as error:
        raise PitchError(str(error)) from None
    limits = sandbox_limits(sandbox, "check a bot you trust")
    report = check_bot(manifest, time_limit_ms=time_limit, sandbox=limits, log_path=log)
    _print(report, folder)
    if not report.ok:
        raise typer.Exit(1)


def _print(report: ConformanceReport, folder: Path) -> None:
    console = output_console()
    where = "in the sandbox" if report.sandboxed else "without a sandbox"
    console.print(
        f"checking {report.bot} {report.version} ({folder}) {where}, "
        f"{report.time_limit_ms} ms per decision",
        soft_wrap=True,
    )
    if report.asked:
        console.print(_positions_table(report))
    shown: tuple[str, ...] = ()
    for failure in report.failures:  # what the bot wrote, escaped: terminal.printable
        console.print(printable(f"FAILED {failure}"), style="red", soft_wrap=True, markup=False)
        if failure.log_tail and failure.log_tail != shown:  # a restarted bot says it again
            console.print("  the end of its output:", soft_wrap=True)
            for line in failure.log_tail:
                console.print(printable(f"  | {line}"), soft_wrap=True, markup=False)
            shown = failure.log_tail
    if report.stopped:
        console.print(printable(report.stopped), style="red", soft_wrap=True, markup=False)
    if report.not_asked:
        console.print(f"{count_of(len(report.not_asked), 'position')} not asked", style="red")
    for note in report.notes:
        console.print(f"note: {note}", style="yellow", soft_wrap=True)
    console.print(_kinds_line(report), soft_wrap=True)
    console.print(_latency_line(report), soft_wrap=True)
    total = len(report.asked) + len(report.not_asked)
    if report.ok:
        console.print(
            f"passed: every one of the {total} positions answered legally "
            f"within {report.time_limit_ms} ms",
            style="bold green",
        )
    else:
        console.print(
            f"failed: {count_of(len(report.failures), 'failure')} in {total} positions",
            style="bold red",
        )


def _positions_table(report: ConformanceReport) -> Table:
    table = Table(box=box.SIMPLE_HEAD)
    table.add_column("position")
    table.add_column("decision")
    table.add_column("seat", justify="right")
    table.add_column("answer")
    table.add_column("ms", justify="right")
    for asked in report.asked:
        answer = asked.answer or "-"
        if asked.failure is not None:
            answer = f"[red]{asked.failure.fault}[/]"
        ms = f"{asked.ms:.1f}" if asked.ms is not None else "-"
        table.add_row(asked.position, asked.decision, str(asked.seat), answer, ms)
    return table


def _kinds_line(report: ConformanceReport) -> str:
    from pitch_referee.conformance import DECISION_KINDS

    kinds = report.kinds
    parts = []
    for kind in DECISION_KINDS:
        result = kinds[kind]
        parts.append(f"{kind} {result.asked - result.failed}/{result.asked}")
    offered = [move for move in ("take", "leave", "stop") if move in report.stock_choices_offered]
    return (
        f"good answers by kind: {', '.join(parts)}"
        f" (stock choices offered: {', '.join(offered) or 'none'})"
    )


def _latency_line(report: ConformanceReport) -> str:
    first = report.first_ms
    line = "latency: first decision " + (
        f"{first:.1f} ms (includes the bot's warm-up)" if first is not None else "-"
    )
    if report.median_ms is not None:
        line += (
            f"; the other {count_of(len(report.latencies_ms), 'answer')}: "
            f"median {report.median_ms:.1f} ms, p95 {report.p95_ms:.1f} ms, "
            f"max {report.max_ms:.1f} ms"
        )
    return line
