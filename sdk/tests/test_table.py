"""The table: what each seat is told, what watchers see, and how faults are handled."""

from __future__ import annotations

import asyncio

import pytest

from pitch_sdk.actions import Bid, StockChoice
from pitch_sdk.bots import GreedyBot, RandomBot
from pitch_sdk.cards import SEATS
from pitch_sdk.faults import FaultKind
from pitch_sdk.selfplay import BotPlayer, play_game
from pitch_sdk.table import (
    Dealt,
    Decided,
    Faulted,
    FaultPolicy,
    GameOver,
    Table,
    TableEvent,
    play_in_process,
)


class Listener(RandomBot):
    """Keeps every event its seat was told."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.told: list[object] = []


class TellingPlayer(BotPlayer):
    def observe(self, event):
        self.bot.told.append(event)
        super().observe(event)


def _play_watched(seed: int) -> tuple[list[TableEvent], list[Listener]]:
    bots = [Listener(seat) for seat in SEATS]
    seen: list[TableEvent] = []
    table = Table([TellingPlayer(bot) for bot in bots], seed=seed, watchers=[seen.append])
    play_in_process(table.play())
    return seen, bots


def test_each_seat_is_dealt_its_own_cards_only_and_watchers_see_all_four_hands():
    seen, bots = _play_watched(3)
    deals = [event for event in seen if isinstance(event, Dealt)]
    assert deals and all(all(deal.hands) for deal in deals)
    for seat, bot in enumerate(bots):
        for told, full in zip((e for e in bot.told if isinstance(e, Dealt)), deals, strict=True):
            assert told.hands[seat] == full.hands[seat]
            assert not any(cards for other, cards in enumerate(told.hands) if other != seat)


def test_another_seats_stock_take_reaches_a_seat_without_the_card_given_up():
    for seed in range(40):
        seen, bots = _play_watched(seed)
        takes = [
            e for e in seen if isinstance(e.action if isinstance(e, Decided) else None, StockChoice)
            and e.action.give_up is not None
        ]  # fmt: skip
        if takes:
            break
    else:
        pytest.fail("no stock take with a card given up in 40 games")
    take = takes[0]
    for seat, bot in enumerate(bots):
        told = next(e for e in bot.told if isinstance(e, Decided) and e.hand == take.hand
                    and e.seat == take.seat and isinstance(e.action, StockChoice)
                    and e.action.move == take.action.move)  # fmt: skip
        expected = take.action.give_up if seat == take.seat else None
        assert told.action.give_up == expected


class Illegal(RandomBot):
    def bid(self, view, legal):
        return Bid(13) if Bid(13) not in legal else Bid(14)


def test_an_illegal_answer_is_a_fault_and_forfeits_the_game_by_default():
    seen: list[TableEvent] = []
    bots = [RandomBot(0), Illegal(1), RandomBot(2), RandomBot(3)]
    table = Table([BotPlayer(bot) for bot in bots], seed=5, watchers=[seen.append])
    record = play_in_process(table.play()).record
    assert [fault.kind for fault in record.faults] == [FaultKind.ILLEGAL_ACTION]
    assert record.result.forfeited_by == 1
    assert isinstance(seen[-1], GameOver) and isinstance(seen[-2], Faulted)


def test_with_substitutes_an_illegal_answer_is_replaced_and_the_game_goes_on():
    bots = [RandomBot(0), Illegal(1), RandomBot(2), RandomBot(3)]
    record = play_game(bots, 5, fault_policy=FaultPolicy.SUBSTITUTE)
    assert record.result.termination != "forfeit"
    assert {fault.kind for fault in record.faults} == {FaultKind.ILLEGAL_ACTION}


def test_bot_seeds_reseed_each_bot_so_a_seeded_game_repeats_whatever_the_bots_drew_before():
    seeds = ["a", "b", "c", "d"]
    first = play_game([GreedyBot(seat) for seat in SEATS], 9, bot_seeds=seeds)
    drawn = [RandomBot(seat) for seat in SEATS]
    for bot in drawn:
        bot.rng.random()
    again = play_game([RandomBot(seat) for seat in SEATS], 9, bot_seeds=seeds)
    assert play_game(drawn, 9, bot_seeds=seeds) == again
    assert first.result is not None


class Waiting(BotPlayer):
    async def decide(self, turn):
        await asyncio.sleep(0)
        return await super().decide(turn)


def test_a_table_whose_player_waits_cannot_be_played_without_an_event_loop():
    players = [Waiting(RandomBot(seat)) for seat in SEATS]
    with pytest.raises(TypeError, match=r"await Table\.play"):
        play_in_process(Table(players, seed=1).play())
    assert asyncio.run(Table(players, seed=1).play()).record.result is not None
