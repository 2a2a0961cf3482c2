"""The reference bots: bot folders shipped inside ``pitch_sdk``, so that an installed
SDK has opponents to play (``pitch match mybot @greedy``).

Each is a folder with a ``bot.toml`` and a ``bot.py`` beside this module. An installed
folder may be read-only: the bots write nothing into it.
"""

from __future__ import annotations

from pathlib import Path

_HERE = Path(__file__).resolve().parent
_MANIFEST = "bot.toml"


class ReferenceBotError(ValueError):
    """No reference bot has that name."""


def names() -> list[str]:
    """The reference bots' names (their folders), sorted."""
    return sorted(path.name for path in _HERE.iterdir() if (path / _MANIFEST).is_file())


def folder(name: str) -> Path:
    """The folder of the reference bot ``name``.

    Raises:
        ReferenceBotError: there is none by that name (the message lists the names).
    """
    known = names()
    if name not in known:
        raise ReferenceBotError(
            f"no reference bot {name!r}: the reference bots are {', '.join(known)}"
        )
    return _HERE / name
