"""The site's pages as Jinja2 renders them (``templates/``): ``render`` is how every
router and the error handlers answer with HTML.

Imports nothing of the application, so that routers never reach back into ``app``.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

templates = Jinja2Templates(directory=Path(__file__).parent / "templates")


def render(
    request: Request, template: str, status: int = 200, /, **context: object
) -> HTMLResponse:
    """A page of the site, with the source's title available to every template."""
    context.setdefault("title", request.app.state.source.title)
    return templates.TemplateResponse(request, template, context, status_code=status)
