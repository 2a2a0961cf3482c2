"""The web application: one FastAPI app over one ``Source``.

Each part of the site is a router in its own module under ``routes/``: ``viewer`` (a
game's page and its timeline), ``live`` (games being played now, streamed), ``pages``
(the ladder's and the folder's HTML pages) and ``api`` (the same data as JSON under
``/api``); this module only makes the app and includes them, and nothing imports it but
the package's face (FastAPI's "Bigger Applications" layout). Errors never
reach a browser as a traceback: a missing thing is a 404 page (or JSON under ``/api``),
anything else a one-line 500, and no error message names a server path. Every answer
carries the security headers (``security``); ``/docs`` is Swagger UI from the installed
``swagger_ui_bundle`` package, started by ``static/docs.js``: nothing comes from the
network, and nothing inline runs.
"""

from __future__ import annotations

import logging
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException
from swagger_ui_bundle import swagger_ui_path

from pitch_sdk.gamerecord import RecordError

from .models import ErrorOut
from .routes import api, live, pages, viewer
from .security import SecurityHeaders, public_message
from .source import BadQuery, NotFound, Source
from .templates import render

HERE = Path(__file__).parent
log = logging.getLogger("pitch_web")


def create_app(source: Source) -> FastAPI:
    """The application serving ``source``; ``app.state.source`` is how routes reach it."""
    app = FastAPI(
        title="Pitch Arena",
        description="Games, live games and standings of a Pitch Arena ladder or match folder.",
        docs_url=None,  # FastAPI's page loads Swagger UI from a CDN, started inline
        redoc_url=None,
        openapi_url="/api/openapi.json",
    )
    app.state.source = source
    app.openapi = lambda: described_errors(app)  # type: ignore[method-assign]
    # A 200-hand game's viewer page is 640 KB, 66 KB gzipped; event streams stay unbuffered
    # (Starlette never compresses text/event-stream).
    app.add_middleware(GZipMiddleware, minimum_size=1024)
    # outermost, around Starlette's error middleware, so that a 500 carries the headers too
    build_stack = app.build_middleware_stack
    app.build_middleware_stack = lambda: SecurityHeaders(build_stack())  # type: ignore[method-assign]
    app.mount("/static/swagger", StaticFiles(directory=Path(swagger_ui_path)), name="swagger")
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")

    @app.get("/docs", response_class=HTMLResponse, include_in_schema=False)
    def docs(request: Request) -> HTMLResponse:
        """The API's description in Swagger UI, from this server's own files."""
        return render(request, "docs.html", openapi_url=app.openapi_url)

    for module in (api, live, viewer, pages):
        app.include_router(module.router)

    @app.exception_handler(NotFound)
    async def not_found(request: Request, error: NotFound) -> Response:
        return error_response(request, 404, str(error))

    @app.exception_handler(BadQuery)
    async def bad_query(request: Request, error: BadQuery) -> Response:
        return error_response(request, 422, str(error))

    @app.exception_handler(RequestValidationError)
    async def bad_parameter(request: Request, error: RequestValidationError) -> Response:
        return error_response(request, 422, validation_message(error))

    @app.exception_handler(RecordError)
    async def corrupt_record(request: Request, error: RecordError) -> Response:
        return error_response(request, 422, f"this game's record cannot be read: {error}")

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> Response:
        response = error_response(request, error.status_code, str(error.detail))
        response.headers.update(error.headers or {})  # Retry-After, WWW-Authenticate...
        return response

    @app.exception_handler(Exception)
    async def unexpected(request: Request, error: Exception) -> Response:
        log.exception("%s %s failed", request.method, request.url.path)
        return error_response(request, 500, f"the server failed: {type(error).__name__}")

    return app


ERROR_SCHEMA = ErrorOut.model_json_schema()


def described_errors(app: FastAPI) -> dict[str, object]:
    """The app's OpenAPI description, its 422 answers described as they are sent: one
    line in ``detail`` (FastAPI describes its own list of errors, which this app turns
    into that line)."""
    if app.openapi_schema is not None:
        return app.openapi_schema
    described = FastAPI.openapi(app)  # kept as app.openapi_schema
    schemas = described.get("components", {}).get("schemas", {})
    if "HTTPValidationError" in schemas:
        schemas["HTTPValidationError"] = ERROR_SCHEMA
        schemas.pop("ValidationError", None)
    return described


def validation_message(error: RequestValidationError) -> str:
    """FastAPI's list of parameter errors as one line: ``limit: Input should be ...``."""
    problems = []
    for problem in error.errors():
        where = [str(part) for part in problem.get("loc", ()) if part not in ("query", "path")]
        problems.append(f"{'.'.join(where) or 'request'}: {problem.get('msg', 'invalid')}")
    return "; ".join(problems) or "invalid request"


def error_response(request: Request, status: int, message: str) -> Response:
    """JSON under ``/api``, an HTML page elsewhere; never a traceback, nor a server path."""
    message = public_message(message, getattr(request.app.state.source, "folder", None))
    if request.url.path.startswith("/api/"):
        return JSONResponse({"detail": message}, status_code=status)
    return render(request, "error.html", status, status=status, message=message)
