"""The arena as a service: authors submit, retire and read their bots over HTTP; admins
pause and resume the scheduler; a health check for whatever watches the server.

Every route here but ``/api/health`` and the scheduler's status needs an author's token
(``Authorization: Bearer pa_...``, from ``pitch ladder author add``): a bad or revoked
token is a 401, acting on another author's bot a 403. An upload is the archive itself as
the request body (``pitch submit`` sends it), read as it arrives and cut off at the
size limit, so an oversized upload never fills the disk; it is then unpacked and checked
by ``pitch_ladder.submissions``. These routes exist only when a ladder is served.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Depends, FastAPI, HTTPException, Request
from fastapi import Path as PathParam
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import FileResponse, HTMLResponse, Response
from pydantic import BaseModel
from sqlalchemy.exc import DBAPIError

from pitch_ladder.archive import ArchiveLimits
from pitch_ladder.authors import AuthenticationError, ForbiddenError, authenticate, require_admin
from pitch_ladder.errors import LadderError
from pitch_ladder.ladder import Ladder, NotInLadder
from pitch_ladder.models import Author
from pitch_ladder.scheduler import set_paused, status
from pitch_ladder.submissions import (
    bot_logs,
    open_log,
    open_submission_log,
    retire_own,
    submission_logs,
    submit_upload,
    verdicts,
)

from .app import render
from .models import UtcDateTime
from .params import GameNumber
from .source import LadderSource, NotFound
from .viewer import cached_timeline

router = APIRouter(prefix="/api", tags=["service"])
pages = APIRouter()
T = TypeVar("T")


@dataclass(frozen=True)
class ServiceSettings:
    """What the service accepts (``pitch serve`` options and settings file)."""

    limits: ArchiveLimits = field(default_factory=ArchiveLimits)
    trust_bots: bool = False
    """Smoke-test uploads without the sandbox where the machine has none (never by default)."""


class VerdictOut(BaseModel):
    id: int
    bot: str
    accepted: bool
    new: bool
    version: str
    reason: str
    submitted_at: UtcDateTime


class LogOut(BaseModel):
    path: str
    size: int


class RetiredOut(BaseModel):
    bot: str
    cancelled_matches: int


class SchedulerOut(BaseModel):
    paused: bool
    changed_at: UtcDateTime | None
    changed_by: str
    pending_matches: int


class HealthOut(BaseModel):
    status: str
    database: str
    scheduler_paused: bool


def enable_service(app: FastAPI, settings: ServiceSettings | None = None) -> None:
    """Add the service's routes to an application serving a ladder, sweeping first the
    scratch folders of uploads that a killed server left (``Ladder.sweep_scratch``)."""
    app.state.service = settings or ServiceSettings()
    source = app.state.source
    if isinstance(source, LadderSource):
        source.ladder.sweep_scratch()
    app.include_router(router)
    app.include_router(pages)


def _ladder(request: Request) -> Ladder:
    source = request.app.state.source
    if not isinstance(source, LadderSource):
        raise NotFound("this server shows a folder of records, not a ladder")
    return source.ladder


def _author(request: Request) -> Author:
    """The author whose token the request carries (a 401 otherwise)."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token:
        raise HTTPException(401, "no token: send `Authorization: Bearer <your token>`")
    try:
        return authenticate(_ladder(request), token)
    except AuthenticationError as error:
        raise HTTPException(401, str(error)) from None


LadderDep = Annotated[Ladder, Depends(_ladder)]
AuthorDep = Annotated[Author, Depends(_author)]


@router.post("/submissions", status_code=201, response_model=VerdictOut)
async def submit(
    request: Request, response: Response, ladder: LadderDep, author: AuthorDep
) -> VerdictOut:
    """Upload a bot (the body is its ``.tar.gz``, as ``pitch submit`` packs it): the verdict.

    201 with the stored version, 200 when identical content was already stored, 422 when
    the archive or the bot was refused (the reason, with the bot's stderr tail), 413 over
    the size limit, 403 for another author's bot name.
    """
    settings: ServiceSettings = request.app.state.service
    limit = settings.limits.max_archive_bytes
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise HTTPException(413, _over(limit))
    with tempfile.TemporaryFile() as upload:
        received = 0
        async for chunk in request.stream():
            received += len(chunk)
            if received > limit:
                raise HTTPException(413, _over(limit))
            upload.write(chunk)
        upload.seek(0)
        verdict = await run_in_threadpool(
            _mine,
            lambda: submit_upload(
                ladder, author, upload, settings.limits, trust_bots=settings.trust_bots
            ),
        )
    shown = VerdictOut(**asdict(verdict))
    if not verdict.accepted:
        raise HTTPException(422, verdict.reason)
    if not verdict.new:
        response.status_code = 200
    return shown


def _over(limit: int) -> str:
    return f"refused: the archive is over the limit of {limit:,} bytes"


