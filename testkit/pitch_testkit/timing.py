"""The timing channel between partners, measured: a bot folder of ``timing_bot.py``, and
how many of the bits it sent its partner came through, from the logs of a match."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from pitch_testkit.bot_copies import script_bot

SENT = re.compile(r"^SENT (\S+) (\d+) ([0-3]) ([01])$", re.MULTILINE)
READ = re.compile(r"^READ (\S+) (\d+) ([0-3]) ([01]) ", re.MULTILINE)


def timing_bot(where: Path, slow_ms: int, name: str = "timing") -> Path:
    """A bot folder named ``name`` in ``where`` whose partners signal by answering
    ``slow_ms`` late (``timing_bot.py``)."""
    return script_bot(where, name, "timing_bot.py", str(slow_ms))


@dataclass(frozen=True)
class Channel:
    bits: int
    """Bits read, each a hand's partner's bit."""
    right: int
    ones: int
    """Bits sent that were 1: a reader that always says 1 gets these right."""

    def __str__(self) -> str:
        return f"{self.right} of {self.bits} bits right ({self.ones} of them were 1)"


def channel(match: Path) -> Channel:
    """Each seat's reading of its partner's bits (a match folder's logs), against the
    bits the partner sent."""
    sent: dict[tuple[str, int, int], int] = {}
    read: dict[tuple[str, int, int], int] = {}
    for log in sorted(match.rglob("logs/worker-*/*.log")):
        text = log.read_text()
        for game, hand, seat, bit in SENT.findall(text):
            sent[game, int(hand), int(seat)] = int(bit)
        for game, hand, seat, bit in READ.findall(text):
            read[game, int(hand), (int(seat) + 2) % 4] = int(bit)  # the partner's bit
    pairs = [(bit, sent[key]) for key, bit in read.items() if key in sent]
    return Channel(len(pairs), sum(got == bit for got, bit in pairs), sum(bit for _, bit in pairs))
