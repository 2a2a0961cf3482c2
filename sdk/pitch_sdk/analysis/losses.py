"""Where each bot of a match lost points: its card plays ranked by double-dummy cost.

Each game's plays are costed (``costs.play_costs``) and charged to the bot in the seat
that played, named as the record's ``players`` name it (``name version``), so a bot that
sits in both seats of a team is one bot, and the same bot across games adds up.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .costs import PlayCost, play_costs


@dataclass(frozen=True)
class BotPlay:
    """A card a bot played in a game, with its cost.

    Attributes:
        bot: the bot, as ``name version``.
        game: the game's name (its record's file name without the suffix).
        play: the card and its cost.
    """

    bot: str
    game: str
    play: PlayCost

    def as_dict(self) -> dict[str, Any]:
        """The fields as plain JSON values, the play's flattened in."""
        return {"bot": self.bot, "game": self.game, **self.play.as_dict()}


@dataclass(frozen=True)
class BotLosses:
    """A bot's points lost to costly card plays over the games analysed.

    Attributes:
        bot: the bot, as ``name version``.
        lost_by_game: the points lost in each game it played, by game name.
        costliest: its costliest plays, the costliest first.
    """

    bot: str
    lost_by_game: dict[str, int]
    costliest: tuple[BotPlay, ...]

    @property
    def lost(self) -> int:
        """The points lost in all its games."""
        return sum(self.lost_by_game.values())

    @property
    def per_game(self) -> float:
        """The points lost per game played."""
        return self.lost / len(self.lost_by_game)

    def as_dict(self) -> dict[str, Any]:
        """The fields as plain JSON values, with the totals."""
        return {
            "bot": self.bot,
            "lost": self.lost,
            "per_game": self.per_game,
            "lost_by_game": self.lost_by_game,
            "costliest": [play.as_dict() for play in self.costliest],
        }


def bot_name(record: dict[str, Any], seat: int) -> str:
    """The bot in ``seat`` as the record's players name it: ``name version``, or the seat
    when the record does not say."""
    for player in record.get("players", ()):
        if player.get("seat") == seat:
            version = player.get("version")
            return str(player.get("name")) + (f" {version}" if version else "")
    return f"seat {seat}"


def bot_losses(
    games: Iterable[tuple[str, dict[str, Any]]], hand: int | None = None, top: int = 5
) -> list[BotLosses]:
    """Each bot's losses in ``games`` (name and record pairs, which must replay cleanly),
    the bot losing most per game first, with its ``top`` costliest plays; only ``hand``
    of each game when one is given."""
    lost: dict[str, dict[str, int]] = {}
    plays: dict[str, list[BotPlay]] = {}
    for game, record in games:
        seats = [bot_name(record, seat) for seat in range(4)]
        for bot in seats:
            lost.setdefault(bot, {})[game] = 0
            plays.setdefault(bot, [])
        for play in play_costs(record, hand):
            bot = seats[play.seat]
            lost[bot][game] += play.cost
            if play.cost:
                plays[bot].append(BotPlay(bot, game, play))
    ranked = [
        BotLosses(bot, by_game, tuple(sorted(plays[bot], key=lambda p: -p.play.cost)[:top]))
        for bot, by_game in lost.items()
    ]
    return sorted(ranked, key=lambda losses: -losses.per_game)
