"""Ready-made bots: usable in-process (``pitch simulate``) and behind the reference bot
folders (``pitch_sdk.reference``)."""

from __future__ import annotations

from ..bot import Bot
from .beginner import BeginnerBot
from .greedy import GreedyBot
from .random_bot import RandomBot

POLICIES: dict[str, type[Bot]] = {"random": RandomBot, "beginner": BeginnerBot, "greedy": GreedyBot}
"""Bots known by name to ``pitch simulate --policy``."""

__all__ = ["POLICIES", "BeginnerBot", "GreedyBot", "RandomBot"]
