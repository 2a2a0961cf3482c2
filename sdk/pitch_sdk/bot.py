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

    Each decision method is given the deciding seat's view (``view.seat`` is yours) and
    the legal actions, and must return one of those actions: build nothing, choose.
    ``legal`` is never empty, and a decision with a single legal action is taken by the
    table without asking. The defaults choose uniformly at random with ``rng``.

    Search bots (PIMC, Monte Carlo) can sample a full game state consistent with a view
    with ``pitch_sdk.determinize.determinize(view, self.rng)`` and play it out on a ``copy()``.

    Args:
        seed: the seed of ``rng`` until a game starts; a match reseeds it with the seat's
            own seed at each game's start, so a bot that draws only from ``rng`` plays
            the same game again from the same match seed.
    """

    name: str = "bot"
    """The bot's name, as the referee and records show it (``bot.toml``'s overrides it
    for a bot folder)."""
    version: str = "0.1"
    """The bot's version, shown beside its name."""

    def __init__(self, seed: int | str | None = None) -> None:
        self.rng = random.Random(seed)
        """The bot's own randomness: reseeded at each game's start (``start_game``)."""
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
        """Pass (``Bid(0)``) or bid; the dealer may be forced to bid at least 5.

        Each seat bids once, from the dealer's left. ``view.hand`` holds the nine dealt
        cards, ``view.bids`` the bids so far (``view.bid`` is the highest).

        Args:
            view: what this seat knows now.
            legal: a pass and the bids above the highest so far (up to 13), in that
                order (the dealer may equal it under the ``dealer_steal`` rule); the
                dealer, when everyone passed, gets bids of 5 and up only.

        Returns:
            One of ``legal``.
        """
        return self.rng.choice(legal)

    def name_trump(self, view: PlayerView, legal: Sequence[NameTrump]) -> NameTrump:
        """The bidder names the trump suit.

        Args:
            view: what this seat knows now (``view.hand``: the nine dealt cards).
            legal: the four suits.

        Returns:
            One of ``legal``.
        """
        return self.rng.choice(legal)

    def discard(self, view: PlayerView, legal: Sequence[Discard]) -> Discard:
        """Which trumps to discard face up to get down to six.

        Asked only of a seat holding more than six trumps after the non-trumps went to
        the centre; the discarded point cards may be picked up by others.

        Args:
            view: what this seat knows now (``view.trump`` is named).
            legal: every set of the right size, each as one ``Discard`` whose ``cards``
                is a mask.

        Returns:
            One of ``legal``.
        """
        return self.rng.choice(legal)

    def pick_up(self, view: PlayerView, legal: Sequence[PickUp]) -> PickUp:
        """Which discarded point cards to take from the centre (possibly none).

        Asked of a seat short of six trumps when others discarded point cards down to
        six (``view.discarded_down``); what is in the centre is ``view.centre``.

        Args:
            view: what this seat knows now.
            legal: every set that fits in the hand, the empty one (``PickUp(0)``)
                included.

        Returns:
            One of ``legal``.
        """
        return self.rng.choice(legal)

    def look(self, view: PlayerView, legal: Sequence[StockChoice]) -> StockChoice:
        """Take ``view.look_card`` (giving up a card), leave it, or stop looking.

        After the fill, the bidder (then perhaps the partner) turns the rest of the
        stock one card at a time. A point card may be taken in exchange for a card of
        the hand; ``view.look_remaining`` cards are left in the pile, this one included.

        Args:
            view: what this seat knows now; ``view.look_card`` is the card just turned.
            legal: a take for each card that could be given up (only when the turned
                card is worth points), ``LEAVE``, and ``STOP`` where stopping is allowed.

        Returns:
            One of ``legal``.
        """
        return self.rng.choice(legal)

    def play(self, view: PlayerView, legal: Sequence[Play]) -> Play:
        """Play a trump to the trick.

        ``view.trick`` holds the cards played to this trick so far, ``view.tricks`` the
        finished ones; ``pitch_sdk.cards.STRENGTH[view.trump][card]`` says which wins.

        Args:
            view: what this seat knows now.
            legal: a ``Play`` for each trump in hand (the two jokers are one choice).

        Returns:
            One of ``legal``.
        """
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
