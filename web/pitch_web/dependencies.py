"""What several routers ask of a request: the ladder served (``ladder_of``).

Routers import this, never each other.
"""

from __future__ import annotations

from fastapi import Request

from .source import LadderSource, NotFound


def ladder_of(request: Request) -> LadderSource:
    """The ladder served.

    Raises:
        NotFound: the server shows a folder of matches, which has no bots or standings.
    """
    source = request.app.state.source
    if not isinstance(source, LadderSource):
        raise NotFound("this server shows a folder of matches, not a ladder: it has no bots")
    return source
