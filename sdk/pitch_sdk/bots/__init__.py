"""Ready-made bots: usable in-process (``pitch simulate``) and behind the reference bots."""

from __future__ import annotations

from ..bot import Bot
from .greedy import GreedyBot
from .random_bot import RandomBot

POLICIES: dict[str, type[Bot]] = {"random": RandomBot, "greedy": GreedyBot}
"""Bots known by name to ``pitch simulate --policy``."""

__all__ = ["POLICIES", "GreedyBot", "RandomBot"]
