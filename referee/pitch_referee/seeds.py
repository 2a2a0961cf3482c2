"""The seed each bot gets at the start of a game: reproducible, and opaque to the bot.

A bot reseeds its own randomness with it, so that seeded bots replay a match exactly.
Sending the game seed itself (or anything computed from it in the open) would let a bot
rebuild every deck with ``pitch_sdk.deck.deck_for``. An HMAC keyed by a secret the
referee keeps is just as reproducible (the same secret, game and seat give the same
seed) and says nothing about the deals to whoever lacks the secret.
"""

from __future__ import annotations

import hashlib
import hmac
import json

BOT_SEED_HEX_DIGITS = 32
"""128 bits: plenty for a bot's random generator, and nothing to guess from."""


def bot_seed(secret: bytes | str, game_id: str, game_seed: int | str, seat: int) -> str:
    """The seed for the bot in ``seat`` of a game, in hex.

    >>> bot_seed(b"k", "g1", 7, 0) == bot_seed("k", "g1", "7", 0) != bot_seed(b"k", "g1", 7, 1)
    True
    """
    key = secret.encode() if isinstance(secret, str) else secret
    message = json.dumps([game_id, str(game_seed), seat]).encode()  # unambiguous fields
    return hmac.new(key, message, hashlib.sha256).hexdigest()[:BOT_SEED_HEX_DIGITS]
