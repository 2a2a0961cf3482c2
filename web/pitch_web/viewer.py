"""The game viewer's routes: a game's page (``/view/{key}``) and its timeline as JSON.

The page carries the timeline inline, so the viewer draws the game without a second
request; ``/api/timeline/{key}`` serves the same timeline to scripts and live pages. The
bots' log lines for the game come along when the match kept them (``botlogs``): every
seat's from a folder of matches; from a ladder, only the operator's bots' (a bot's log is
its author's to read: they fetch theirs with their token, ``/api/game-logs/{number}``).
A record that cannot be read is the application's 422 page, which says why.

A finished game's analysis (``game_analysis``: each card's double-dummy cost, each hand's
par) is computed on request, in the background (``analysis_jobs``), and kept
(``analysis_store``): ``POST /api/analysis/{key}`` starts it, ``GET`` says how far it has
got or gives it, and the page shows it at each step and the pars in its hand table.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response

from pitch_referee.match.folder import record_game
from pitch_sdk.gamerecord import GameRecord
from pitch_sdk.record import match_folder

from .analysis_jobs import RETRY_AFTER_S, AnalysisBusy, AnalysisJobs
from .analysis_store import AnalysisStore, cache_folder
from .app import render
from .botlogs import game_log_lines
from .game_analysis import decision_steps, pars_by_hand
from .game_links import bot_links, game_links
from .hand_summary import hand_rows, with_pars
from .score_chart import score_chart
from .source import BadQuery, LadderSource, Source
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
        bots=bot_links(source, data["header"]["players"]),
        **hands_context(data, pars_by_hand(kept_analysis(request, key))),
        analysis=True,
    )


def hands_context(
    data: dict[str, Any], pars: Mapping[int, Mapping[str, Any]] | None = None
) -> dict[str, Any]:
    """What ``viewer.html`` needs for the hand table and score chart under the viewer:
    the hands of timeline ``data`` (with their ``pars``, when analysed), their chart and
    the players."""
    hands = with_pars(hand_rows(data["steps"]), pars or {})
    return {"hands": hands, "chart": score_chart(hands), "players": data["header"]["players"]}


@router.get("/api/timeline/{key:path}")
def timeline_json(request: Request, key: str) -> Response:
    """A game's timeline: the record expanded by the engine, step by step (docs/viewer.md)."""
    body = json.dumps(cached_timeline(request, key), separators=(",", ":"))
    return Response(body, media_type="application/json")


# --- analysis ------------------------------------------------------------------------------

ANALYSIS_LADDER_FOLDER = "analysis"
"""A ladder's kept analyses, under its folder."""
_analyses_made = threading.Lock()


def analysis_jobs(app: FastAPI) -> AnalysisJobs:
    """The application's analyses (made on first use): a ladder keeps them under its
    folder, a folder of matches in a cache folder of the server's (``analysis_store``)."""
    with _analyses_made:
        jobs: AnalysisJobs | None = getattr(app.state, "analyses", None)
        if jobs is None:
            source = app.state.source
            if isinstance(source, LadderSource):
                folder = source.folder / ANALYSIS_LADDER_FOLDER
            else:
                folder = cache_folder(source.folder)
            jobs = app.state.analyses = AnalysisJobs(AnalysisStore(folder))
        return jobs


def kept_analysis(request: Request, key: str) -> dict[str, Any] | None:
    """Game ``key``'s analysis, if one is kept for its record as it is now."""
    version = _record_version(request.app.state.source, key)
    return analysis_jobs(request.app).store.get(key, version)


def _analysable(request: Request, key: str) -> dict[str, Any]:
    """Game ``key``'s timeline, if its record can be analysed.

    Raises:
        NotFound: no such game.
        RecordError: its record cannot be read or walked.
        BadQuery: it does not replay to its end, or is not over.
    """
    data = cached_timeline(request, key)
    discrepancy = data["header"]["discrepancy"]
    if discrepancy:
        raise BadQuery(f"this game's record does not replay to its end: {discrepancy}")
    if not data["steps"] or data["steps"][-1]["k"] != "end":
        raise BadQuery("this game is not over: it is analysed once it ends")
    return data


def _analysis_answer(request: Request, key: str) -> dict[str, Any]:
    """How far game ``key``'s analysis has got, or the analysis once it is done."""
    version = _record_version(request.app.state.source, key)
    jobs = analysis_jobs(request.app)
    job = jobs.job(key, version)
    if job is not None:
        return job.progress()
    kept = jobs.store.get(key, version)
    return {"state": "none"} if kept is None else {"state": "done", "analysis": kept}


@router.post(
    "/api/analysis/{key:path}",
    status_code=202,
    responses={
        200: {"description": "the analysis, kept already: `{state: done, analysis}`"},
        404: {"description": "no such game"},
        422: {"description": "a record that cannot be read, replayed to its end, or is not over"},
        503: {"description": "the analyses' queue is full (Retry-After)"},
    },
)
def start_analysis(request: Request, key: str) -> JSONResponse:
    """Analyse a finished game: each card played against the best double-dummy, each
    hand's par. Answers at once, 202 with `{state, done, total}` (hands) while it is
    queued or running (asking again joins it), 200 with the analysis once kept
    (docs/viewer.md, "Analysis")."""
    data = _analysable(request, key)
    answer = _analysis_answer(request, key)
    if answer["state"] == "done":
        return JSONResponse(answer)
    if answer["state"] in ("queued", "running"):
        return JSONResponse(answer, status_code=202)
    version = _record_version(request.app.state.source, key)
    record = request.app.state.source.record(key)
    try:
        job = analysis_jobs(request.app).start(key, version, record, decision_steps(data["steps"]))
    except AnalysisBusy as error:
        return JSONResponse(
            {"detail": str(error)}, status_code=503, headers={"Retry-After": str(RETRY_AFTER_S)}
        )
    return JSONResponse(job.progress(), status_code=202)


@router.get("/api/analysis/{key:path}", responses={404: {"description": "no such game"}})
def analysis_state(request: Request, key: str) -> JSONResponse:
    """A game's analysis: `{state: none}` before one is asked for, `{state: queued or
    running, done, total}` while it runs, `{state: failed, detail}`, or `{state: done,
    analysis}` with its decisions and pars (docs/viewer.md, "Analysis")."""
    cached_timeline(request, key)  # a missing game is a 404, an unreadable record a 422
    return JSONResponse(_analysis_answer(request, key))
