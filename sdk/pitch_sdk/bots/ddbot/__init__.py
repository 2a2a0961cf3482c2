"""A double-dummy search bot: ``search`` samples deals as the Monte Carlo bot does and
solves each one with every card seen (``pitch_sdk.analysis.solve``); ``bot`` chooses what
each decision compares (the Monte Carlo bot's candidates).

The reference bot ``ddbot`` runs it; the design is in docs/ddbot.md."""

from .bot import DoubleDummyBot

__all__ = ["DoubleDummyBot"]
