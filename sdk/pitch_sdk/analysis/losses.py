"""Where each bot of a match lost points: its decisions ranked by what they cost.

Each game's card plays are costed exactly, double-dummy (``costs.play_costs``), and its
decisions before the play (bids, trumps, discards, pick-ups, the stock) on sampled deals
(``choices.decision_values``), which gives each of those costs a standard error. Every
cost is charged to the bot in the seat that decided, named as the record's ``players``
name it (``name version``), so a bot that sits in both seats of a team is one bot, and
the same bot across games adds up. The errors of a bot's sampled costs add as
independent errors (each decision has samples of its own): the square root of the sum
of their squares.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..gamerecord import GameRecord
from ..replay import Replayed, replayed
from .choices import DEFAULT_SAMPLES, DecisionValue, decision_values
from .costs import PlayCost, play_costs


@dataclass(frozen=True)
class BotDecision:
    """A decision a bot made in a game, with its cost: a card played (exact) or a
    decision before the play (estimated on sampled deals).

    Attributes:
        bot: the bot, as ``name version``.
        game: the game's name (its record's file name without the suffix).
        decision: the card played and its cost, or the decision and its choices' values.
    """

    bot: str
    game: str
    decision: PlayCost | DecisionValue

    @property
    def cost(self) -> float:
        """The points the decision lost against the best choice."""
        return self.decision.cost

    @property
    def error(self) -> float | None:
        """The standard error of ``cost``; ``None`` for a card, whose cost is exact."""
        return self.decision.error if isinstance(self.decision, DecisionValue) else None

    def as_dict(self) -> dict[str, Any]:
        """One shape for both kinds: ``kind`` is ``play`` for a card, ``best`` the best
        choices (cards that tie, space-separated), ``samples`` ``None`` when exact."""
        decision = self.decision
        if isinstance(decision, PlayCost):
            kind, chosen, best, samples = "play", decision.played, " ".join(decision.best), None
        else:
            kind, chosen, best, samples = (
                decision.kind, decision.chosen, decision.best, decision.samples,
            )  # fmt: skip
        return {
            "bot": self.bot,
            "game": self.game,
            "hand": decision.hand,
            "index": decision.index,
            "seat": decision.seat,
            "kind": kind,
            "chosen": chosen,
            "best": best,
            "cost": self.cost,
            "error": self.error,
            "samples": samples,
        }


@dataclass(frozen=True)
class BotLosses:
    """A bot's points lost to costly decisions over the games analysed.

    Attributes:
        bot: the bot, as ``name version``.
        lost_by_game: the points lost in each game it played, by game name.
        error_by_game: the standard error of each game's points lost (0 when only card
            plays were costed).
        costliest: its costliest decisions, cards and others together, the costliest first.
    """

    bot: str
    lost_by_game: dict[str, float]
    error_by_game: dict[str, float]
    costliest: tuple[BotDecision, ...]

    @property
    def lost(self) -> float:
        """The points lost in all its games."""
        return sum(self.lost_by_game.values())

    @property
    def error(self) -> float:
        """The standard error of ``lost``."""
        return math.sqrt(sum(error**2 for error in self.error_by_game.values()))

    @property
    def per_game(self) -> float:
        """The points lost per game played."""
        return self.lost / len(self.lost_by_game)

    def as_dict(self) -> dict[str, Any]:
        """The fields as plain JSON values, with the totals."""
        return {
            "bot": self.bot,
            "lost": self.lost,
            "error": self.error,
            "per_game": self.per_game,
            "lost_by_game": self.lost_by_game,
            "error_by_game": self.error_by_game,
            "costliest": [decision.as_dict() for decision in self.costliest],
        }


def bot_name(record: GameRecord, seat: int) -> str:
    """The bot in ``seat`` as the record's players name it: ``name version``, or the seat
    when the record does not say."""
    player = record.player(seat)
    if player is None:
        return f"seat {seat}"
    return player.name + (f" {player.version}" if player.version else "")


def bot_losses(
    games: Iterable[tuple[str, GameRecord | Replayed]],
    hand: int | None = None,
    top: int = 5,
    *,
    samples: int = DEFAULT_SAMPLES,
    seed: int = 0,
) -> list[BotLosses]:
    """Each bot's losses in ``games`` (name and record pairs, which must replay cleanly),
    the bot losing most per game first, with its ``top`` costliest decisions; only
    ``hand`` of each game when one is given.

    The decisions before the play are valued on ``samples`` sampled deals drawn from
    ``seed`` (``decision_values``); ``samples=0`` costs the card plays only.

    Raises:
        ValueError: ``samples`` is 1 (an error needs two) or negative.
    """
    if samples == 1 or samples < 0:
        raise ValueError(f"at least 2 samples are needed to state an error, not {samples}")
    lost: dict[str, dict[str, float]] = {}
    variance: dict[str, dict[str, float]] = {}
    costly: dict[str, list[BotDecision]] = {}
    for game, played in games:
        played = replayed(played)  # once, for the card plays and the other decisions
        seats = [bot_name(played.record, seat) for seat in range(4)]
        for bot in seats:
            lost.setdefault(bot, {})[game] = 0
            variance.setdefault(bot, {})[game] = 0.0
            costly.setdefault(bot, [])
        decisions: list[PlayCost | DecisionValue] = list(play_costs(played, hand))
        if samples:
            decisions += decision_values(played, hand, samples=samples, seed=seed)
        for decision in decisions:
            charged = BotDecision(seats[decision.seat], game, decision)
            lost[charged.bot][game] += charged.cost
            variance[charged.bot][game] += (charged.error or 0.0) ** 2
            if charged.cost:
                costly[charged.bot].append(charged)
    ranked = [
        BotLosses(
            bot,
            by_game,
            {game: math.sqrt(spread) for game, spread in variance[bot].items()},
            tuple(sorted(costly[bot], key=lambda decision: -decision.cost)[:top]),
        )
        for bot, by_game in lost.items()
    ]
    return sorted(ranked, key=lambda losses: -losses.per_game)
