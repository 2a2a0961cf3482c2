"""Bot folder arguments: a path, or ``@NAME`` for a reference bot shipped with pitch_sdk."""

from __future__ import annotations

from pathlib import Path

from pitch_sdk.reference import folder

REFERENCE = "@"
"""What starts a reference bot's name in place of a folder: ``pitch match mybot @greedy``."""

HELP = "a folder with a bot.toml, or @NAME for a reference bot (e.g. @greedy)"
"""How the commands that take a bot folder describe it."""


def bot_folder(argument: str) -> Path:
    """The folder ``argument`` names: ``@NAME`` is the reference bot NAME.

    Raises:
        ReferenceBotError: no reference bot has that name (the message lists them).
    """
    if argument.startswith(REFERENCE):
        return folder(argument.removeprefix(REFERENCE))
    return Path(argument)
