"""``pitch simulate``: play games in-process and write one record per game."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.progress import Progress

from pitch_referee.errors import PitchError
from pitch_sdk.bots import POLICIES
from pitch_sdk.options import RuleOptions
from pitch_sdk.record import record_result, write_record
from pitch_sdk.selfplay import play_game


def simulate(
    out: Annotated[Path, typer.Option("--out", help="Folder for the game records.")],
    games: Annotated[int, typer.Option("--games", min=1, help="How many games to play.")] = 10,
    seed: Annotated[
        int, typer.Option("--seed", help="Seed of the first game; game i uses seed+i.")
    ] = 1,
    policy: Annotated[
        list[str],
        typer.Option(
            "--policy",
            help="Bot for every seat, or four times for seats 0-3. Known: " + ", ".join(POLICIES),
        ),
    ] = ["random"],  # noqa: B006  (Typer needs a literal default)
    rule: Annotated[
        list[str], typer.Option("--rule", help="A rule option NAME=VALUE, e.g. dealer_steal=true.")
    ] = [],  # noqa: B006
) -> None:
    """Play games in-process (no bots processes, no gRPC) and write one record per game."""
    options = RuleOptions().with_text(rule)
    bots_per_seat = _policies(policy)
    out.mkdir(parents=True, exist_ok=True)
    wins = [0, 0, 0]
    hands = 0
    with Progress(transient=True) as progress:
        task = progress.add_task("simulating", total=games)
        for number in range(games):
            game_seed = seed + number
            bots = [
                POLICIES[name](f"{game_seed}:{seat}") for seat, name in enumerate(bots_per_seat)
            ]
            record = play_game(bots, game_seed, options)
            write_record(record, out / f"game-{game_seed}.json")
            result = record_result(record)
            assert result is not None  # play_game plays the game to its end
            wins[2 if result.winner is None else result.winner] += 1
            hands += result.hands
            progress.advance(task)
    typer.echo(
        f"{games} games, {hands} hands -> {out}: team 0 won {wins[0]}, team 1 won {wins[1]}, "
        f"{wins[2]} drawn"
    )


def _policies(names: list[str]) -> list[str]:
    if len(names) not in (1, 4):
        raise PitchError(
            f"--policy given {len(names)} times: give it once, or four times (seats 0-3)"
        )
    for name in names:
        if name not in POLICIES:
            raise PitchError(f"unknown policy {name!r}: choose one of {', '.join(POLICIES)}")
    return names * 4 if len(names) == 1 else names
