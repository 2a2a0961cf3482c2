"""Games being played now: their list, and each one streamed to its viewer as it goes.

The referee journals every game it plays (``pitch_referee.live``) in its match folder.
This router finds those journals under the folder served and serves:

- ``GET /api/live`` and ``GET /live``: the games being played, as JSON and as a page
  that refreshes itself;
- ``GET /live/{key}``: a game's viewer in follow mode (``static/live.js``);
- ``GET /api/live/{key}/events``: server-sent events, the timeline so far and then each
  new step as the journal grows, then the end (docs/live.md).

A live game's key is its match folder, relative to the folder served, then its game id
(``matches/0003-greedy-vs-random/pair-00001-a``; only the game id when the folder served
is the match folder). A game that has finished meanwhile is shown from its record.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response, StreamingResponse
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from pitch_referee.live import (
    JOURNAL_SUFFIX,
    LIVE_DIR,
    SEARCH_DEPTH,
    Journal,
    JournalError,
    JournalReader,
    live_journals,
    writer_gone,
)
from pitch_referee.match.folder import RECORD_SUFFIXES
from pitch_sdk.gamerecord import GameRecord, RecordError
from pitch_sdk.record import load_record

from ..hand_summary import HandRow, hand_rows
from ..live_hands import hands_update
from ..params import After
from ..source import NotFound, Source
from ..standalone import script_json
from ..templates import render
from ..timeline import timeline
from ..viewer_data import hands_context, visible_logs

router = APIRouter()
log = logging.getLogger("pitch_web.live")

POLL_S = 0.25
"""How often a stream looks whether its journal grew."""
BACKOFF = 3.0
"""A stream waits at least this many times as long as its last poll took (the engine
replays the whole record at each new step: 90 ms at 145 hands), so that a viewer of a
long, fast game costs a server at most a quarter of a core."""
MAX_WAIT_S = 2.0
"""The longest wait between polls, however slow the last one was (a long game's first
replay on a busy server), so that a game's end, or its run's death, shows within
seconds."""
KEEPALIVE_S = 15.0
"""A comment line after this much silence, so proxies keep the stream and a closed
browser is noticed."""
RECORD_WAIT_S = 3.0
"""How long a stream waits, after the game's end, for its record to be written."""


class LiveGameOut(BaseModel):
    """A game being played now."""

    key: str
    match: str
    """The match folder, relative to the folder served ("" for the folder itself)."""
    game: str
    players: list[str]
    """The bots' names, by seat."""
    hand: int
    """The hand being played (0 before the first deal)."""
    score: list[int]
    """The score after the last hand scored, team 0 first."""
    started: str
    """When the game started (ISO 8601, UTC)."""
    url: str
    events: str


@dataclass(frozen=True)
class LiveKey:
    """Where a live game's files are, from its key."""

    key: str
    match_root: Path
    game: str

    @property
    def journal(self) -> Path:
        return self.match_root / LIVE_DIR / f"{self.game}{JOURNAL_SUFFIX}"

    def record_path(self) -> Path | None:
        """The game's finished record, if it is written."""
        for suffix in RECORD_SUFFIXES:
            path = self.match_root / "games" / f"{self.game}{suffix}"
            if path.is_file():
                return path
        return None


def live_key(source: Source, key: str) -> LiveKey:
    """The files of live game ``key`` under the folder served.

    Raises:
        NotFound: ``key`` cannot name a live game.
    """
    parts = key.split("/")
    if len(parts) > SEARCH_DEPTH + 1 or any(part in ("", ".", "..") for part in parts):
        raise NotFound(f"no live game {key}")
    match_root = source.folder.joinpath(*parts[:-1])
    if "\x00" in key or not match_root.resolve().is_relative_to(source.folder.resolve()):
        raise NotFound(f"no live game {key}")
    return LiveKey(key, match_root, parts[-1])


def key_of(folder: Path, journal: Journal) -> str:
    match = journal.match_root.relative_to(folder).as_posix()
    return journal.game if match == "." else f"{match}/{journal.game}"


def live_games(folder: Path) -> list[LiveGameOut]:
    games = []
    for journal in live_journals(folder):
        key = key_of(folder, journal)
        match = journal.match_root.relative_to(folder).as_posix()
        games.append(
            LiveGameOut(
                key=key,
                match="" if match == "." else match,
                game=journal.game,
                players=[str(player.get("name", "?")) for player in journal.players],
                hand=journal.hand,
                score=journal.scores,
                started=datetime.fromtimestamp(journal.started, UTC).isoformat(timespec="seconds"),
                url=f"/live/{quote(key)}",
                events=f"/api/live/{quote(key)}/events",
            )
        )
    return games


