"""Which matches the service's scheduler plays next: placement first, then uncertainty.

A round robin spends as many games on a pairing whose result is already plain as on one
that still decides the order. The scheduler instead plays, each step, a few matches chosen
from the ratings as they stand:

1. **Placement.** A version with fewer than ``placement`` matches meets a spread of the
   field (opponents at even steps down the ranking, those it has not met first), so that
   its first rating rests on strong and weak opponents alike rather than its neighbours.
2. **Uncertainty.** Every other match goes to the pairing whose outcome is least known:
   the sum of the two versions' interval widths, shrunk by the games they have already
   played together (``width_a + width_b) / sqrt(1 + games)``). Versions in different
   groups (no results connect them, so their ratings cannot be compared) come first.
   Games played lower a pairing's priority without end, so every pairing comes round:
   this is the round robin, played in the order of what each match would tell.

A version plays at most its share of a step's matches (two per match over the versions,
at least one), so one step spreads over the field; one still placing may play all of its
placement in one step.

3. **Partnerships.** With ``quartets`` set, a step also plays groups of four bots in the
   mixed-partnership format (each group's three team matches, ``docs/partnerships.md``):
   each group is built from the two bots that have partnered each other least and the
   bots that have partnered those least, so every two bots come to partner each other
   and the partnerships stay even as versions come and go.

Pure functions of plain data: the loop (``scheduler``) reads the data and writes the
chosen matches.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .schedule import Quartet

UNKNOWN_WIDTH = 2000.0
"""The interval width taken for a version without a rating (no game yet): wider than any
fitted interval, so an unplayed version's pairings come first."""
APART = 4.0
"""How much more a pairing across groups weighs than the widest pairing within one."""


@dataclass(frozen=True)
class Entrant:
    """A bot's latest version as the scheduler sees it."""

    name: str
    rating: float | None
    """Its Bradley-Terry rating, ``None`` before any game."""
    width: float | None
    """The width of its 95% interval, ``None`` before any game."""
    group: int | None
    """Its group of connected results, ``None`` before any game."""
    matches: int
    """Matches scheduled for this version so far (played or pending)."""


@dataclass(frozen=True)
class PairingSettings:
    matches: int = 8
    """Matches chosen per step."""
    placement: int = 6
    """Matches a new version plays against a spread of the field before the rest."""
    quartets: int = 0
    """Groups of four bots per step that also play the mixed-partnership format (0: none)."""

    def __post_init__(self) -> None:
        if self.matches < 1:
            raise ValueError("a step plays at least one match")
        if self.placement < 0:
            raise ValueError("placement matches cannot be negative")
        if self.quartets < 0:
            raise ValueError("quartets per step cannot be negative")


