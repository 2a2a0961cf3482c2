"""A bot that remembers every hand it held and, in game b of a deal pair, names an
opponent's hand from game a (the duplicate-memory attack); it plays randomly.

Usage: python memory_bot.py. At its first bidding decision of each hand (its cards are
then the dealt nine) it writes to stderr, which its log keeps:

- ``HELD <game> <hand> <seat> <cards>``: what it holds;
- in a b game, ``PREDICT <game> <hand> <seat> <cards> <source>``: it says that ``seat``
  holds ``cards``. ``memory``: this process held that hand of this deal in game a, in
  ``seat`` (the same deck and dealer deal ``seat`` the same nine cards in both games, and
  an opponent sits there in game b). ``guess``: it did not, and names the cards it held
  last in any other deal (or its own nine's complement's lowest nine), to keep the count
  of predictions honest.

Cards are 54-bit masks as integers. The tests compare each prediction with the records.
"""

from __future__ import annotations

import re
import sys

from pitch_sdk.actions import Action
from pitch_sdk.bots import RandomBot
from pitch_sdk.progress import BIDDING
from pitch_sdk.run import run
from pitch_sdk.table import GameStart
from pitch_sdk.views import PlayerView

GAME_ID = re.compile(r"pair-(\d+)-([ab])")
DEALT = 9


class MemoryBot(RandomBot):
    name = "memory"

    def __init__(self) -> None:
        super().__init__()
        self.game = ""
        self.held: dict[tuple[str, str, int], tuple[int, int]] = {}
        """(pair, letter, hand number) -> (seat, cards) for every hand this process held."""
        self.last: int | None = None
        self.seen: set[int] = set()

    def on_game_start(self, seat: int, info: GameStart) -> None:
        self.game = info.game_id
        self.seen = set()

    def decide(self, view: PlayerView) -> Action:
        if view.phase == BIDDING and view.hand_number not in self.seen:
            self.seen.add(view.hand_number)
            self.remember(view)
        return super().decide(view)

    def remember(self, view: PlayerView) -> None:
        found = GAME_ID.fullmatch(self.game)
        if found is None:
            return
        pair, letter = found.groups()
        hand = view.hand_number
        say(f"HELD {self.game} {hand} {view.seat} {view.hand}")
        if letter == "b":
            if (pair, "a", hand) in self.held:
                seat, cards = self.held[pair, "a", hand]
                source = "memory"
            else:
                seat, cards, source = (view.seat + 1) % 4, self.guess(view.hand), "guess"
            say(f"PREDICT {self.game} {hand} {seat} {cards} {source}")
        self.held[pair, letter, hand] = (view.seat, view.hand)
        self.last = view.hand

    def guess(self, mine: int) -> int:
        if self.last is not None and self.last & mine == 0:
            return self.last
        cards = [card for card in range(54) if not mine >> card & 1][:DEALT]
        return sum(1 << card for card in cards)


def say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


if __name__ == "__main__":
    raise SystemExit(run(MemoryBot()))
