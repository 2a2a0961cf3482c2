"""The ``Bot`` base class: one method per kind of decision, each given a view and the
legal actions, each returning one of them; hooks for the game's start and end and for
every decision and hand at the table; the time each decision may take in ``budget``.

Override only what you care about; every default picks uniformly at random among the
legal actions with the bot's own seeded ``rng``. Bots never see protobuf objects, and a
``Bot`` gets the same calls with the same arguments in-process (``pitch simulate``,
``selfplay``) and over gRPC (``pitch_sdk.run``): both go through ``start_game``, ``ask``
and ``notify`` below.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from .actions import Action, Bid, Decision, Discard, NameTrump, PickUp, Play, StockChoice
from .progress import HandResult
from .table import Decided, GameStart, HandScored, SeatEvent, TimeBudget
from .views import PlayerView


class Bot:
    """Subclass and override the decisions you want to play well.

    Search bots (PIMC, Monte Carlo) can sample a full game state consistent with a view
    with ``pitch_sdk.determinize.determinize(view, self.rng)`` and play it out on a ``copy()``.
    """

    name: str = "bot"
    version: str = "0.1"

    def __init__(self, seed: int | str | None = None) -> None:
        self.rng = random.Random(seed)
        self.budget = TimeBudget(limit_ms=1000, reserve_ms=0)
        """The time the current decision may take (``budget.total_ms`` at most): a search
        bot that stays inside ``budget.limit_ms`` never spends its reserve."""

    def decide(self, view: PlayerView) -> Action:
        """Route a decision to the method for its kind."""
        legal = view.legal_actions
        kind = view.decision
        if kind is Decision.PLAY:
            return self.play(view, legal)  # type: ignore[arg-type]
        if kind is Decision.BID:
            return self.bid(view, legal)  # type: ignore[arg-type]
        if kind is Decision.TRUMP:
            return self.name_trump(view, legal)  # type: ignore[arg-type]
        if kind is Decision.DISCARD:
            return self.discard(view, legal)  # type: ignore[arg-type]
        if kind is Decision.PICKUP:
            return self.pick_up(view, legal)  # type: ignore[arg-type]
        if kind is Decision.STOCK:
            return self.look(view, legal)  # type: ignore[arg-type]
        raise ValueError(f"seat {view.seat} has no decision to make now")

    def bid(self, view: PlayerView, legal: Sequence[Bid]) -> Bid:
        """Pass (``Bid(0)``) or bid; the dealer may be forced to bid at least 5."""
        return self.rng.choice(legal)

    def name_trump(self, view: PlayerView, legal: Sequence[NameTrump]) -> NameTrump:
        return self.rng.choice(legal)

    def discard(self, view: PlayerView, legal: Sequence[Discard]) -> Discard:
        """Which trumps to discard face up to get down to six."""
        return self.rng.choice(legal)

    def pick_up(self, view: PlayerView, legal: Sequence[PickUp]) -> PickUp:
        """Which discarded point cards to take from the centre (possibly none)."""
        return self.rng.choice(legal)

    def look(self, view: PlayerView, legal: Sequence[StockChoice]) -> StockChoice:
        """Take ``view.look_card`` (giving up a card), leave it, or stop looking."""
        return self.rng.choice(legal)

    def play(self, view: PlayerView, legal: Sequence[Play]) -> Play:
        return self.rng.choice(legal)

    def on_action(self, seat: int, action: Action, forced: bool) -> None:
        """Called for every decision at the table (yours too), before your next one.

        Another seat's stock take arrives without the card it gave up (``give_up`` None).
        """

    def on_hand_end(self, result: HandResult) -> None:
        """Called when a hand is scored, before your next decision."""

    def on_game_start(self, seat: int, info: GameStart) -> None:
        """Called before each game's first decision; ``info`` holds the game id, the rules,
        the players, the first dealer and the time control."""

    def on_game_end(self, view: PlayerView) -> None:
        """Called once the game is over; ``view.outcome`` holds the result."""


def start_game(bot: Bot, game: GameStart) -> None:
    """A game begins: reseed the bot's ``rng`` with its seat's seed, then tell it.

    In-process and over gRPC alike, so a seeded bot plays the same game either way.
    """
    if game.seed:
        bot.rng.seed(game.seed)
    bot.on_game_start(game.seat, game)


def ask(bot: Bot, view: PlayerView, budget: TimeBudget) -> Action:
    """One decision: the bot's time goes in ``bot.budget``, then ``bot.decide(view)``."""
    bot.budget = budget
    return bot.decide(view)


def notify(bot: Bot, event: SeatEvent) -> None:
    """Pass one table event to the bot's hooks (deals have none: the view holds the hand)."""
    if isinstance(event, Decided):
        bot.on_action(event.seat, event.action, event.forced)
    elif isinstance(event, HandScored):
        bot.on_hand_end(event.result)


def listens(bot: Bot) -> bool:
    """Whether the bot overrides an event hook; events cost a bot that does not nothing."""
    kind = type(bot)
    return kind.on_action is not Bot.on_action or kind.on_hand_end is not Bot.on_hand_end
