"""Records for the viewer's tests that random play does not give: a moon, a faulty bot."""

from __future__ import annotations

from pitch_sdk.actions import Decision, Play, parse_action
from pitch_sdk.bots import RandomBot
from pitch_sdk.cards import card_name
from pitch_sdk.gamerecord import GameRecord, Player, parse_deck
from pitch_sdk.record import GameRecorder


def moon_record() -> GameRecord:
    """A one-hand game in which seat 1 bids 13 and its team ends up with all 13 points:
    seats 1 and 3 are dealt every trump, so seats 0 and 2 never play."""
    seat_1, seat_3 = (
        ["AS", "JS", "JC", "JK", "TS", "3S", "KS", "QS", "9S"],
        ["JK", "3C", "2S", "8S", "7S", "6S", "5S", "4S", "AH"],
    )
    others = iter(sorted({card_name(c) for c in range(52)} - set(seat_1) - set(seat_3)))
    deck = [""] * 54
    for k, cards in ((0, seat_1), (2, seat_3)):  # the k-th seat left of the dealer (seat 0)
        for n, card in enumerate(cards):
            deck[12 * (n // 3) + 3 * k + n % 3] = card
    deck = [card or next(others) for card in deck]
    players = [Player(seat, "moon", "1") for seat in range(4)]
    recorder = GameRecorder(players=players)
    recorder.deal(parse_deck(deck))
    for text in ("bid 13", "pass", "pass", "pass", "trump S", "discard KS QS 9S", "discard 8S 7S"):
        recorder.decide(parse_action(text))
    while recorder.state.decision() is Decision.STOCK:
        recorder.decide(parse_action("leave"))
    return recorder.record()


class IllegalPlayer(RandomBot):
    """Plays a card it does not hold whenever it plays: an illegal action (a fault)."""

    def play(self, view, legal):
        held = {action.card for action in legal}
        return Play(next(card for card in range(52) if card not in held))
