"""``pitch match``: play two bots against each other and say honestly which is better;
or four, each partnering every other one (the mixed-partnership format)."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from pitch_referee.errors import PitchError
from pitch_referee.logtail import clip
from pitch_referee.match import (
    Entrant,
    MatchError,
    MatchFolder,
    MatchInterrupted,
    MatchProgress,
    MatchSettings,
    MatchStatus,
    MatchSummary,
    MixedSummary,
    NoSandboxError,
    SettingError,
    WorkerError,
    default_games,
    is_mixed,
    resume_match,
    resume_mixed,
    run_match,
    run_mixed,
)
from pitch_referee.sandbox import SandboxLimits
from pitch_referee.workers import usable_cores
from pitch_sdk.options import RuleOptions
from pitch_sdk.record import log_file

from .bot_folder import HELP as BOT_HELP
from .bot_folder import bot_folder
from .cluster import ClusterOption, match_workers
from .terminal import printable

console = Console(soft_wrap=True)  # long paths stay on one line, also when piped
errors = Console(stderr=True, soft_wrap=True, highlight=False)


def match(
    bot_a: Annotated[
        str | None,
        typer.Argument(help=f"Bot A: {BOT_HELP}, or the name of a bot given to --attach."),
    ] = None,
    bot_b: Annotated[str | None, typer.Argument(help="Bot B, the same way.")] = None,
    bot_c: Annotated[
        str | None,
        typer.Argument(
            help="Bots C and D: four bots play the mixed-partnership format, each "
            "partnering every other one, rated with a team model.",
            show_default=False,
        ),
    ] = None,
    bot_d: Annotated[str | None, typer.Argument(show_default=False)] = None,
    games: Annotated[
        int | None,
        typer.Option(
            help="Games to play (duplicate: whole pairs). Default: 100, or with --sprt "
            "enough for the test to decide.",
            show_default=False,
        ),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(
            help="Seed of the deals; the same seed replays the match. Default: a fresh "
            "random one, printed, that no bot can guess. A small seed of your own is for "
            "reproducing your tests: a bot that knows it can work out the deals."
        ),
    ] = None,
    duplicate: Annotated[
        bool, typer.Option(help="Play every deal twice with the teams swapped.")
    ] = True,
    concurrency: Annotated[
        int, typer.Option(help="Games at once (default: the number of cores).")
    ] = 0,
    affinity: Annotated[
        bool, typer.Option(help="Pin each concurrent game, with its bots, to its own core.")
    ] = True,
    time_limit: Annotated[int, typer.Option(help="Per-decision limit, milliseconds.")] = 1000,
    time_reserve: Annotated[
        int, typer.Option(help="Per-game reserve absorbing overruns, milliseconds.")
    ] = 10_000,
    fault_policy: Annotated[
        str, typer.Option(help="forfeit (the faulty bot's team loses) or substitute.")
    ] = "forfeit",
    rule: Annotated[
        list[str], typer.Option(help="A rule option NAME=VALUE, e.g. dealer_steal=true.")
    ] = [],  # noqa: B006  (Typer needs a literal default)
    sprt: Annotated[
        str | None,
        typer.Option(
            metavar="TEST",
            help="Stop as soon as an SPRT decides, e.g. elo0=0,elo1=20 (alpha=0.05 and "
            "beta=0.05 may be added).",
        ),
    ] = None,
    out: Annotated[
        Path | None, typer.Option(help="Match folder (default: a new one under ./matches/).")
    ] = None,
    resume: Annotated[
        Path | None, typer.Option(help="Finish the interrupted match in this folder.")
    ] = None,
    sandbox: Annotated[
        str,
        typer.Option(
            help="Run the bots in the sandbox: on, off (bots you trust) or auto "
            "(on where the machine can)."
        ),
    ] = "auto",
    memory: Annotated[
        int, typer.Option(help="Memory per sandboxed bot, MB (all its processes).")
    ] = SandboxLimits.memory_mb,
    max_processes: Annotated[
        int, typer.Option(help="Processes and threads per sandboxed bot.")
    ] = SandboxLimits.processes,
    attach: Annotated[
        list[str],
        typer.Option(
            metavar="NAME",
            help="The bot NAME (a bot argument) is one you start by hand, e.g. under a "
            "debugger: the match prints how many processes to start, with their tokens.",
        ),
    ] = [],  # noqa: B006
    attach_timeout: Annotated[
        float, typer.Option(help="Seconds to wait for the processes of --attach bots.")
    ] = 120.0,
    timing_grid: Annotated[
        int,
        typer.Option(
            metavar="MS",
            help="Release each decision request on a grid of MS from the game's start, as "
            "the ladder's service does (25), so that partners cannot signal by their "
            "think time finer than it; 0: at once.",
        ),
    ] = 0,
    compress: Annotated[
        bool,
        typer.Option(
            help="Store each game's record gzip-compressed (<game>.json.gz, about a tenth "
            "of the size); pitch replay reads both."
        ),
    ] = True,
    keep_going: Annotated[
        bool,
        typer.Option(
            "--keep-going",
            help="Play on when a bot cannot play at all (by default the match stops, "
            "exit 1, once every game of the first pair ended in its start or crash fault).",
        ),
    ] = False,
    cluster: ClusterOption = None,
) -> None:
    """Play a match between two bots: duplicate deals, Elo with a 95% interval, SPRT.

    Four bots play the mixed-partnership format: three team matches on the same deals,
    each bot partnering every other one, rated by a team model."""
    if cluster and attach:
        raise PitchError("--attach: bots started by hand cannot play on a cluster")
    with match_workers(cluster) as workers:
        if cluster:
            console.print(f"playing on the cluster at {cluster}", highlight=False)
        stop = not keep_going
        if resume is not None and is_mixed(resume):
            _print_mixed(
                _playing(
                    resume,
                    lambda progress: resume_mixed(
                        resume,
                        progress,
                        _announce,
                        on_match=_announce_match,
                        stop_if_unplayable=stop,
                        workers=workers,
                    ),
                )
            )
            return
        if resume is not None:
            summary = _playing(
                resume,
                lambda progress: resume_match(
                    resume, progress, _announce, stop_if_unplayable=stop, workers=workers
                ),
            )
            _print_result(summary)
            return
        arguments = [bot for bot in (bot_a, bot_b, bot_c, bot_d) if bot is not None]
        if len(arguments) not in (2, 4):
            raise PitchError(
                "give two bots (folders, or names with --attach), four for the "
                "mixed-partnership format, or --resume FOLDER"
            )
        for name in attach:
            if name not in arguments:
                raise PitchError(f"--attach {name}: not one of the bots ({', '.join(arguments)})")
        if len(arguments) == 4 and sprt:
            raise PitchError("--sprt compares two bots: play two, not four")
        entrants = [_entrant(argument, attach) for argument in arguments]
        a, b = entrants[0], entrants[1]
        settings = _settings(
            games=_games(games, sprt, duplicate),
            seed=seed,
            duplicate=duplicate,
            concurrency=concurrency or len(usable_cores()),
            affinity=affinity,
            time_limit_ms=time_limit,
            time_reserve_ms=time_reserve,
            fault_policy=fault_policy,
            rules=RuleOptions().with_text(rule),
            sprt=sprt,
            sandbox=sandbox,
            memory_mb=memory,
            max_processes=max_processes,
            attach_timeout_s=attach_timeout,
            timing_grid_ms=timing_grid,
            compress_records=compress,
        )
        names = [entrant.name for entrant in entrants]
        title = f"{a.name}-vs-{b.name}" if len(entrants) == 2 else "-".join(["mixed", *names])
        root = out or Path("matches") / f"{time.strftime('%Y%m%d-%H%M%S')}-{title}"
        if MatchFolder(root).exists() or is_mixed(root):
            raise PitchError(f"{root} already holds a match: resume it with --resume {root}")
        if len(entrants) == 4:
            console.print(f"mixed partnerships of {', '.join(names)} -> {root}", highlight=False)
            console.print(f"seed {settings.seed} (replay with --seed {settings.seed})")
            _print_mixed(
                _playing(
                    root,
                    lambda progress: run_mixed(
                        entrants,
                        settings,
                        root,
                        progress,
                        _announce,
                        on_match=_announce_match,
                        stop_if_unplayable=stop,
                        workers=workers,
                    ),
                    attached=any(entrant.by_hand for entrant in entrants),
                )
            )
            return
        console.print(f"match {a.name} vs {b.name} -> {root}")
        console.print(f"seed {settings.seed} (replay with --seed {settings.seed})")
        if sprt:
            why = "by then the test has decided 99 times in 100" if games is None else "--games"
            console.print(f"SPRT {sprt}: at most {settings.games} games ({why})", highlight=False)
        summary = _playing(
            root,
            lambda progress: run_match(
                a, b, settings, root, progress, _announce, stop_if_unplayable=stop, workers=workers
            ),
            attached=a.by_hand or b.by_hand,
        )
        _print_result(summary)


_FLAGS = {
    "games": "--games",
    "concurrency": "--concurrency",
    "time_limit_ms": "--time-limit",
    "time_reserve_ms": "--time-reserve",
    "fault_policy": "--fault-policy",
    "rules": "--rule",
    "sprt": "--sprt",
    "sandbox": "--sandbox",
    "memory_mb": "--memory",
    "max_processes": "--max-processes",
    "attach_timeout_s": "--attach-timeout",
    "timing_grid_ms": "--timing-grid",
}
"""The flag of each setting ``pitch match`` takes."""


def _settings(**values: Any) -> MatchSettings:
    """``MatchSettings`` with a seed; a bad value is one line naming its flag."""
    try:
        return MatchSettings(**values).seeded()
    except SettingError as error:
        flag = _FLAGS.get(error.setting, error.setting)
        raise PitchError(
            f"{flag} {error.problem}" if error.subject else f"{flag}: {error.problem}"
        ) from None


def _games(games: int | None, sprt: str | None, duplicate: bool) -> int:
    """``--games``, or the default: with ``--sprt``, a cap the test nearly always decides by."""
    if games is not None:
        return games
    try:
        return default_games(sprt, duplicate)
    except SettingError as error:
        raise PitchError(f"--sprt {error.problem}") from None


def _announce(text: str) -> None:
    """What the referee says on the way: a bot to start by hand, no sandbox here."""
    console.print(text, markup=False, highlight=False)


def _announce_match(folder: str) -> None:
    """Which team match of a mixed-partnership match plays now."""
    console.print(f"team match {folder.replace('-vs-', ' vs ')}", markup=False, highlight=False)


def _entrant(argument: str, attach: list[str]) -> Entrant:
    """A bot given to --attach, a reference bot (@NAME) or a bot folder."""
    try:
        if argument in attach:
            return Entrant(argument, None)
        return Entrant.from_folder(bot_folder(argument))
    except MatchError as error:
        raise PitchError(
            f"{error}: give a folder with a bot.toml, or --attach {argument} to start it by hand"
        ) from None


def _playing(root: Path, play: Any, attached: bool = False) -> Any:
    """Play with a progress bar; errors of the match become one line saying what to do."""
    try:
        return _with_progress(play)
    except NoSandboxError as error:
        raise PitchError(f"{error}; or run trusted bots with --sandbox off") from None
    except WorkerError as error:
        later = " (start the bots by hand within --attach-timeout)" if attached else ""
        raise PitchError(f"{error}: `pitch match --resume {root}` plays the rest{later}") from None
    except MatchInterrupted as interrupted:
        summary = interrupted.summary
        errors.print(
            f"interrupted: {summary.games_played} of {summary.games_planned} games played, "
            f"kept in {root}; to play the rest: pitch match --resume {root}",
            markup=False,
        )
        raise typer.Exit(130) from None


PLAIN_PROGRESS_EVERY_S = 5.0
"""How often a match whose output is not a terminal prints a progress line."""


class PlainProgress:
    """Progress as plain lines, at most one per ``every_s`` seconds, for output that is
    not a terminal (a log file, CI), where a progress bar does not animate."""

    def __init__(
        self,
        every_s: float | None = None,
        print_line: Callable[[str], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.every_s = PLAIN_PROGRESS_EVERY_S if every_s is None else every_s
        self.print_line = print_line or (lambda line: console.print(line, highlight=False))
        self.clock = clock
        self.started = self.last = clock()

    def __call__(self, progress: MatchProgress) -> None:
        now = self.clock()
        if now - self.last < self.every_s:
            return
        self.last = now
        elapsed = int(now - self.started)
        self.print_line(
            f"games {progress.played} of {progress.planned}  {_score_line(progress)}  "
            f"({elapsed // 60}m{elapsed % 60:02d}s)"
        )


def _with_progress(play: Any) -> Any:
    if not console.is_terminal:
        return play(PlainProgress())
    columns = (
        TextColumn("[bold]games"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[score]}"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("games", total=None, score="")

        def update(progress: MatchProgress) -> None:
            bar.update(
                task, completed=progress.played, total=progress.planned, score=_score_line(progress)
            )

        return play(update)


def _score_line(progress: MatchProgress) -> str:
    line = f"A +{progress.wins} ={progress.draws} -{progress.losses}"
    if progress.elo is not None:
        line += f"  Elo {_elo(progress.elo)}"
        if progress.elo_interval:
            low, high = progress.elo_interval
            line += f" [{_elo(low)}, {_elo(high)}]"
    if progress.sprt:
        test = progress.sprt
        line += f"  LLR {test.llr:.2f} ({test.lower_bound:.2f}, {test.upper_bound:.2f})"
    return line


def _elo(value: float | None) -> str:
    if value is None:
        return "-"
    if value in (float("inf"), float("-inf")):
        return "+inf" if value > 0 else "-inf"
    return f"{value:+.1f}"


def _print_result(summary: MatchSummary, cannot_play_stops: bool = True) -> None:
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
        shown = f"[{_elo(low)}, {_elo(high)}] (95%, "
    else:  # too few samples, or all alike: the spread cannot be estimated yet
        shown = "(no interval yet: too few results, or all alike; "
    los = "-" if stats.los is None else f"{stats.los * 100:.1f}%"
    console.print(
        f"  Elo difference {_elo(stats.elo)} {shown}{stats.model} "
        f"{list(stats.counts)}), likelihood of superiority {los}"
    )
    if stats.sprt:
        test = stats.sprt
        verdict = {"H1": "H1 accepted: A is better", "H0": "H0 accepted: A is not better"}
        undecided = "undecided"
        if summary.status is MatchStatus.SPRT_UNDECIDED:
            undecided = (
                f"undecided after all {summary.games_played} games (the cap): neither "
                "hypothesis accepted, the bots may be closer than the bounds tell apart"
            )
        console.print(
            f"  SPRT: LLR {test.llr:.2f} ({test.lower_bound:.2f}, {test.upper_bound:.2f}): "
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


def _print_mixed(summary: MixedSummary) -> None:
    """Each team match, then each bot's results and team-model rating, best first."""
    for match in summary.matches:
        _print_result(match, cannot_play_stops=False)
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
