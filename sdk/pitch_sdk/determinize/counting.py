"""Counting: how many placements each split of the unseen cards allows, and weighted draws.

The strict sampler after the fill draws how many cards of each kind go where by these
exact weights, so voids, must-hold rules and point sums cost no rejection.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from functools import lru_cache
from itertools import product
from math import comb
from typing import NamedTuple, TypeVar

from ..cards import Seat


class _Spec(NamedTuple):
    """How many unseen cards of each kind may go where (hashable, for the cache)."""

    seats: tuple[Seat, ...]
    """The hidden seats."""
    rooms: tuple[int, ...]
    """Free places in each hidden hand (after the pinned cards)."""
    lows: tuple[int, ...]
    """Least non-trumps in each hidden hand (all of them for a void seat)."""
    highs: tuple[int, ...]
    """Most non-trumps in each hidden hand (a seat's non-trumps are fill cards)."""
    pinned: tuple[int, ...]
    """Trumps already pinned in each hidden hand."""
    pinned_points: tuple[int, int]
    """Points of the trumps each team holds for sure (pinned or the viewer's own)."""
    non_trumps: int
    classes: tuple[int, int, int]
    """Unseen trumps worth 0, 1 and 3 points."""
    base: tuple[int, int, int, int]
    """Trump counts known per seat (the viewer's own)."""
    rules: tuple[frozenset[Seat], frozenset[Seat], tuple[int, ...], bool]
    """Voids, seats that must hold a trump, teams that must, and whether a team is out."""
    gone: int
    """Free face-down places."""
    gives: tuple[tuple[int, int], ...]
    """Per hidden seat: its hidden give-ups not covered by reserved cards, its fill size."""
    points: tuple[int, int] | None
    """At a hand's end: the points of the trumps each team still holds."""


@lru_cache(maxsize=4096)
def _count_table(spec: _Spec) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    """Every allowed count of non-trumps per hidden hand, with its exact weight.

    A count's weight is the number of card placements it allows under every count
    constraint (a product of binomials), so drawing counts by weight and then cards
    uniformly within each kind is uniform over all placements that meet them. Cached:
    a search bot determinizes the same view many times.
    """
    splits, cumulative, total = [], [], 0
    ranges = (range(lo, hi + 1) for lo, hi in zip(spec.lows, spec.highs, strict=True))
    for split in product(*ranges):
        ways = _split_weight(spec, split)
        if ways:
            total += ways
            splits.append(split)
            cumulative.append(total)
    return tuple(splits), tuple(cumulative)


def _split_weight(spec: _Spec, split: tuple[int, ...]) -> int:
    trumps = [room - non for room, non in zip(spec.rooms, split, strict=True)]
    counts = list(spec.base)
    for seat, pins, count in zip(spec.seats, spec.pinned, trumps, strict=True):
        counts[seat] = pins + count
    if min(trumps) < 0 or not _trump_counts_ok(counts, *spec.rules):
        return 0
    non_ways = _multinomial(spec.non_trumps, split)
    trump_ways = sum(weight for _, weight in _trump_draws(spec, tuple(trumps)))
    if not non_ways or not trump_ways:
        return 0
    rest_non = spec.non_trumps - sum(split)
    rest_trumps = sum(spec.classes) - sum(trumps)
    gone_ways = sum(w for _, w in _gone_draws(spec, split, rest_non, rest_trumps))
    return non_ways * trump_ways * gone_ways


def _multinomial(total: int, parts: Iterable[int]) -> int:
    """Ways to deal ``parts`` cards from ``total`` distinct ones (0 if there are too few)."""
    ways = 1
    for part in parts:
        if part > total:
            return 0
        ways *= comb(total, part)
        total -= part
    return ways


def _trump_draws(
    spec: _Spec, trumps: tuple[int, ...]
) -> list[tuple[tuple[tuple[int, ...], ...], int]]:
    """How the hidden hands' trumps can be drawn, with weights.

    Without a points rule every draw of ``trumps`` cards per hand is alike: one entry.
    At a hand's end each team's trumps must hold given points, so the draw is split by
    how many 0-, 1- and 3-point trumps each team gets.
    """
    if spec.points is None:
        return [((), _multinomial(sum(spec.classes), trumps))]
    per_team = [0, 0]
    spread = 1
    for team in (0, 1):
        counts = [n for seat, n in zip(spec.seats, trumps, strict=True) if seat % 2 == team]
        per_team[team] = sum(counts)
        spread *= _multinomial(per_team[team], counts)
    needed = [spec.points[t] - spec.pinned_points[t] for t in (0, 1)]
    draws: list[tuple[tuple[tuple[int, ...], ...], int]] = []
    for first in _compositions(per_team[0], needed[0], spec.classes):
        left = tuple(c - f for c, f in zip(spec.classes, first, strict=True))
        for second in _compositions(per_team[1], needed[1], left):
            weight = spread * _class_ways(spec.classes, first) * _class_ways(left, second)
            draws.append(((first, second), weight))
    return draws


def _compositions(
    count: int, points: int, classes: tuple[int, ...]
) -> Iterator[tuple[int, int, int]]:
    """(zeros, ones, threes) adding up to ``count`` cards and ``points`` points."""
    for threes in range(min(classes[2], max(points, -1) // 3) + 1):
        ones = points - 3 * threes
        zeros = count - ones - threes
        if 0 <= ones <= classes[1] and 0 <= zeros <= classes[0]:
            yield zeros, ones, threes


def _class_ways(classes: tuple[int, ...], taken: tuple[int, ...]) -> int:
    ways = 1
    for have, take in zip(classes, taken, strict=True):
        ways *= comb(have, take)
    return ways


def _gone_draws(
    spec: _Spec, split: tuple[int, ...], rest_non: int, rest_trumps: int
) -> list[tuple[int, int]]:
    """How many trumps can go face down, with weights.

    A looker whose non-trumps already fill its fill size can only have given up trumps,
    so the face-down cards hold at least that many.
    """
    need = 0
    for (gives, fill), non in zip(spec.gives, split, strict=True):
        need += max(0, gives - (fill - non))
    low, high = max(need, spec.gone - rest_non, 0), min(rest_trumps, spec.gone)
    return [
        (count, comb(rest_trumps, count) * comb(rest_non, spec.gone - count))
        for count in range(low, high + 1)
    ]


def _trump_counts_ok(
    counts: list[int],
    voids: frozenset[Seat],
    must_hold: frozenset[Seat],
    team_need: tuple[int, ...],
    team_out: bool,
) -> bool:
    """Whether trump counts per seat fit what the tricks and the hand's end showed."""
    if any(counts[seat] for seat in voids) or not all(counts[seat] for seat in must_hold):
        return False
    if any(not (counts[team] or counts[team + 2]) for team in team_need):
        return False
    return not (team_out and (counts[0] or counts[2]) and (counts[1] or counts[3]))


_DrawT = TypeVar("_DrawT")


def _weighted(rng: random.Random, draws: list[tuple[_DrawT, int]]) -> _DrawT:
    total = sum(weight for _, weight in draws)
    pick = rng.randrange(total)
    for value, weight in draws:
        pick -= weight
        if pick < 0:
            return value
    raise AssertionError("unreachable")  # pragma: no cover
