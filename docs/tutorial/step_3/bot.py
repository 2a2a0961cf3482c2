"""mybot, step 3 of docs/first-bot.md: bids on what its trumps are worth, keeps its point
cards and feeds its partner; discards, pick-ups and the stock are still random."""

from pitch_sdk.actions import Bid, NameTrump, Play
from pitch_sdk.bot import Bot
from pitch_sdk.cards import DEUCE, POINTS, STRENGTH, TRUMPS, cards_in, partner
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


def cost(card: int, trump: int) -> int:
    """What giving a card away costs: its points first (the deuce's point stays with the
    team that plays it), then its strength. A dead card costs nothing."""
    points = 0 if card == DEUCE[trump] else POINTS[trump][card]
    return 20 * points + max(STRENGTH[trump][card], 0)


class MyBot(Bot):
    name = "mybot"
    version = "0.3"

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
        trump = view.trump
        strength = STRENGTH[trump]
        cards = [action.card for action in legal]
        cheapest = min(cards, key=lambda card: cost(card, trump))
        if not view.trick:  # leading: a high trump draws the others' trumps out
            highest = max(cards, key=lambda card: strength[card])
            return Play(highest if strength[highest] >= HIGH else cheapest)
        winner_seat, winner_card = max(view.trick, key=lambda play: strength[play[1]])
        if winner_seat == partner(view.seat) and strength[winner_card] >= HIGH:
            # Partner is winning: give it our best point card that is not a winner itself.
            feeds = [card for card in cards if strength[card] < HIGH and POINTS[trump][card]]
            return Play(max(feeds, key=lambda card: cost(card, trump)) if feeds else cheapest)
        winners = [card for card in cards if strength[card] > strength[winner_card]]
        if winners:
            return Play(max(winners, key=lambda card: strength[card]))
        return Play(cheapest)


if __name__ == "__main__":
    raise SystemExit(run(MyBot()))
