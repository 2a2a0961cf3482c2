"""``pitch gauntlet``: a bot against each reference bot in turn, placed on their fixed
Elo scale with the league it reached."""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from pitch_referee.errors import PitchError
from pitch_referee.match import Entrant, MatchSettings, run_match
from pitch_referee.placement import GAUNTLET_SPRT, Bout, Placement, Verdict, bout_of, place
from pitch_referee.workers import usable_cores
from pitch_sdk import reference
from pitch_sdk.reference.scale import Rung, rungs

from .match_plan import entrant_of, match_settings
from .match_running import playing

console = Console(soft_wrap=True, highlight=False)

DEFAULT_GAMES = 100
"""The most games against one opponent; the SPRT usually stops far sooner."""


def gauntlet(
    bot: Annotated[str, typer.Argument(help="The bot folder to place.")],
    games: Annotated[
        int, typer.Option(help="The most games against each opponent (whole deal pairs).")
    ] = DEFAULT_GAMES,
    up_to: Annotated[
        str | None,
        typer.Option(
            help="The strongest reference bot to play (default: all of them).",
            show_default=False,
        ),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(help="Seed of the deals (default: a fresh random one, printed)."),
    ] = None,
    concurrency: Annotated[
        int, typer.Option(help="Games at once (default: the number of cores).")
    ] = 0,
    sandbox: Annotated[
        str, typer.Option(help="Run the bots in the sandbox: on, off or auto.")
    ] = "auto",
    out: Annotated[
        Path | None,
        typer.Option(help="Folder of the matches (default: a new one under ./gauntlets/)."),
    ] = None,
) -> None:
    """Play a bot against each reference bot, weakest first, and place it on their scale.

    Each match plays duplicate deals and stops once an SPRT says the bot is clearly
    better or worse than that opponent; the gauntlet stops at the first opponent not
    beaten. The rating (with a 95% interval) is on the reference bots' fixed scale
    (random = 0); the league is the one the last opponent beaten opens."""
    entrant = entrant_of(bot, [])
    opponents = _opponents(up_to)
    settings = match_settings(
        games=games,
        seed=seed,
        concurrency=concurrency or len(usable_cores()),
        sprt=GAUNTLET_SPRT,
        sandbox=sandbox,
        compress_records=True,
    )
    root = out or Path("gauntlets") / f"{time.strftime('%Y%m%d-%H%M%S')}-{entrant.name}"
    if root.exists():
        raise PitchError(f"{root} already exists: choose a new --out")
    console.print(f"gauntlet of {entrant.name} -> {root}")
    console.print(f"seed {settings.seed} (replay with --seed {settings.seed})")
    bouts: list[Bout] = []
    for index, opponent in enumerate(opponents, start=1):
        bout = _bout(entrant, opponent, settings, root / f"{index}-{opponent.name}")
        bouts.append(bout)
        console.print(_bout_line(bout))
        if bout.verdict is not Verdict.BEATEN:
            break
    _print_placement(entrant.name, place(bouts))


def _opponents(up_to: str | None) -> list[Rung]:
    """The reference bots to play, weakest first, up to ``up_to`` included."""
    ladder = rungs()
    if up_to is None:
        return ladder
    names = [rung.name for rung in ladder]
    if up_to not in names:
        raise PitchError(f"--up-to {up_to}: not a reference bot (one of {', '.join(names)})")
    return ladder[: names.index(up_to) + 1]


def _bout(entrant: Entrant, opponent: Rung, settings: MatchSettings, root: Path) -> Bout:
    console.print(f"vs {opponent.name} (rated {opponent.rating:.0f})")
    other = Entrant.from_folder(reference.folder(opponent.name))
    summary = playing(root, lambda progress: run_match(entrant, other, settings, root, progress))
    return bout_of(opponent, summary)


def _bout_line(bout: Bout) -> str:
    return (
        f"  {bout.verdict} {bout.opponent.name}: {bout.score:g} of {bout.games} games "
        f"({100 * bout.score / max(bout.games, 1):.0f}%)"
    )


def _print_placement(name: str, placement: Placement) -> None:
    console.print(
        f"{name}: rating {_elo(placement.rating)} [{_elo(placement.low)}, "
        f"{_elo(placement.high)}] on the reference scale (random = 0), "
        f"league {placement.league}"
    )


def _elo(value: float) -> str:
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value:.0f}"


__all__ = ["gauntlet"]
