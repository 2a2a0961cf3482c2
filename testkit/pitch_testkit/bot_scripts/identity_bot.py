"""A bot that names its process: an id drawn when the process starts, written to stderr
(which its log keeps) with every game it is told of, as ``PROCESS <id> <game>``; it plays
randomly. Tests read from the logs which games one process played (inside the sandbox,
every bot's pid is the same)."""

from __future__ import annotations

import secrets
import sys

from pitch_sdk.bots import RandomBot
from pitch_sdk.run import run
from pitch_sdk.table import GameStart

PROCESS = secrets.token_hex(8)


class IdentityBot(RandomBot):
    name = "identity"

    def on_game_start(self, seat: int, info: GameStart) -> None:
        print(f"PROCESS {PROCESS} {info.game_id}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    raise SystemExit(run(IdentityBot()))
