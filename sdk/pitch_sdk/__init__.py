"""Pitch Arena SDK: cards, the rules engine, player views, and the bot SDK."""
