"""Live journals over the network: a cluster worker's games watched from the owner's viewer.

A worker on another machine cannot write into the owner's match folder. So a game played
on the cluster publishes its journal lines (the lines ``JournalFeed`` would write, the
same format) as Dask events: the worker sends them, a few times a second per game, on the
scheduler's event topic of its owner (``Worker.log_event``), and the owner's
``JournalReceiver``, subscribed to that topic, writes them into ``<match>/live/`` where
its viewer reads journals. Closing the feed (the game's record is written, or the game
abandoned) removes the owner's journal, as for a local game.

The owner decides where a journal goes: a worker names its match by the token the owner
gave it and its game by the game's id, which must look like one; nothing a worker sends
names a path. A worker that dies leaves its journals on the owner's disk, silent, so that
the viewer stops listing them after ``max_silence_s`` (``live.writer_gone``), and the
match's ``sweep`` removes them.

Imports Dask: only cluster code imports this module.
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from distributed import Client, get_worker

from pitch_referee.live import (
    JOURNAL_SUFFIX,
    JournalPublisher,
    journal_header,
    journal_line,
    open_journal,
)
from pitch_sdk.table import Started, TableEvent

SEND_EVERY_S = 0.25
"""How long a game's lines may wait on the worker before they are sent: a few messages a
second per game, however fast it is played, keep the scheduler's load per game small."""
GAME_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
"""What a game id looks like (``pair-00003-a``): anything else is dropped, never a path."""


@dataclass(frozen=True)
class NetworkJournals:
    """A match's journals, published by the worker that plays its games (a ``Publisher``).

    Picklable and hashable: it travels to the workers inside each task."""

    topic: str
    match: str
    """The owner's token for the match: the receiver maps it to the match's folder."""
    max_silence_s: float

    def feed(self, game_id: str) -> NetworkFeed:
        return NetworkFeed(self, game_id)


class NetworkFeed:
    """One game's journal lines, sent to the owner in batches (a ``Feed``).

    As a ``JournalFeed``, watching never stops a game: a message that cannot be sent is
    dropped, and the game goes on."""

    def __init__(self, journals: NetworkJournals, game_id: str) -> None:
        self.journals = journals
        self.game_id = game_id
        self._lines: list[bytes] = []
        self._started = False
        self._sent_at = 0.0

    def __call__(self, event: TableEvent) -> None:
        if not self._started:
            if not isinstance(event, Started):
                return
            self._started = True
            self._lines.append(journal_header(event, self.journals.max_silence_s))
            self._send(first=True)
            return
        self._lines.append(journal_line(event))
        if time.monotonic() - self._sent_at >= SEND_EVERY_S:
            self._send()

    def close(self) -> None:
        if self._started:
            self._send(closed=True)
            self._started = False

    def _send(self, first: bool = False, closed: bool = False) -> None:
        message = {
            "match": self.journals.match,
            "game": self.game_id,
            "data": b"".join(self._lines),
            "first": first,
            "closed": closed,
        }
        self._lines.clear()
        self._sent_at = time.monotonic()
        with contextlib.suppress(Exception):  # no worker here, or it is shutting down
            get_worker().log_event(self.journals.topic, message)


@dataclass
class JournalReceiver:
    """The owner's side: writes the journals its workers send into its match folders.

    One per client, shared by every match the owner plays on the cluster; ``register``
    gives a match the ``NetworkJournals`` its tasks carry, ``unregister`` ends it.
    """

    client: Client
    topic: str = field(default_factory=lambda: f"pitch-live-{uuid.uuid4().hex[:12]}")
    _matches: dict[str, JournalPublisher] = field(default_factory=dict)
    _open: dict[tuple[str, str], tuple[int, Path]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.client.subscribe_topic(self.topic, self._receive)

    def register(self, journals: JournalPublisher) -> NetworkJournals:
        """The match whose journals go to ``journals.live_dir``, as its tasks name it."""
        token = uuid.uuid4().hex[:12]
        with self._lock:
            self._matches[token] = journals
        return NetworkJournals(self.topic, token, journals.max_silence_s)

    def unregister(self, journals: NetworkJournals) -> None:
        """The match is over here: later lines of its games are dropped, its open journals
        closed and left for the match's ``sweep`` (their writer is silent from now on)."""
        with self._lock:
            self._matches.pop(journals.match, None)
            for key in [key for key in self._open if key[0] == journals.match]:
                os.close(self._open.pop(key)[0])

    def _receive(self, event: tuple[float, Any]) -> None:
        message = event[1]
        with self._lock, contextlib.suppress(OSError, KeyError, TypeError, ValueError):
            self._write(message["match"], message["game"], message)

    def _write(self, match: str, game: str, message: dict[str, Any]) -> None:
        journals = self._matches.get(match)
        if journals is None or not isinstance(game, str) or not GAME_ID.match(game):
            return
        key = (match, game)
        if message["first"]:
            if key in self._open:  # the game played again (its worker lost): anew
                os.close(self._open.pop(key)[0])
            path = journals.live_dir / f"{game}{JOURNAL_SUFFIX}"
            self._open[key] = (open_journal(path), path)
        if key not in self._open:
            return
        fd, path = self._open[key]
        os.write(fd, bytes(message["data"]))
        if message["closed"]:
            os.close(self._open.pop(key)[0])
            path.unlink(missing_ok=True)
