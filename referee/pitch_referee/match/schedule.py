"""The games of a match, in order: duplicate pairs share a deal and a first dealer."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ..referee import PlayerSlot
from .settings import Entrant, MatchError, MatchSettings


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


SIDES = "ab"
"""The two games of a deal pair, by letter (``GameSpec.side``)."""


def slot_key(seat: str, side: str) -> str:
    """The process slot of ``seat`` (``A1``, ``A2``, ``B1``, ``B2``) in the games of
    letter ``side``: ``A1-a`` plays only a games, ``A1-b`` only b games. It names the
    process's log (``A1-a-<bot>.log``), so a log's name still starts with its seat."""
    return f"{seat}-{side}"


def process_slots(
    entrants: Mapping[str, Entrant], log_cap: Callable[[int], int | None] = lambda slots: None
) -> dict[str, PlayerSlot]:
    """One process slot per seat (``Job.seat_entrants``) and game letter: eight, so that
    the two games of a deal pair never share a process. A process that saw game a's cards
    would know, in game b, an opponent's hand in every deal (the seats are swapped).

    ``log_cap(n)`` is what each log file of a bot holding ``n`` slots keeps (its share of
    the bot's log budget: ``MatchSettings.log_cap_bytes``)."""
    held = Counter(entrants.values())  # a same-bot team's bot holds two seats
    return {
        slot_key(seat, side): PlayerSlot(
            slot_key(seat, side),
            entrant.manifest,
            entrant.name,
            log_cap(held[entrant] * len(SIDES)),
        )
        for side in SIDES
        for seat, entrant in entrants.items()
    }


def seats(spec: GameSpec, slots: dict[str, PlayerSlot]) -> list[PlayerSlot]:
    """The process per seat (``slots`` from ``process_slots``): A1/A2 are team A's two
    seats (bot A twice, or bot A and its partner), B1/B2 team B's; each has one process
    for the a games and another for the b games."""
    order = ("A1", "B1", "A2", "B2") if spec.side == "a" else ("B1", "A1", "B2", "A2")
    return [slots[slot_key(seat, spec.side)] for seat in order]
