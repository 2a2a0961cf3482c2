"""A bot that writes each action it chooses to stderr while it is asked, and raises at
its Kth decision (for the log index tests). Usage: python chatty_bot.py K [SECONDS], where
SECONDS is how long it thinks over each decision (0 by default)."""

from __future__ import annotations

import sys
import time

from pitch_sdk.actions import Action
from pitch_sdk.bots import RandomBot
from pitch_sdk.run import run
from pitch_sdk.views import PlayerView

K = int(sys.argv[1])
THINK_S = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0


class Chatty(RandomBot):
    name = "chatty"
    decisions = 0

    def decide(self, view: PlayerView) -> Action:
        self.decisions += 1
        if self.decisions == K:
            raise ValueError(f"chatty gives up at its decision {K}")
        time.sleep(THINK_S)
        action = super().decide(view)
        print(f"chose {action}", file=sys.stderr, flush=True)
        return action


raise SystemExit(run(Chatty()))
