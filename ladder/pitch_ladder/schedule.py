"""The ladder's schedule: which versions meet in a round, with which deals, where.

Everything here is a pure function of the ladder's deal secret, the round number and
the two bot names, so an interrupted run and an uninterrupted one schedule exactly the
same matches with the same seeds, and the resumed games are the games that would have
been played. The secret is what keeps the deals from the bots: the names and rounds
are public, and a seed computed from them alone could be computed by a bot as well.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Callable
from itertools import combinations
from typing import Any

from pitch_referee.match import PARTNERSHIPS, MatchSettings, schedule
from pitch_sdk.options import RuleOptions

Pair = tuple[str, str]
"""A match of same-bot teams: bot A against bot B."""
TeamLineup = tuple[str, str, str, str]
"""A team match: bot A and its partner against bot B and its partner."""
Lineup = Pair | TeamLineup
"""Who plays a match: a pair, or a team lineup."""
Quartet = tuple[str, str, str, str]
"""Four bots, sorted by name, that play each other in all three partnerships."""


def round_robin(names: list[str]) -> list[Pair]:
    """Every pair of bots once, each pair and the list sorted by name (A is the first name).

    >>> round_robin(["greedy", "random", "alpha"])
    [('alpha', 'greedy'), ('alpha', 'random'), ('greedy', 'random')]
    """
    return list(combinations(sorted(names), 2))


def quartets(names: list[str]) -> list[Quartet]:
    """Groups of four bots, each sorted by name, such that every two bots are in one
    group together at least once: the mixed-partnership rounds play each group in all
    three partnerships, so every bot partners every other one.

    Greedy, and a pure function of the names: each group starts from the first two bots
    not yet together and adds, one at a time, the bot that brings the most new pairs
    (the first by name among equals). With 4 bots one group; with 20, 38 groups, where
    no fewer than 32 could do.

    >>> quartets(["d", "c", "b", "a"])
    [('a', 'b', 'c', 'd')]
    >>> len(quartets([str(n) for n in range(8)]))
    6
    """
    bots = sorted(names)
    if len(bots) < 4:
        return []
    apart = set(combinations(bots, 2))
    groups = []
    while apart:
        group = list(min(apart))
        while len(group) < 4:
            others = [bot for bot in bots if bot not in group]
            group.append(max(others, key=lambda bot: _new_pairs(bot, group, apart)))
        groups.append(tuple(sorted(group)))
        apart -= set(combinations(sorted(group), 2))
    return groups  # type: ignore[return-value]


def _new_pairs(bot: str, group: list[str], apart: set[Pair]) -> int:
    """How many pairs not yet together ``bot`` would join ``group`` with (ties: by name,
    ``max`` keeps the first)."""
    return sum(tuple(sorted((bot, other))) in apart for other in group)


def partnership_round(names: list[str]) -> list[TeamLineup]:
    """The team matches of a round of mixed partnerships: each of ``quartets`` in its
    three partnerships."""
    return [lineup for group in quartets(names) for lineup in team_matches(group)]


def team_matches(group: Quartet) -> list[TeamLineup]:
    """The three team matches of a group of four bots, one per way of pairing them
    (``pitch_referee.match.PARTNERSHIPS``).

    >>> team_matches(("a", "b", "c", "d"))
    [('a', 'b', 'c', 'd'), ('a', 'c', 'b', 'd'), ('a', 'd', 'b', 'c')]
    """
    return [tuple(group[n] for n in partnership) for partnership in PARTNERSHIPS]  # type: ignore[misc]


def match_seed(secret: str, round_number: int, a: str, b: str) -> int:
    """The deals' seed of the match between ``a`` and ``b`` in a round: 63 bits of an
    HMAC keyed by the ladder's ``secret`` (a signed 64-bit integer in any database)."""
    return match_seeds(secret)(round_number, a, b)


def match_seeds(secret: str) -> Callable[[int, str, str], int]:
    """``match_seed`` with the key prepared once, for scheduling many matches."""
    keyed = hmac.new(secret.encode(), digestmod=hashlib.sha256)

    def seed(round_number: int, a: str, b: str) -> int:
        mac = keyed.copy()
        mac.update(json.dumps([round_number, a, b]).encode())
        return int.from_bytes(mac.digest()[:8], "big") >> 1

    return seed


def match_folder(round_number: int, a: str, b: str) -> str:
    """The match folder relative to the ladder folder, e.g. ``matches/0003-greedy-vs-random``
    (a team is ``alpha+beta``: bot names cannot hold a ``+``)."""
    return f"matches/{round_number:04d}-{a}-vs-{b}"


def lineup_seed(
    seed_of: Callable[[int, str, str], int], round_number: int, lineup: Pair | TeamLineup
) -> int:
    """The seed of a match of ``lineup`` (``match_seeds``): a pair's own, or one shared by
    the three team matches of a quartet, so that its partnerships play the same deals."""
    if len(lineup) == 2:
        return seed_of(round_number, *lineup)
    return seed_of(round_number, "+".join(sorted(lineup)), "partnerships")


def lineup_folder(round_number: int, lineup: Pair | TeamLineup) -> str:
    """``match_folder`` of a pair or a team match."""
    if len(lineup) == 2:
        return match_folder(round_number, *lineup)
    a, a_partner, b, b_partner = lineup
    return match_folder(round_number, f"{a}+{a_partner}", f"{b}+{b_partner}")


def match_settings(
    secret: str,
    round_number: int,
    a: str,
    b: str,
    games: int,
    rules: dict[str, Any],
    timing_grid_ms: int = 0,
) -> dict[str, Any]:
    """``MatchSettings`` of a ladder match, as stored in the database.

    One game at a time inside a match: the ladder runs whole matches in parallel instead.
    ``timing_grid_ms`` is stored only when set, so that the settings of matches without
    one read as they did before it existed.

    Raises:
        pitch_referee.match.MatchError: ``games`` below 1 (a ``ValueError``).
        ValueError: an unknown rule or a bad value.
    """
    settings = MatchSettings(
        games=games,
        seed=match_seed(secret, round_number, a, b),
        duplicate=True,
        concurrency=1,
        rules=RuleOptions.from_dict(rules),
        timing_grid_ms=timing_grid_ms,
    )
    stored = settings.to_json()
    if not timing_grid_ms:
        del stored["timing_grid_ms"]
    return stored


def planned_games(settings: dict[str, Any]) -> int:
    """How many games a match with these settings plays (whole duplicate pairs)."""
    return len(schedule(MatchSettings.from_json(settings)))
