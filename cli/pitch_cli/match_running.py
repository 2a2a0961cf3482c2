"""``pitch match`` playing: what it says before the first game, a progress bar (or plain
lines when the output is not a terminal), what the referee announces on the way, and the
match's errors as one line saying what to do (an interruption: exit 130, resumable)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from pitch_referee.errors import PitchError
from pitch_referee.match import (
    MatchInterrupted,
    MatchProgress,
    MatchSummary,
    MixedSummary,
    NoSandboxError,
    WorkerError,
    Workers,
    resume_match,
    resume_mixed,
    run_match,
    run_mixed,
)

from .match_output import console, errors
from .match_plan import MatchPlan
from .match_report import elo_text, sprt_count

Played = TypeVar("Played")


def print_plan(plan: MatchPlan, sprt: str | None, games_given: bool) -> None:
    """The bots, the folder and the seed (to replay with); with ``--sprt``, its cap."""
    settings, names = plan.settings, [entrant.name for entrant in plan.entrants]
    if plan.mixed:
        console.print(f"mixed partnerships of {', '.join(names)} -> {plan.root}", highlight=False)
    else:
        console.print(f"match {names[0]} vs {names[1]} -> {plan.root}")
    console.print(f"seed {settings.seed} (replay with --seed {settings.seed})")
    if sprt:
        why = "--games" if games_given else "by then the test has decided 99 times in 100"
        pairs = (settings.games + 1) // 2  # whole pairs: schedule.games rounds up
        cap = (
            sprt_count(pairs, 2 * pairs, True) if settings.duplicate else f"{settings.games} games"
        )
        console.print(f"SPRT {sprt}: at most {cap} ({why})", highlight=False)


def play_two(plan: MatchPlan, stop: bool, workers: Workers) -> MatchSummary:
    """The match of A against B, with progress (see ``playing``)."""
    a, b = plan.entrants
    return playing(
        plan.root,
        lambda progress: run_match(
            a,
            b,
            plan.settings,
            plan.root,
            progress,
            announce,
            stop_if_unplayable=stop,
            workers=workers,
        ),
        attached=plan.attached,
    )


def play_four(plan: MatchPlan, stop: bool, workers: Workers) -> MixedSummary:
    """The three team matches of four bots, with progress (see ``playing``)."""
    return playing(
        plan.root,
        lambda progress: run_mixed(
            plan.entrants,
            plan.settings,
            plan.root,
            progress,
            announce,
            on_match=announce_match,
            stop_if_unplayable=stop,
            workers=workers,
        ),
        attached=plan.attached,
    )


def resume_two(root: Path, stop: bool, workers: Workers) -> MatchSummary:
    """The rest of the interrupted match in ``root``."""
    return playing(
        root,
        lambda progress: resume_match(
            root, progress, announce, stop_if_unplayable=stop, workers=workers
        ),
    )


def resume_four(root: Path, stop: bool, workers: Workers) -> MixedSummary:
    """The rest of the interrupted mixed-partnership match in ``root``."""
    return playing(
        root,
        lambda progress: resume_mixed(
            root,
            progress,
            announce,
            on_match=announce_match,
            stop_if_unplayable=stop,
            workers=workers,
        ),
    )


def announce(text: str) -> None:
    """What the referee says on the way: a bot to start by hand, no sandbox here."""
    console.print(text, markup=False, highlight=False)


def announce_match(folder: str) -> None:
    """Which team match of a mixed-partnership match plays now."""
    console.print(f"team match {folder.replace('-vs-', ' vs ')}", markup=False, highlight=False)


def playing(
    root: Path, play: Callable[[Callable[[MatchProgress], None]], Played], attached: bool = False
) -> Played:
    """Play with a progress bar; errors of the match become one line saying what to do.

    Raises:
        PitchError: no sandbox here, or a worker failed (``--resume`` plays the rest).
        typer.Exit: interrupted (130), after saying how to play the rest.
    """
    try:
        return with_progress(play)
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
            f"games {progress.played} of {progress.planned}  {score_line(progress)}  "
            f"({elapsed // 60}m{elapsed % 60:02d}s)"
        )


def with_progress(play: Callable[[Callable[[MatchProgress], None]], Played]) -> Played:
    """``play(update)``, its updates drawn as a bar on a terminal, else as plain lines."""
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
                task, completed=progress.played, total=progress.planned, score=score_line(progress)
            )

        return play(update)


def score_line(progress: MatchProgress) -> str:
    """A's wins, draws and losses so far, with the Elo and the SPRT's LLR once known."""
    line = f"A +{progress.wins} ={progress.draws} -{progress.losses}"
    if progress.elo is not None:
        line += f"  Elo {elo_text(progress.elo)}"
        if progress.elo_interval:
            low, high = progress.elo_interval
            line += f" [{elo_text(low)}, {elo_text(high)}]"
    if progress.sprt:
        test = progress.sprt
        line += f"  LLR {test.llr:.2f} ({test.lower_bound:.2f}, {test.upper_bound:.2f})"
    return line
