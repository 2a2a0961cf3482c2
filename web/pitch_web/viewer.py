"""The game viewer's routes: a game's page (``/view/{key}``) and its timeline as JSON.

The page carries the timeline inline, so the viewer draws the game without a second
request; ``/api/timeline/{key}`` serves the same timeline to scripts and live pages. A
record that cannot be read is the application's 422 page, which says why.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from .app import render
from .standalone import script_json
from .timeline import timeline

router = APIRouter()


def game_timeline(request: Request, key: str) -> dict[str, Any]:
    """The timeline of the source's game ``key``.

    Raises:
        NotFound: no such game.
        RecordError: its record cannot be read or walked.
    """
    return timeline(request.app.state.source.record(key), game=key)


@router.get("/view/{key:path}", response_class=HTMLResponse, include_in_schema=False)
def view_game(request: Request, key: str) -> HTMLResponse:
    """A game's viewer page, with its timeline inline."""
    data = game_timeline(request, key)
    return render(request, "viewer.html", game=key, timeline_json=script_json(data))


@router.get("/api/timeline/{key:path}")
def timeline_json(request: Request, key: str) -> Response:
    """A game's timeline: the record expanded by the engine, step by step (docs/viewer.md)."""
    body = json.dumps(game_timeline(request, key), separators=(",", ":"))
    return Response(body, media_type="application/json")
