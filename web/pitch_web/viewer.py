"""The game viewer's routes: a game's page (``/view/{key}``) and its timeline as JSON.

The page carries the timeline inline, so the viewer draws the game without a second
request; ``/api/timeline/{key}`` serves the same timeline to scripts and live pages. The
bots' log lines for the game come along when the match kept them (``botlogs``): every
seat's from a folder of matches; from a ladder, only the operator's bots' (a bot's log is
its author's to read: they fetch theirs with their token, ``/api/game-logs/{number}``).
A record that cannot be read is the application's 422 page, which says why.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from pitch_referee.match.folder import record_game
from pitch_sdk.record import match_folder

from .app import render
from .botlogs import game_log_lines
from .game_links import game_links
from .hand_summary import hand_rows
from .score_chart import score_chart
from .source import LadderSource, Source
from .standalone import script_json
from .timeline import timeline

if TYPE_CHECKING:
    from pitch_ladder.models import Author

router = APIRouter()

CACHED_TIMELINES = 8
"""Timelines kept per application: a reload or a shared link of a recent game is served
without replaying it again (a 200-hand game takes 0.2-0.5 s to expand)."""


def cached_timeline(request: Request, key: str, author: Author | None = None) -> dict[str, Any]:
    """``game_timeline``, kept while the record file is unchanged (ladder games never change).

    Raises:
        NotFound: no such game.
        RecordError: its record cannot be read or walked.
    """
    source = request.app.state.source
    cache: OrderedDict[tuple[str, object, int | None], dict[str, Any]] = getattr(
        request.app.state, "viewer_timelines", OrderedDict()
    )
    request.app.state.viewer_timelines = cache
    version = (key, _record_version(source, key), author and author.id)
    if version in cache:
        cache.move_to_end(version)
        return cache[version]
    data = cache[version] = game_timeline(source, key, author)
    while len(cache) > CACHED_TIMELINES:
        cache.popitem(last=False)
    return data


def _record_version(source: Source, key: str) -> object:
    """What changes when a folder's record file is rewritten; a ladder game is fixed."""
    if isinstance(source, LadderSource):
        return None
    try:
        stat = (source.folder / key).stat()
    except OSError:
        return None
    return (stat.st_mtime_ns, stat.st_size)


def game_timeline(source: Source, key: str, author: Author | None = None) -> dict[str, Any]:
    """The timeline of the source's game ``key``, with the log lines of the seats whose
    bots' logs ``author`` (``None``: anyone) may read.

    Raises:
        NotFound: no such game.
        RecordError: its record cannot be read or walked.
    """
    number = None
    if isinstance(source, LadderSource):
        info, record = source.game(key)
        game_id, path, number = info.game_id, source.folder / info.record_path, info.id
    else:
        record = source.record(key)
        path = source.folder / key
        game_id = record_game(path)
    logs = visible_logs(source, record, game_id, match_folder(path), author, number)
    return timeline(record, game=key, logs=logs)


def visible_logs(
    source: Source,
    record: dict[str, Any],
    game_id: str,
    match_root: Path,
    author: Author | None = None,
    number: int | None = None,
) -> list[dict[str, Any]]:
    """The log lines of game ``game_id`` (a ladder's game ``number``, if stored) that
    ``author`` (``None``: anyone) may read: every seat's from a folder of matches; from a
    ladder, those of the bots in its seats that are the author's (``log_seats``)."""
    seats: set[int] | range = range(4)
    if isinstance(source, LadderSource):
        seats = source.log_seats(record, author, number)
    return game_log_lines(record, game_id, match_root, source.folder, seats)


@router.get("/view/{key:path}", response_class=HTMLResponse, include_in_schema=False)
def view_game(request: Request, key: str) -> HTMLResponse:
    """A game's viewer page, with its timeline inline."""
    data = cached_timeline(request, key)
    source = request.app.state.source
    return render(
        request,
        "viewer.html",
        game=key,
        timeline_json=script_json(data),
        own_logs=isinstance(source, LadderSource),
        links=game_links(source, key),
        **hands_context(data),
    )


def hands_context(data: dict[str, Any]) -> dict[str, Any]:
    """What ``viewer.html`` needs for the hand table and score chart under the viewer:
    the hands of timeline ``data``, their chart and the players."""
    hands = hand_rows(data["steps"])
    return {"hands": hands, "chart": score_chart(hands), "players": data["header"]["players"]}


@router.get("/api/timeline/{key:path}")
def timeline_json(request: Request, key: str) -> Response:
    """A game's timeline: the record expanded by the engine, step by step (docs/viewer.md)."""
    body = json.dumps(cached_timeline(request, key), separators=(",", ":"))
    return Response(body, media_type="application/json")
