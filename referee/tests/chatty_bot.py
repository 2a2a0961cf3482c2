"""A bot that writes each action it chooses to stderr while it is asked, and raises at
its Kth decision (for the log index tests). Usage: python chatty_bot.py K."""

from __future__ import annotations

import sys

from pitch_sdk.actions import Action
from pitch_sdk.bots import RandomBot
from pitch_sdk.run import run
from pitch_sdk.views import PlayerView

K = int(sys.argv[1])


class Chatty(RandomBot):
    name = "chatty"
    decisions = 0

    def decide(self, view: PlayerView) -> Action:
        self.decisions += 1
        if self.decisions == K:
            raise ValueError(f"chatty gives up at its decision {K}")
        action = super().decide(view)
        print(f"chose {action}", file=sys.stderr, flush=True)
        return action


raise SystemExit(run(Chatty()))
