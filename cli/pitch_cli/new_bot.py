"""``pitch new-bot``: scaffold a bot folder that plays at once."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .scaffold import new_bot as scaffold


def new_bot(
    folder: Annotated[Path, typer.Argument(help="The new bot's folder; its name is the bot's.")],
) -> None:
    """Write a working bot folder: manifest, bot file and a README for its author."""
    made = scaffold(folder)
    typer.echo(f"wrote {made}/ (bot.toml, bot.py, README.md)")
    typer.echo(f"try it: pitch match {made} @random --games 10")
