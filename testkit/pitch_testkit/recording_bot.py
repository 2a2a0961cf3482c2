"""A bot that writes down every call the SDK makes on it, as one JSON line per call.

Played over gRPC (its lines go to stderr, which the referee keeps in the seat's log) and
in-process (``Recording(note=list.append)``), it shows whether a bot is told the same
things both ways.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

from pitch_sdk.bots import RandomBot
from pitch_sdk.run import run

SCRIPT = Path(__file__)
"""This bot as a script, for a bot folder's command."""


def _to_stderr(call: list) -> None:
    print("CALL " + json.dumps(call), file=sys.stderr, flush=True)


class Recording(RandomBot):
    name = "recording"
    version = "1"

    def __init__(self, note: Callable[[list], None] = _to_stderr) -> None:
        super().__init__()
        self.note = note

    def on_game_start(self, seat, info):
        players = [[p.seat, p.name, p.version] for p in info.players]
        rules, time = (
            info.rules.to_dict(),
            [info.time_control.limit_ms, info.time_control.reserve_ms],
        )
        self.note(["start", seat, info.game_id, rules, players, info.first_dealer, time, info.seed])

    def decide(self, view):
        action = super().decide(view)
        budget = [self.budget.limit_ms, self.budget.reserve_ms]
        self.note(["decide", repr(view), budget, str(action)])
        return action

    def on_action(self, seat, action, forced):
        self.note(["action", seat, str(action), forced])

    def on_hand_end(self, result):
        self.note(["hand_end", repr(result)])

    def on_game_end(self, view):
        self.note(["end", repr(view)])


if __name__ == "__main__":
    raise SystemExit(run(Recording()))