@router.get("/submissions", response_model=list[VerdictOut])
def my_submissions(ladder: LadderDep, author: AuthorDep) -> list[VerdictOut]:
    """Your uploads' verdicts, newest first (an admin's token: everyone's)."""
    return [VerdictOut(**asdict(verdict)) for verdict in verdicts(ladder, author)]


@router.post("/bots/{name}/retire", response_model=RetiredOut)
def retire(name: str, ladder: LadderDep, author: AuthorDep) -> RetiredOut:
    """Retire one of your bots: it is scheduled no more; its games and ratings stay."""
    cancelled = _mine(lambda: retire_own(ladder, author, name))
    return RetiredOut(bot=name, cancelled_matches=cancelled)


@router.get("/bots/{name}/logs", response_model=list[LogOut])
def logs(name: str, ladder: LadderDep, author: AuthorDep) -> list[LogOut]:
    """Your bot's logs: its own seats' in each match (a refused upload's smoke test is its
    submission's: ``/api/submissions/{number}/logs``)."""
    return [LogOut(**asdict(log)) for log in _mine(lambda: bot_logs(ladder, author, name))]


@router.get("/bots/{name}/logs/{path:path}", response_class=FileResponse)
def log_file(name: str, path: str, ladder: LadderDep, author: AuthorDep) -> FileResponse:
    """One of your bot's logs, as text."""
    return FileResponse(
        _mine(lambda: open_log(ladder, author, name, path)), media_type="text/plain"
    )


SubmissionId = Annotated[int, PathParam(ge=1, le=2**63 - 1)]


@router.get("/submissions/{number}/logs", response_model=list[LogOut])
def submission_log_list(number: SubmissionId, ladder: LadderDep, author: AuthorDep) -> list[LogOut]:
    """Your submission's logs: its smoke test's, kept when it was refused (none otherwise)."""
    listed = _mine(lambda: submission_logs(ladder, author, number))
    return [LogOut(**asdict(log)) for log in listed]


@router.get("/submissions/{number}/logs/{path:path}", response_class=FileResponse)
def submission_log_file(
    number: SubmissionId, path: str, ladder: LadderDep, author: AuthorDep
) -> FileResponse:
    """One of your submission's logs, as text."""
    return FileResponse(
        _mine(lambda: open_submission_log(ladder, author, number, path)), media_type="text/plain"
    )


def _mine(call: Callable[[], T]) -> T:
    """``call()``, a missing bot a 404 and another author's a 403."""
    try:
        return call()
    except NotInLadder as error:
        raise NotFound(str(error)) from None
    except ForbiddenError as error:
        raise HTTPException(403, str(error)) from None


@router.get("/game-logs/{number}", response_model=dict[str, Any])
def game_logs(number: GameNumber, request: Request, author: AuthorDep) -> dict[str, Any]:
    """Your bots' log lines in game ``number`` (an admin's token: every bot's), as the
    timeline's ``logs``: what the viewer adds beside the table when your token is in the tab."""
    source: LadderSource = request.app.state.source
    _, record = source.game(str(number))
    if not source.log_seats(record, author, number):
        raise HTTPException(403, f"no bot of game {number} is yours: its logs are its authors'")
    return {"logs": cached_timeline(request, str(number), author)["logs"]}


@router.get("/scheduler", response_model=SchedulerOut)
def scheduler(ladder: LadderDep) -> SchedulerOut:
    """Whether the ladder's scheduler is paused, and the matches it has pending."""
    return SchedulerOut(**asdict(status(ladder)))


@router.post("/scheduler/pause", response_model=SchedulerOut)
def pause(ladder: LadderDep, author: AuthorDep) -> SchedulerOut:
    """Pause the scheduler after its current step (an admin's token)."""
    return _switch(ladder, author, True)


@router.post("/scheduler/resume", response_model=SchedulerOut)
def resume(ladder: LadderDep, author: AuthorDep) -> SchedulerOut:
    """Resume the scheduler (an admin's token)."""
    return _switch(ladder, author, False)


def _switch(ladder: Ladder, author: Author, paused: bool) -> SchedulerOut:
    _mine(lambda: require_admin(author))
    return SchedulerOut(**asdict(set_paused(ladder, paused, author.name)))


@pages.get("/author", response_class=HTMLResponse, include_in_schema=False)
def author_page(request: Request, ladder: LadderDep) -> HTMLResponse:
    """The author's page: their verdicts, logs and retiring, with a token typed in the tab."""
    return render(request, "author.html")


@router.get("/health", response_model=HealthOut)
def health(ladder: LadderDep) -> HealthOut:
    """200 while the database answers; 503 (with why) when it does not."""
    try:
        ladder.check_database()
        paused = status(ladder).paused
    except (DBAPIError, LadderError, OSError) as error:
        raise HTTPException(503, f"the database does not answer: {error}") from None
    return HealthOut(status="ok", database="ok", scheduler_paused=paused)