@router.get("/api/live", response_model=list[LiveGameOut])
def api_live(request: Request) -> list[LiveGameOut]:
    """The games being played now, oldest first."""
    return live_games(request.app.state.source.folder)


@router.get("/live", response_class=HTMLResponse, include_in_schema=False)
def live_page(request: Request) -> HTMLResponse:
    """The games being played now; the page refreshes its list (``static/live.js``)."""
    return render(request, "live.html", games=live_games(request.app.state.source.folder))


@router.get("/live/{key:path}", include_in_schema=False)
def live_view(request: Request, key: str) -> Response:
    """A live game's viewer, following the game; a finished game's viewer once it is over."""
    source = request.app.state.source
    live = live_key(source, key)
    reader = JournalReader(live.journal)
    try:
        reader.read()
        header = reader.header
        going_on = (
            header is not None and not reader.finished and not writer_gone(header, live.journal)
        )
    except (FileNotFoundError, JournalError):
        going_on = False
    if not going_on:
        return _finished_game(request, live)
    data = live_timeline(source, live, reader.record)
    return render(
        request,
        "live_view.html",
        game=key,
        timeline_json=script_json(data),
        events=f"/api/live/{quote(key)}/events",
        after=len(data["steps"]),
        live=True,
        **hands_context(data),
    )


def _finished_game(request: Request, live: LiveKey) -> Response:
    """The finished game's viewer page: its ``/view`` page when the source names its
    record so, else the viewer drawn from the record in the match folder.

    Raises:
        NotFound: the game is not being played and left no record.
    """
    url = _view_url(request.app.state.source, live)
    if url is not None:  # at its last step: the page was opened to see the game's newest
        return RedirectResponse(f"{url}#step=end", status_code=303)
    path = live.record_path()
    if path is None:
        raise NotFound(f"no live game {live.key}: it is not being played")
    data = live_timeline(request.app.state.source, live, load_record(path))
    return render(
        request,
        "viewer.html",
        game=live.key,
        timeline_json=script_json(data),
        at_end=True,
        **hands_context(data),
    )


def live_timeline(source: Source, live: LiveKey, record: GameRecord) -> dict[str, Any]:
    """The timeline of a live game's record so far, with the bots' lines that anyone may
    read (``viewer_data.visible_logs``): each at its step as the log's index says."""
    logs = visible_logs(source, record, live.game, live.match_root)
    return timeline(record, game=live.key, logs=logs)


def _view_url(source: Source, live: LiveKey) -> str | None:
    """``/view/{key}`` of the game's record, if the source serves the record by its path
    (a folder of matches; a ladder names its games by number once they are stored)."""
    path = live.record_path()
    if path is None:
        return None
    key = path.relative_to(source.folder).as_posix()
    try:
        source.record(key)
    except (NotFound, RecordError):
        return None
    return f"/view/{quote(key)}"


