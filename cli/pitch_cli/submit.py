"""``pitch submit``: send a bot folder to a Pitch Arena server and print its verdict."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Annotated

import typer

from pitch_referee.errors import PitchError

from .bot_folder import HELP as BOT_HELP
from .bot_folder import bot_folder
from .remote import ServerOption, TokenFileOption, TokenOption, call, token_of
from .terminal import printable


def submit(
    bot: Annotated[str, typer.Argument(help=f"The bot: {BOT_HELP}.")],
    server: ServerOption,
    token: TokenOption = None,
    token_file: TokenFileOption = None,
) -> None:
    """Submit a bot folder to a Pitch Arena server: packed, uploaded, checked there.

    The server smoke-tests the bot in its sandbox and runs `pitch check` on it, then
    stores the version or refuses it; either way this prints what it said (a refusal with
    the bot's stderr tail) and exits 1 on a refusal.
    """
    from pitch_ladder.archive import pack

    secret = token_of(token, token_file)
    with tempfile.TemporaryDirectory(prefix="pitch-submit-") as scratch:
        archive = Path(scratch) / "bot.tar.gz"
        size = pack(bot_folder(bot), archive)
        print(f"uploading {bot} ({size:,} bytes) to {server} ...", flush=True)
        status, verdict = call(
            "POST", server, "/api/submissions", secret, archive.read_bytes(), "application/gzip"
        )
    if status == 422:
        raise PitchError(verdict["detail"])  # printed by main, escaped
    what = f"{verdict['bot']} {verdict['version']}"
    if verdict["new"]:
        print(printable(f"accepted: {what} is stored and will play"))
    else:
        print(printable(f"unchanged: {what} was already stored"))
