"""The duplicate-memory attack for end-to-end tests: a bot folder of ``memory_bot.py``,
and what its predictions of game b's hands were worth, checked against the records."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from pitch_sdk.cards import JOKERS_MASK, CardMask
from pitch_sdk.record import load_record
from pitch_sdk.replay import Dealt, replay
from pitch_sdk.rules import CARDS_DEALT
from pitch_testkit.bot_copies import script_bot

PREDICT = re.compile(r"^PREDICT (\S+) (\d+) ([0-3]) (\d+) (memory|guess)$", re.MULTILINE)


def memory_bot(where: Path, name: str = "memory") -> Path:
    """A bot folder named ``name`` in ``where`` whose bot is ``memory_bot.py``."""
    return script_bot(where, name, "memory_bot.py")


@dataclass(frozen=True)
class Predictions:
    made: int
    """Predictions of an opponent's nine dealt cards, one per b game's hand and process."""
    from_memory: int
    """Of those, made from game a of the same deal (the process played it)."""
    hits: int
    """Predictions that named the seat's nine dealt cards (chance: one in about 900 million)."""
    cards_right: int
    """Cards named that the seat was dealt, over all predictions (chance: about 1.8 of 9)."""


def predictions(match: Path) -> Predictions:
    """Every prediction in the bot logs under ``match`` (a match folder, or a folder of
    them), checked against the dealt hands in its game's record."""
    made = memory = hits = right = 0
    for log in sorted(match.rglob("logs/worker-*/*.log")):
        root = log.parents[2]  # <match>/logs/worker-N/<slot>-<bot>.log
        for game, hand, seat, cards, source in PREDICT.findall(log.read_text()):
            held = _dealt(root, game)[int(hand)][int(seat)]
            made += 1
            memory += source == "memory"
            right += (same := _cards_in_common(held, int(cards)))
            hits += same == CARDS_DEALT
    return Predictions(made, memory, hits, right)


def _cards_in_common(first: CardMask, second: CardMask) -> int:
    """The cards two hands share, the two jokers told apart by neither (they are alike,
    and a record names both ``JK``)."""
    jokers = min((first & JOKERS_MASK).bit_count(), (second & JOKERS_MASK).bit_count())
    return (first & second & ~JOKERS_MASK).bit_count() + jokers


@functools.cache
def _dealt(root: Path, game: str) -> dict[int, list[int]]:
    """The dealt hands of ``game`` in the match folder ``root``, by hand number."""
    (path,) = root.glob(f"games/{game}.json*")
    return {
        step.hand: list(step.state.hands)
        for step in replay(load_record(path))
        if isinstance(step, Dealt)
    }