def next_pairings(
    entrants: Sequence[Entrant],
    games_between: Mapping[frozenset[str], int],
    settings: PairingSettings,
) -> list[tuple[str, str]]:
    """The pairs (A's name first, by name) of the next step's matches, each pair once."""
    if len(entrants) < 2:
        return []
    per_version = max(1, math.ceil(2 * settings.matches / len(entrants)))
    chosen: dict[tuple[str, str], None] = {}  # in the order chosen
    load = {entrant.name: 0 for entrant in entrants}
    cap = {  # a version still placing plays its placement in as few steps as it can
        entrant.name: max(per_version, settings.placement - entrant.matches) for entrant in entrants
    }

    def take(a: str, b: str, slack: int) -> None:
        """Choose the match of ``a`` and ``b`` unless either is full or it is chosen."""
        pair = (min(a, b), max(a, b))
        if load[a] < cap[a] + slack and load[b] < cap[b] + slack and pair not in chosen:
            chosen[pair] = None
            load[a] += 1
            load[b] += 1

    placements = [
        (entrant.name, opponent)
        for entrant, opponents in _placements(entrants, games_between, settings.placement)
        for opponent in opponents
    ]
    # The caps can leave a step short of pairs that are left (the first choices fill some
    # versions): each further pass lets every version play one more match.
    wanted = min(settings.matches, len(entrants) * (len(entrants) - 1) // 2)
    for slack in range(len(entrants)):
        for a, b in chain(placements, _by_uncertainty(entrants, games_between)):
            if len(chosen) == wanted:
                return list(chosen)
            take(a, b, slack)
    return list(chosen)


def _placements(
    entrants: Sequence[Entrant], games_between: Mapping[frozenset[str], int], placement: int
) -> list[tuple[Entrant, list[str]]]:
    """Each version still placing (fewest matches first) with its opponents in order."""
    ranked = sorted(entrants, key=lambda e: (e.rating is None, -(e.rating or 0.0), e.name))
    placing = sorted(
        (e for e in entrants if e.matches < placement), key=lambda e: (e.matches, e.name)
    )
    plans = []
    for entrant in placing:
        field = [other.name for other in ranked if other.name != entrant.name]
        wanted = min(placement - entrant.matches, len(field))
        spread = [field[round(i * (len(field) - 1) / max(1, wanted - 1))] for i in range(wanted)]
        unmet = [name for name in field if not games_between.get(frozenset((entrant.name, name)))]
        order = list(dict.fromkeys([n for n in spread if n in unmet] + spread + unmet + field))
        plans.append((entrant, order))
    return plans


def _by_uncertainty(
    entrants: Sequence[Entrant], games_between: Mapping[frozenset[str], int]
) -> Iterator[tuple[str, str]]:
    """Every pair, the least known first (ties by name); named as they are read, since a
    step reads a handful of the half million pairs of a thousand bots."""
    names = sorted(e.name for e in entrants)
    by_name = {e.name: e for e in entrants}
    width = np.array([by_name[n].width or UNKNOWN_WIDTH for n in names])
    group = np.array(
        [-1 if by_name[n].group is None else by_name[n].group for n in names], dtype=float
    )
    played = np.zeros((len(names), len(names)))
    index = {name: i for i, name in enumerate(names)}
    for pair, games in games_between.items():
        if len(pair) == 2 and pair <= index.keys():
            i, j = (index[name] for name in pair)
            played[i, j] = played[j, i] = games
    priority = (width[:, None] + width[None, :]) / np.sqrt(1.0 + played)
    apart = (group[:, None] != group[None, :]) | (group[:, None] < 0) | (group[None, :] < 0)
    priority = np.where(apart, priority * APART, priority)
    first, second = np.triu_indices(len(names), k=1)
    order = np.lexsort((second, first, -priority[first, second]))
    return ((names[first[k]], names[second[k]]) for k in order)


def next_quartets(
    names: Sequence[str], partnered: Mapping[frozenset[str], int], count: int
) -> list[Quartet]:
    """Up to ``count`` groups of four bots (each sorted by name, no bot in two groups) for
    the next step's team matches, from ``partnered``: the team games each two bots have
    played as partners.

    Each group starts from the two bots that have partnered least (the first by name among
    equals) and adds, one at a time, the bot that has partnered the group's members least.

    >>> next_quartets(list("abcdef"), {frozenset("ab"): 6, frozenset("cd"): 6}, 2)
    [('a', 'c', 'e', 'f')]
    """
    free = sorted(names)
    index = {name: i for i, name in enumerate(free)}
    together = np.zeros((len(free), len(free)))
    for pair, games in partnered.items():
        if len(pair) == 2 and pair <= index.keys():
            i, j = (index[name] for name in pair)
            together[i, j] = together[j, i] = games
    taken = np.zeros(len(free), dtype=bool)
    groups: list[Quartet] = []
    while len(groups) < count and (~taken).sum() >= 4:
        # the least partnered pair of free bots: argmin takes the first by name among equals
        closed = taken[:, None] | taken[None, :] | np.tri(len(free), dtype=bool)
        first, second = divmod(int(np.argmin(np.where(closed, np.inf, together))), len(free))
        group = [first, second]
        while len(group) < 4:
            cost = together[:, group].sum(axis=1)
            cost[taken] = cost[group] = np.inf
            group.append(int(np.argmin(cost)))
        taken[group] = True
        groups.append(tuple(free[i] for i in sorted(group)))  # type: ignore[arg-type]
    return groups
