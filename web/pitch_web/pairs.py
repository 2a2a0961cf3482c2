"""A match's games as deal pairs, for its page and the duplicate comparison.

A duplicate match plays each deal twice with the seats swapped: games ``pair-00003-a``
and ``pair-00003-b`` hold the same cards, given to the other team's bots. The pair's
result for bot A is the sum of its two game scores, 0, 0.5, 1, 1.5 or 2: the bucket of
the pentanomial the match's statistics count (``pitch_referee.match.summary.Tally``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from .models import GameOut, path_url

PAIR_GAME = re.compile(r"pair-(\d{5,})-([ab])")
"""A game id of a deal pair: its number and its letter (``a``: bot A is team 0)."""
SIDES = "ab"
LATER = 2**63
"""Where a game that is no pair's sorts: after every pair."""


def pair_of(game_id: str) -> tuple[int, str] | None:
    """The pair number and letter of ``game_id`` (``None``: not a pair's game).

    >>> pair_of("pair-00003-b"), pair_of("game.json")
    ((3, 'b'), None)
    """
    found = PAIR_GAME.fullmatch(game_id)
    return None if found is None else (int(found[1]), found[2])


def schedule_order(game_id: str) -> tuple[int, str]:
    """A sort key putting a match's games in the order of its schedule, pair by pair."""
    paired = pair_of(game_id)
    return (LATER, game_id) if paired is None else paired


def twin_id(game_id: str) -> str | None:
    """The other game of ``game_id``'s pair (``None``: not a pair's game).

    >>> twin_id("pair-00003-a")
    'pair-00003-b'
    """
    found = PAIR_GAME.fullmatch(game_id)
    if found is None:
        return None
    return f"pair-{found[1]}-{'b' if found[2] == 'a' else 'a'}"


def compare_url(match_key: str, pair: int) -> str:
    """The duplicate comparison of pair ``pair`` of the match ``match_key`` (a ladder's
    match number, a match folder's path; ``""`` for the folder served)."""
    return f"{path_url('/compare', match_key)}/{pair}" if match_key else f"/compare/{pair}"


@dataclass(frozen=True)
class PairRow:
    """A match page's line: one deal pair, or one game that is no pair's."""

    pair: int | None
    """The pair's number; ``None`` for a game outside any pair."""
    a: GameOut | None
    """Its game ``-a`` (bot A in seats 0 and 2), if played; a lone game's here."""
    b: GameOut | None
    """Its game ``-b`` (the seats swapped), if played."""
    compare: str | None
    """The pair's duplicate comparison, when both games were played."""

    @property
    def score(self) -> float | None:
        """Bot A's points over the pair (the pentanomial's bucket): ``None`` until both
        games have a result."""
        if self.a is None or self.b is None or self.a.a_score is None or self.b.a_score is None:
            return None
        return self.a.a_score + self.b.a_score

    @property
    def results(self) -> str:
        """Bot A's result in each game, ``W``, ``D`` or ``L`` (``-``: none), ``a`` first."""
        return "".join(_letter(game) for game in (self.a, self.b))


def _letter(game: GameOut | None) -> str:
    score = None if game is None else game.a_score
    return {1.0: "W", 0.5: "D", 0.0: "L"}.get(score, "-") if score is not None else "-"


def pair_rows(games: Iterable[GameOut], match_key: str) -> list[PairRow]:
    """``games`` of the match ``match_key`` grouped by deal pair, in schedule order."""
    pairs: dict[int, dict[str, GameOut]] = {}
    lone: list[GameOut] = []
    for game in games:
        paired = pair_of(game.game)
        if paired is None:
            lone.append(game)
        else:
            pairs.setdefault(paired[0], {})[paired[1]] = game
    rows = [
        PairRow(
            number,
            sides.get("a"),
            sides.get("b"),
            compare_url(match_key, number) if len(sides) == len(SIDES) else None,
        )
        for number, sides in sorted(pairs.items())
    ]
    lone.sort(key=lambda game: game.game)
    return rows + [PairRow(None, game, None, None) for game in lone]
