"""The seed a bot gets at game start replays with the secret and tells nothing without it."""

from __future__ import annotations

from pitch_referee.seeds import BOT_SEED_HEX_DIGITS, bot_seed
from pitch_sdk.deck import deck_for


def test_bot_seed_replays_with_the_same_secret_game_and_seat():
    assert bot_seed("5", "pair-00000-a", "5.0", 1) == bot_seed(b"5", "pair-00000-a", "5.0", 1)


def test_bot_seed_changes_with_the_secret_the_game_and_the_seat():
    seeds = {
        bot_seed("5", "pair-00000-a", "5.0", 1),
        bot_seed("6", "pair-00000-a", "5.0", 1),
        bot_seed("5", "pair-00000-b", "5.0", 1),
        bot_seed("5", "pair-00000-a", "5.1", 1),
        bot_seed("5", "pair-00000-a", "5.0", 2),
    }
    assert len(seeds) == 5


def test_bot_seed_is_hex_and_neither_the_game_seed_nor_deals_its_decks():
    game_seed = "5.0"
    seeds = [bot_seed("5", "pair-00000-a", game_seed, seat) for seat in range(4)]
    for seat, seed in enumerate(seeds):
        assert len(seed) == BOT_SEED_HEX_DIGITS and int(seed, 16) >= 0
        assert seed not in (game_seed, f"{game_seed}:{seat}")
        assert deck_for(seed, 1) != deck_for(game_seed, 1)
