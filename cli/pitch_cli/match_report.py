"""A played ``pitch match`` told in the terminal: each side's results, the Elo difference with
its interval, the SPRT's verdict, where the records are, and each bot's faults with the end
of its log (quoted text escaped by ``terminal.printable``)."""

from __future__ import annotations

import re
from pathlib import Path

from pitch_referee.errors import PitchError
from pitch_referee.logtail import clip
from pitch_referee.match import MatchStatus, MatchSummary, MixedSummary
from pitch_sdk.record import log_file

from .match_output import console
from .terminal import printable


def sprt_count(samples: int, games: int, duplicate: bool) -> str:
    """What an SPRT counts, named: deal pairs with duplicate deals (and the games played,
    which include those of a pair not yet finished), else games."""
    return f"{samples} deal pairs ({games} games)" if duplicate else f"{samples} games"


def elo_text(value: float | None) -> str:
    """An Elo difference signed to a tenth, infinities named, ``-`` when unknown."""
    if value is None:
        return "-"
    if value in (float("inf"), float("-inf")):
        return "+inf" if value > 0 else "-inf"
    return f"{value:+.1f}"


def print_result(summary: MatchSummary, cannot_play_stops: bool = True) -> None:
    """A match's result: games, results, CPU, Elo with its interval, the SPRT's verdict,
    where its records are and each side's faults.

    Raises:
        PitchError: a side cannot play (unless ``cannot_play_stops`` is false).
    """
    a, b, stats, root = summary.a, summary.b, summary.stats, summary.folder
    a_team, b_team = summary.team_name("a"), summary.team_name("b")
    versions = f" {a.version}" if summary.a_partner is None else ""
    b_version = f" {b.version}" if summary.b_partner is None else ""
    console.print(
        f"[bold]{a_team}[/]{versions} vs [bold]{b_team}[/]{b_version}: "
        f"{summary.games_played} of {summary.games_planned} games ({summary.status})"
    )
    console.print(
        f"  {a_team}: {summary.wins} won, {summary.losses} lost, {summary.draws} drawn; "
        f"points {summary.points[0]} to {summary.points[1]}; faults {summary.faults}"
    )
    if summary.cpu:
        cpu = summary.cpu
        console.print(
            f"  CPU (measured by the sandbox): {a_team} {cpu.a_s:.2f} s, "
            f"{b_team} {cpu.b_s:.2f} s, over {cpu.games} games"
        )
    if stats.elo_interval:
        low, high = stats.elo_interval
        shown = f"[{elo_text(low)}, {elo_text(high)}] (95%, "
    else:  # too few samples, or all alike: the spread cannot be estimated yet
        shown = "(no interval yet: too few results, or all alike; "
    los = "-" if stats.los is None else f"{stats.los * 100:.1f}%"
    console.print(
        f"  Elo difference {elo_text(stats.elo)} {shown}{stats.model} "
        f"{list(stats.counts)}), likelihood of superiority {los}"
    )
    if stats.sprt:
        test = stats.sprt
        verdict = {"H1": "H1 accepted: A is better", "H0": "H0 accepted: A is not better"}
        undecided = "undecided"
        if summary.status is MatchStatus.SPRT_UNDECIDED:
            undecided = (
                "undecided at the cap: neither hypothesis accepted, the bots may be closer "
                "than the bounds tell apart"
            )
        counted = sprt_count(sum(stats.counts), summary.games_played, summary.settings.duplicate)
        console.print(
            f"  SPRT over {counted}: LLR {test.llr:.2f} "
            f"({test.lower_bound:.2f}, {test.upper_bound:.2f}): "
            f"{verdict.get(test.decision or '', undecided)}"
        )
    suffix = ".json.gz" if summary.settings.compress_records else ".json"
    console.print(
        f"  records and logs: {root}  (replay one: pitch replay {root}/games/<game>{suffix})"
    )
    for side in "ab":
        _print_faults(summary, side)
    if summary.cannot_play and cannot_play_stops:
        raise _cannot_play(summary, root)


def _cannot_play(summary: MatchSummary, root: Path) -> PitchError:
    """The error of a match stopped because a side cannot play: what to do about it."""
    names = " and ".join(summary.team_name(side) for side in summary.cannot_play)
    return PitchError(
        f"{names} cannot play: every game so far ended in a start or crash fault "
        f"(see above); fix it and start again, or --keep-going to play the match anyway "
        f"(pitch match --resume {root} --keep-going)"
    )


LOG_LINES = 6
"""How much of a bot's log to show with its faults: the end of a traceback."""


def print_mixed(summary: MixedSummary) -> None:
    """Each team match, then each bot's results and team-model rating, best first.

    Raises:
        PitchError: a bot of a team match cannot play.
    """
    for match in summary.matches:
        print_result(match, cannot_play_stops=False)
    console.print(
        f"[bold]mixed partnerships[/]: {summary.games_played} games ({summary.status}); "
        "team-model rating with its 95% interval (mu +- 2 sigma):"
    )
    width = max(len(result.name) for result in summary.results)
    for result in summary.results:
        rating = result.rating
        console.print(
            f"  {result.name:<{width}}  {rating.mu:7.1f} [{rating.lower:7.1f}, {rating.upper:7.1f}]"
            f"  {result.wins} won, {result.losses} lost, {result.draws} drawn of {result.games}",
            highlight=False,
            markup=False,
        )
    console.print(f"  resume or replay from: {summary.folder}", highlight=False)
    for match in summary.matches:
        if match.cannot_play:
            raise _cannot_play(match, summary.folder)


def _print_faults(summary: MatchSummary, side: str) -> None:
    """A bot's faults by kind: how many, the first one's detail and the end of its log."""
    tallies = summary.faults_of(side)
    if not tallies:
        return
    counts = ", ".join(f"{tally.kind} x{tally.count}" for tally in tallies)
    team = summary.team_name(side)
    console.print(f"  faults of {team} ({side.upper()}): {counts}", highlight=False)
    for tally in tallies:
        console.print(  # details and logs quote the bot: escaped, terminal.printable
            printable(f"    {tally.kind}, first in {tally.first_game}: {tally.first_detail}"),
            markup=False,
            highlight=False,
        )
        if tally.log is None:
            continue
        log = log_file(summary.folder, tally.log)  # the record's, from its match folder
        lines = _log_tail(log, LOG_LINES)
        if not lines:
            console.print(f"      (its log is empty: {log})", markup=False, highlight=False)
            continue
        console.print(f"      the end of its log, {log}:", markup=False, highlight=False)
        for line in lines:
            console.print(printable(f"      | {clip(line)}"), markup=False, highlight=False)


def _log_tail(path: Path, count: int) -> list[str]:
    """The end of a bot's log: ``count`` lines ending at its last exception line (say,
    ``ZeroDivisionError: ...``), or its last ``count`` lines if it has none."""
    try:
        with path.open("rb") as log:
            log.seek(0, 2)
            log.seek(max(0, log.tell() - 65536))
            text = log.read().decode(errors="replace")
    except OSError:
        return []
    lines = [line for line in text.splitlines() if line.strip()]
    ends = [n for n, line in enumerate(lines) if _EXCEPTION.match(line)]
    end = ends[-1] + 1 if ends else len(lines)
    return lines[max(0, end - count) : end]


_EXCEPTION = re.compile(r"[A-Za-z_][\w.]*(Error|Exception|Interrupt|Exit)\b(:|$)")
"""The last line of a Python traceback: the exception and its message."""
