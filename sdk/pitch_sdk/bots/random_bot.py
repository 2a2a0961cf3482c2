"""Uniformly random over the legal actions: the baseline every bot should beat."""

from __future__ import annotations

from ..bot import Bot


class RandomBot(Bot):
    """Every decision uniformly at random among the legal actions (the ``Bot`` defaults)."""

    name = "random"
    """The name it plays under."""
    version = "1.0"
    """Its version."""