@router.get("/api/live/{key:path}/events", response_class=StreamingResponse)
def live_events(request: Request, key: str, after: After = 0) -> StreamingResponse:
    """Server-sent events of a game: ``timeline`` (the header and the steps so far, from
    step ``after``), ``steps`` as the game goes on, then ``end`` (the finished header and
    the game's ``/view`` address, if any) or ``gone`` (the game stopped unfinished). Each
    event's id counts the steps sent, so a reconnecting browser resumes where it was."""
    live = live_key(request.app.state.source, key)
    if live.record_path() is None:
        try:  # a journal whose run died streams what it holds, then ``gone``: a browser
            # that connects just after the death is told so, not refused
            Journal.read(live.journal)
        except (FileNotFoundError, JournalError):
            raise NotFound(f"no live game {key}") from None
    resumed = request.headers.get("last-event-id", "")
    start = int(resumed) if resumed.isdigit() else max(0, after)
    follower = _Follower(request.app.state.source, live, start)
    return StreamingResponse(
        _stream(request, follower),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


async def _stream(request: Request, follower: _Follower) -> AsyncIterator[str]:
    quiet_since = time.monotonic()
    while True:
        started = time.monotonic()
        events = await run_in_threadpool(follower.poll)
        busy = time.monotonic() - started
        for event in events:
            yield event
        if follower.done:
            return
        if events:
            quiet_since = time.monotonic()
        elif time.monotonic() - quiet_since > KEEPALIVE_S:
            yield ": still playing\n\n"
            quiet_since = time.monotonic()
        if await request.is_disconnected():
            return
        await asyncio.sleep(min(MAX_WAIT_S, max(POLL_S, BACKOFF * busy)))


class _SharedTimelines:
    """The newest timelines of the games being followed, shared by their streams: a game
    with many viewers is replayed once per new step, not once per viewer."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[tuple[Any, ...], dict[str, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, at: tuple[Any, ...], compute: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        with self._lock:
            if at in self._items:
                self._items.move_to_end(at)
                return self._items[at]
        data = compute()  # outside the lock: streams of other games go on meanwhile
        with self._lock:
            self._items[at] = data
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return data


_timelines = _SharedTimelines(size=32)


class _Follower:
    """One stream's view of one game: what it has sent, and what is new in the journal."""

    def __init__(self, source: Source, live: LiveKey, after: int) -> None:
        self.source = source
        self.live = live
        self.sent = after
        self.started = False
        self.done = False
        self.reader = JournalReader(live.journal)
        self.ended_at: float | None = None
        self.header: dict[str, Any] = {}
        self.logs: list[dict[str, Any]] = []
        """The log lines last sent: an event carries them again only when they change."""
        self.hands: list[HandRow] | None = None
        """The hand table's rows the page shows (None: those of its first ``after``
        steps, drawn with the page)."""

    def poll(self) -> list[str]:
        """The events to send now (file reads and the engine's replay: run on a thread)."""
        try:
            grew = self.reader.read()
        except FileNotFoundError:
            return self._from_record()
        except JournalError as error:
            log.warning("live game %s: %s", self.live.key, error)
            return self._gone(
                "The game was started again, or its journal cannot be read: reload the page."
            )
        if self.reader.header is None:
            return []
        header = self.reader.header
        at = (str(self.live.journal), header["pid"], header["started"], self.reader.lines)
        events = self._steps(self.reader.record, at) if grew or not self.started else []
        if self.reader.finished:
            return events + self._end()
        if not grew and writer_gone(self.reader.header, self.live.journal):
            return events + self._gone("The game stopped before its end: its run was killed.")
        return events

    def _steps(self, record: GameRecord, at: tuple[Any, ...] | None = None) -> list[str]:
        """The steps not sent yet: all of them, with the header, in the first event.

        ``at`` names this moment of this game for the streams' shared timelines (None: a
        finished record, read once)."""
        compute = functools.partial(live_timeline, self.source, self.live, record)
        data = compute() if at is None else _timelines.get(at, compute)
        self.header, steps = data["header"], data["steps"]
        news = {} if data["logs"] == self.logs else {"logs": data["logs"]}
        self.logs = data["logs"]
        news |= self._hands(steps)
        if not self.started:
            self.started = True
            payload = {
                "header": self.header,
                "from": self.sent,
                "steps": steps[self.sent :],
                "to_act": self.header["to_act"],
            }
            self.sent = max(self.sent, len(steps))
            return [_event("timeline", payload | news, self.sent)]
        if len(steps) <= self.sent and not news:
            return []
        payload = {"from": self.sent, "steps": steps[self.sent :], "to_act": self.header["to_act"]}
        self.sent = max(self.sent, len(steps))
        return [_event("steps", payload | news, self.sent)]

    def _hands(self, steps: list[dict[str, Any]]) -> dict[str, Any]:
        """``{"hands": update}`` when the page's hand table or score chart is behind the
        steps (``live_hands``), else nothing."""
        players = self.header["players"]
        if self.hands is None:
            self.hands = hand_rows(steps[: self.sent])
        update, self.hands = hands_update(steps, players, self.hands)
        return {} if update is None else {"hands": update}

    def _end(self) -> list[str]:
        """The end event, once the record is written (or ``RECORD_WAIT_S`` has passed)."""
        if self.live.record_path() is None:
            self.ended_at = self.ended_at or time.monotonic()
            if time.monotonic() - self.ended_at < RECORD_WAIT_S:
                return []
        self.done = True
        view = _view_url(self.source, self.live)
        return [_event("end", {"header": self.header, "view": view}, self.sent)]

    def _from_record(self) -> list[str]:
        """The journal is gone: the game finished (its record tells the rest) or stopped."""
        path = self.live.record_path()
        if path is None:
            return self._gone("The game stopped before its end: its match was interrupted.")
        try:
            events = self._steps(load_record(path))
        except RecordError as error:
            log.warning("live game %s: %s", self.live.key, error)
            return self._gone("The game is over, but its record cannot be read.")
        return events + self._end()

    def _gone(self, message: str) -> list[str]:
        self.done = True
        return [_event("gone", {"message": message}, self.sent)]


def _event(name: str, data: dict[str, Any], sent: int) -> str:
    """One server-sent event; its id is the number of steps the browser then has."""
    return f"event: {name}\nid: {sent}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"
