"""mybot, step 2 of docs/first-bot.md: bids on what its trumps are worth and names the
suit it counted; plays as ``pitch new-bot`` wrote it, the rest still random."""

from pitch_sdk.actions import Bid, NameTrump, Play
from pitch_sdk.bot import Bot
from pitch_sdk.cards import POINTS, STRENGTH, TRUMPS, cards_in
from pitch_sdk.run import run

HIGH = 14
"""Queen of trumps and above (``STRENGTH``): cards that usually win their trick."""


def expected_points(hand: int, suit: int) -> float:
    """A rough guess of the points we take with ``suit`` as trumps: a few from partner
    and stock, one and a half for each high trump, half for each other trump."""
    trumps = cards_in(hand & TRUMPS[suit])
    return 3 + sum(1.5 if STRENGTH[suit][card] >= HIGH else 0.5 for card in trumps)


def best_suit(hand: int) -> int:
    return max(range(4), key=lambda suit: expected_points(hand, suit))


class MyBot(Bot):
    name = "mybot"
    version = "0.2"

    def bid(self, view, legal: list[Bid]) -> Bid:
        amounts = [action.amount for action in legal if action.amount]
        if Bid(0) not in legal:
            return Bid(min(amounts))  # the dealer after three passes must bid
        target = int(expected_points(view.hand, best_suit(view.hand))) - 1
        affordable = [amount for amount in amounts if amount <= target]
        return Bid(min(affordable)) if affordable else Bid(0)

    def name_trump(self, view, legal: list[NameTrump]) -> NameTrump:
        return NameTrump(best_suit(view.hand))

    def play(self, view, legal: list[Play]) -> Play:
        # As pitch new-bot wrote it: the strongest trump when the trick holds points.
        strength = STRENGTH[view.trump]
        points_on_table = sum(POINTS[view.trump][card] for _, card in view.trick)
        by_strength = sorted(legal, key=lambda action: strength[action.card])
        return by_strength[-1] if points_on_table else by_strength[0]


if __name__ == "__main__":
    raise SystemExit(run(MyBot()))
