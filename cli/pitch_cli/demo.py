"""``pitch demo``: the whole platform in one command, on a throwaway ladder.

It submits the reference bots random and greedy (each twice, under two names, for a
four-bot round robin), runs one round with progress, prints the standings and says how
to replay a game. The bots come with pitch_sdk, so the demo runs from an installed
package as well as from a clone.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Annotated

import typer

from pitch_referee.sandbox import unavailable_reason
from pitch_sdk import reference

from .ladder import TABLE_WIDTH, open_ladder, print_submission, run_with_progress, standings_table
from .render import output_console

DEMO_BOTS = (
    ("greedy", "greedy"),
    ("random", "random"),
    ("greedy", "greedy-2"),
    ("random", "random-2"),
)
"""(reference bot, ladder name): the twins show how much luck is left in the ratings.

Twins with the same results share a rank and a fitted rating; their sequential Elo can
still differ, by the order of their games alone."""
DEMO_RULES = {"hand_cap": 30}
"""Two random bots can take a hundred hands to reach 55; the cap keeps the demo short."""


def demo(
    *,
    ladder: Annotated[
        Path | None, typer.Option(help="The ladder folder (default: a new temporary one).")
    ] = None,
    games_per_match: Annotated[
        int, typer.Option(help="Games per match (duplicate deals: whole pairs).")
    ] = 8,
    workers: Annotated[int, typer.Option(help="Matches at once (default: the cores).")] = 0,
) -> None:
    """Run a small ladder of the reference bots and print its standings (about half a minute)."""
    folder = ladder or Path(tempfile.mkdtemp(prefix="pitch-demo-"))
    console = output_console(TABLE_WIDTH)
    console.print(
        f"demo ladder in {folder}: {len(DEMO_BOTS)} bots, one round robin of "
        f"{games_per_match}-game duplicate matches, rules {DEMO_RULES}",
        soft_wrap=True,
    )
    unsandboxed = unavailable_reason()  # the reference bots are ours: run them anyway
    if unsandboxed:
        console.print(f"warning: the bots run without a sandbox: {unsandboxed}")
    trusted = unsandboxed is not None
    with open_ladder(folder, None, create=True) as opened:
        for bot, name in DEMO_BOTS:
            submission = opened.submit(reference.folder(bot), name, trust_bots=trusted)
            print_submission(console, submission)
        run_with_progress(
            console,
            lambda progress: opened.run(
                1,
                games_per_match,
                DEMO_RULES,
                workers=workers or None,
                progress=progress,
                trust_bots=trusted,
            ),
        )
        console.print(standings_table(opened.standings()))
        game = opened.games()[0]
    console.print(
        f"replay a game: uv run pitch replay {game.record_path}\n"
        f"           or: uv run pitch ladder show {game.id} --ladder {folder}",
        soft_wrap=True,
    )
