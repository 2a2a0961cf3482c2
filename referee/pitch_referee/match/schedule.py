"""The games of a match, in order: duplicate pairs share a deal and a first dealer."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..referee import PlayerSlot
from .settings import MatchError, MatchSettings


@dataclass(frozen=True, slots=True)
class GameSpec:
    """One game of the schedule (slotted: a long match holds one per game)."""

    pair: int
    side: str
    """``a``: bot A is team 0 (seats 0, 2); ``b``: bot A is team 1."""
    seed: str
    first_dealer: int

    @property
    def game_id(self) -> str:
        return f"pair-{self.pair:05d}-{self.side}"

    @property
    def a_team(self) -> int:
        return 0 if self.side == "a" else 1


def schedule(settings: MatchSettings) -> list[GameSpec]:
    """Every game of the match, in order. Duplicate pairs share a seed and first dealer."""
    if settings.seed is None:
        raise MatchError("a match without a seed has no schedule yet: use settings.seeded()")
    if settings.duplicate:
        pairs = (settings.games + 1) // 2
        return [
            GameSpec(pair, side, seed, pair % 4)
            for pair in range(pairs)
            for seed in (f"{settings.seed}.{pair}",)  # one string for both games
            for side in "ab"
        ]
    return [
        GameSpec(game, "ab"[game % 2], f"{settings.seed}.{game}", game % 4)
        for game in range(settings.games)
    ]


_GAME_ID = re.compile(r"pair-(\d{5,})-([ab])")


def position(game_id: str, specs: list[GameSpec], duplicate: bool) -> int | None:
    """Where the game ``game_id`` is in ``specs`` (the schedule of a match, duplicate or
    not), or ``None`` if it is none of its games; no search, no index to build."""
    found = _GAME_ID.fullmatch(game_id)
    if found is None:
        return None
    pair, side = int(found[1]), found[2]
    at = 2 * pair + (side == "b") if duplicate else pair
    if at < len(specs) and specs[at].pair == pair and specs[at].side == side:
        return at
    return None


def seats(spec: GameSpec, slots: dict[str, PlayerSlot]) -> list[PlayerSlot]:
    """The process per seat: A1/A2 are team A's two processes (bot A twice, or bot A and
    its partner), B1/B2 team B's."""
    order = ("A1", "B1", "A2", "B2") if spec.side == "a" else ("B1", "A1", "B2", "A2")
    return [slots[key] for key in order]
