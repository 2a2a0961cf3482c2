"""The reference bots' fixed Elo scale (``scale.toml``, measured once by
bench/reference_scale.py) and the league each one opens when beaten."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

SCALE_FILE = Path(__file__).resolve().parent / "scale.toml"
"""The scale as measured once by ``bench/reference_scale.py`` (random at 0)."""

LEAGUES = {
    "random": "Bronze",
    "beginner": "Silver",
    "greedy": "Gold",
    "montecarlo-fast": "Diamond",
    "montecarlo": "Legend",
}
"""The league a bot reaches by beating each reference bot (and every weaker one)."""
FIRST_LEAGUE = "Wood"
"""The league of a bot that has beaten none of them."""


@dataclass(frozen=True)
class Rung:
    """One reference bot on the scale: its rating, its 95% interval, its league."""

    name: str
    """The name of the reference bot (``@name``)."""
    rating: float
    """Its Elo on the fixed scale."""
    low: float
    """The low end of its 95% interval."""
    high: float
    """The high end of its 95% interval."""
    league: str
    """The league a bot reaches by beating it."""


def rungs() -> list[Rung]:
    """The reference bots on the scale, weakest first (the anchor, random, at 0)."""
    table = tomllib.loads(SCALE_FILE.read_text())
    found = [
        Rung(name, row["rating"], row["low"], row["high"], LEAGUES[name])
        for name, row in table.items()
    ]
    return sorted(found, key=lambda rung: rung.rating)


__all__ = ["FIRST_LEAGUE", "LEAGUES", "SCALE_FILE", "Rung", "rungs"]
