"""Partners that signal by their think time: each sends a hidden bit a hand, and reads its
partner's from when its own requests come; it plays randomly.

Usage: python timing_bot.py SLOW_MS. In each hand the bit is the parity of the spades in
the hand it holds at its first decision (hidden from everyone else). It sends the bit by
answering every decision of the hand after ``SLOW_MS`` when it is 1, at once when it is 0.
It reads its partner's bit from the time between its own answer and its next request,
when its partner decided in between (the events say so; forced decisions are not asked,
so they do not count): the hand's shortest such gap (load only adds time) reads 1 when
it is over half of ``SLOW_MS`` longer than the shortest of any hand this process has
seen (a coarse timing grid adds whole ticks to every gap). It writes to stderr, which
its log keeps:

- ``SENT <game> <hand> <seat> <bit>``;
- ``READ <game> <hand> <seat> <bit> <shortest gap in ms>``: the partner's bit, as read.

The tests pair each ``READ`` of a seat with its partner's ``SENT``: bits right out of N.
"""

from __future__ import annotations

import sys
import time

from pitch_sdk.actions import Action
from pitch_sdk.bots import RandomBot
from pitch_sdk.run import run
from pitch_sdk.table import GameStart
from pitch_sdk.views import PlayerView

SLOW_S = float(sys.argv[1]) / 1000
SPADES = sum(1 << card for card in range(39, 52))
"""Cards 39 to 51: the fourth suit, whichever it is; any hidden bit does."""


class TimingBot(RandomBot):
    name = "timing"

    def __init__(self) -> None:
        super().__init__()
        self.game = ""
        self.seat = 0
        self.hand = 0
        self.bit = 0
        self.answered: float | None = None
        self.gaps: list[float] = []
        self.partner_moved = False
        self.baseline: float | None = None
        """The shortest of the hands' shortest gaps so far, across games."""

    def on_game_start(self, seat: int, info: GameStart) -> None:
        self.game, self.seat, self.hand = info.game_id, seat, 0
        self.answered, self.gaps, self.partner_moved = None, [], False

    def on_action(self, seat: int, action: Action, forced: bool) -> None:
        if seat == (self.seat + 2) % 4 and not forced:
            self.partner_moved = True

    def on_game_end(self, view: PlayerView) -> None:
        self.read()

    def decide(self, view: PlayerView) -> Action:
        asked = time.monotonic()
        if view.hand_number != self.hand:
            self.read()
            self.hand, self.gaps, self.answered = view.hand_number, [], None
            self.bit = (view.hand & SPADES).bit_count() % 2
            say(f"SENT {self.game} {self.hand} {self.seat} {self.bit}")
        elif self.answered is not None and self.partner_moved:
            self.gaps.append((asked - self.answered) * 1000)
        action = super().decide(view)
        if self.bit:
            time.sleep(SLOW_S)
        self.answered, self.partner_moved = time.monotonic(), False
        return action

    def read(self) -> None:
        """The partner's bit in the hand just over, from the gaps before its requests."""
        if not self.gaps:
            return
        shortest = min(self.gaps)
        self.baseline = shortest if self.baseline is None else min(self.baseline, shortest)
        bit = int(shortest - self.baseline > SLOW_S * 1000 / 2)
        say(f"READ {self.game} {self.hand} {self.seat} {bit} {shortest:.1f}")
        self.gaps = []


def say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


if __name__ == "__main__":
    raise SystemExit(run(TimingBot()))
