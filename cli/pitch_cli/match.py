"""``pitch match``: play two bots against each other and say honestly which is better;
or four, each partnering every other one (the mixed-partnership format).

The command reads its options and hands each part to its module: ``match_plan`` checks the
arguments and makes the plan, ``match_running`` plays it with progress, ``match_report``
prints the result."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from pitch_referee.errors import PitchError
from pitch_referee.match import is_mixed
from pitch_referee.sandbox import SandboxLimits
from pitch_referee.workers import usable_cores
from pitch_sdk.options import RuleOptions

from .bot_folder import HELP as BOT_HELP
from .cluster import ClusterOption, match_workers
from .match_output import console
from .match_plan import (
    MatchPlan,
    bot_arguments,
    entrant_of,
    games_to_play,
    match_root,
    match_settings,
)
from .match_report import print_mixed, print_result
from .match_running import play_four, play_two, print_plan, resume_four, resume_two


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
            print_mixed(resume_four(resume, stop, workers))
            return
        if resume is not None:
            print_result(resume_two(resume, stop, workers))
            return
        arguments = bot_arguments((bot_a, bot_b, bot_c, bot_d), attach, sprt)
        entrants = [entrant_of(argument, attach) for argument in arguments]
        settings = match_settings(
            games=games_to_play(games, sprt, duplicate),
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
        plan = MatchPlan(entrants, settings, match_root(out, entrants))
        print_plan(plan, sprt, games_given=games is not None)
        if plan.mixed:
            print_mixed(play_four(plan, stop, workers))
        else:
            print_result(play_two(plan, stop, workers))
