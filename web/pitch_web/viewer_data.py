"""What a game's viewer shows, for the routers that show it (``routes.viewer``,
``routes.live``), the comparison and the service: a game's timeline, kept while its
record is unchanged; the bots' log lines a reader may see; the hand table and score
chart under the board.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi import Request

from pitch_referee.match.folder import record_game
from pitch_sdk.gamerecord import GameRecord
from pitch_sdk.record import match_folder

from .botlogs import game_log_lines
from .hand_summary import hand_rows, with_pars
from .score_chart import score_chart
from .source import LadderSource, Source
from .timeline import timeline

if TYPE_CHECKING:
    from pitch_ladder.models import Author

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
    cache: OrderedDict[tuple[str, object, int | None], dict[str, Any]] | None = getattr(
        request.app.state, "viewer_timelines", None
    )
    if cache is None:
        cache = request.app.state.viewer_timelines = OrderedDict()
    version = (key, record_version(source, key), author.id if author else None)
    if version in cache:
        cache.move_to_end(version)
        return cache[version]
    data = cache[version] = game_timeline(source, key, author)
    while len(cache) > CACHED_TIMELINES:
        cache.popitem(last=False)
    return data


def record_version(source: Source, key: str) -> object:
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
    record: GameRecord,
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


def hands_context(
    data: dict[str, Any], pars: Mapping[int, Mapping[str, Any]] | None = None
) -> dict[str, Any]:
    """What ``viewer.html`` needs for the hand table and score chart under the viewer:
    the hands of timeline ``data`` (with their ``pars``, when analysed), their chart and
    the players."""
    hands = with_pars(hand_rows(data["steps"]), pars or {})
    return {"hands": hands, "chart": score_chart(hands), "players": data["header"]["players"]}
