"""``pitch new-bot``: write a bot folder that plays at once and is easy to grow."""

from __future__ import annotations

import re
from pathlib import Path

from pitch_referee.errors import PitchError

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")

_MANIFEST = """\
name = "{name}"
version = "0.1"
command = ["python", "bot.py"]
description = "My Pitch Arena bot."
author = ""
"""

_BOT = '''\
"""{name}: a Pitch Arena bot. Run it with `pitch match {name} @random`."""

from pitch_sdk.actions import Play
from pitch_sdk.bot import Bot
from pitch_sdk.cards import POINTS, STRENGTH
from pitch_sdk.run import run


class {cls}(Bot):
    """Plays its strongest trump when the trick holds points, its weakest otherwise.

    Every decision you do not override is made at random among the legal actions.
    Override bid, name_trump, discard, pick_up, look and play as you go.
    """

    name = "{name}"
    version = "0.1"

    def play(self, view, legal: list[Play]) -> Play:
        strength = STRENGTH[view.trump]
        points_on_table = sum(POINTS[view.trump][card] for _, card in view.trick)
        by_strength = sorted(legal, key=lambda action: strength[action.card])
        return by_strength[-1] if points_on_table else by_strength[0]


if __name__ == "__main__":
    raise SystemExit(run({cls}()))
'''

_README = """\
# {name}

A bot for Pitch Arena (13-point partner pitch).

- `bot.toml` says who the bot is and how to start it (`python` means the Python that
  runs the referee, with `pitch_sdk` installed).
- `bot.py` is the bot: a `pitch_sdk.bot.Bot` subclass. Each decision method gets a
  `PlayerView` (what your seat knows) and the legal actions, and returns one of them.

Try it:

```sh
uv run pitch simulate --games 5 --out /tmp/sims   # the engine in-process
uv run pitch match {folder} @random                # your bot over gRPC (see `pitch match -h`)
uv run pitch match {folder} @greedy                # a stronger reference bot
```

Your bot's stderr (print to `sys.stderr`, or use `logging`) lands in a per-seat log file
next to the match records. The rules: docs/rules.md in the Pitch Arena repository.
"""


def new_bot(folder: Path) -> Path:
    """Write a new bot folder; refuses to overwrite anything.

    Raises:
        PitchError: the name is unusable or the folder already exists.
    """
    name = folder.name
    if not _NAME.match(name):
        raise PitchError(f"bot name {name!r}: use letters, digits, '-', '_' or '.' (at most 64)")
    if folder.exists():
        raise PitchError(f"{folder} already exists: choose a new folder")
    cls = "".join(part.capitalize() for part in re.split(r"[^A-Za-z0-9]", name) if part) + "Bot"
    if cls[0].isdigit():
        cls = "My" + cls
    folder.mkdir(parents=True)
    (folder / "bot.toml").write_text(_MANIFEST.format(name=name))
    (folder / "bot.py").write_text(_BOT.format(name=name, cls=cls))
    (folder / "README.md").write_text(_README.format(name=name, folder=folder))
    return folder
