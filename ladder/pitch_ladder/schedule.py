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

from pitch_referee.match import MatchSettings, schedule
from pitch_sdk.options import RuleOptions


def round_robin(names: list[str]) -> list[tuple[str, str]]:
    """Every pair of bots once, each pair and the list sorted by name (A is the first name).

    >>> round_robin(["greedy", "random", "alpha"])
    [('alpha', 'greedy'), ('alpha', 'random'), ('greedy', 'random')]
    """
    return list(combinations(sorted(names), 2))


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
    """The match folder relative to the ladder folder, e.g. ``matches/0003-greedy-vs-random``."""
    return f"matches/{round_number:04d}-{a}-vs-{b}"


def match_settings(
    secret: str, round_number: int, a: str, b: str, games: int, rules: dict[str, Any]
) -> dict[str, Any]:
    """``MatchSettings`` of a ladder match, as stored in the database.

    One game at a time inside a match: the ladder runs whole matches in parallel instead.

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
    )
    return settings.to_json()


def planned_games(settings: dict[str, Any]) -> int:
    """How many games a match with these settings plays (whole duplicate pairs)."""
    return len(schedule(MatchSettings.from_json(settings)))
