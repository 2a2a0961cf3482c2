"""The arena as a service: authors submit, retire and read their bots over HTTP; admins
pause and resume the scheduler; a health check for whatever watches the server.

Every route here but ``/api/health`` and the scheduler's status needs an author's token
(``Authorization: Bearer pa_...``, from ``pitch ladder author add``): a bad or revoked
token is a 401, acting on another author's bot a 403. An upload is the archive itself as
the request body (``pitch submit`` sends it), read as it arrives and cut off at the
size limit, so an oversized upload never fills the disk; it is then unpacked and checked
by ``pitch_ladder.submissions``. These routes exist only when a ladder is served.

Uploads are bounded per author (``pitch_ladder.quotas``: uploads per hour, checks at
once, stored versions, disk) and by the server's check queue (``checks``): over a limit
an upload is a 429, a full queue a 503, both with Retry-After and a one-line reason. The
checks run in processes of their own, so reads never wait for them. A disk that fills
while an upload is received, unpacked or smoke-tested is the server's trouble, not the
bot's: a 507 with Retry-After, its scratch removed, no verdict kept.
"""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Depends, FastAPI, HTTPException, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from pydantic import BaseModel, Field
from sqlalchemy.exc import DBAPIError
from starlette.requests import ClientDisconnect

from pitch_ladder.archive import ArchiveLimits
from pitch_ladder.authors import AuthenticationError, ForbiddenError, authenticate, require_admin
from pitch_ladder.errors import LadderError, disk_full
from pitch_ladder.ladder import Ladder, NotInLadder
from pitch_ladder.layout import SCRATCH_FOLDER
from pitch_ladder.models import Author
from pitch_ladder.quotas import (
    AuthorLimits,
    QuotaExceeded,
    Usage,
    check_rate,
    check_stored,
    count_versions,
    limits_of,
    override_of,
    set_limits,
    usage,
)
from pitch_ladder.scheduler import set_paused, status
from pitch_ladder.submissions import (
    bot_logs,
    open_log,
    open_submission_log,
    retire_own,
    submission_logs,
    verdicts,
)

from ..checks import QUEUE_RETRY_S, AuthorBusy, CheckQueue, QueueFull, Stopping, check_upload
from ..models import ErrorOut, UtcDateTime
from ..params import GameNumber, SubmissionNumber
from ..source import LadderSource, NotFound
from ..templates import render
from ..viewer_data import cached_timeline

log = logging.getLogger("pitch_web.service")
DISK_FULL_MESSAGE = "the server's disk is full: your upload was not checked; send it again later"
DISK_FULL_RETRY_S = 600
"""Retry-After for a full disk: time for the log sweep or the operator to free some."""
router = APIRouter(prefix="/api", tags=["service"])
pages = APIRouter()
T = TypeVar("T")


@dataclass(frozen=True)
class ServiceSettings:
    """What the service accepts (``pitch serve`` options and settings file)."""

    limits: ArchiveLimits = field(default_factory=ArchiveLimits)
    trust_bots: bool = False
    """Smoke-test uploads without the sandbox where the machine has none (never by default)."""
    author_limits: AuthorLimits = field(default_factory=AuthorLimits)
    """Every author's limits, before an admin's override (``[limits]``)."""
    checks_at_once: int = 2
    """Uploads checked at once, each in a process of its own."""
    checks_queued: int = 64
    """Uploads waiting for a check; one more is a 503."""


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


class LimitsOut(BaseModel):
    """An author's limits, what the admin's override sets, and what they use."""

    author: str
    limits: dict[str, int]
    override: dict[str, int | None]
    versions: int
    disk_bytes: int


class LimitsIn(BaseModel):
    """An admin's override of one author's limits: the limits given change, the others stay
    (``clear``: back to the server's settings first)."""

    uploads_per_hour: int | None = Field(default=None, ge=1, le=2**31 - 1)
    checks: int | None = Field(default=None, ge=1, le=2**31 - 1)
    versions: int | None = Field(default=None, ge=1, le=2**31 - 1)
    disk_bytes: int | None = Field(default=None, ge=1, le=2**63 - 1)
    clear: bool = False


def enable_service(app: FastAPI, settings: ServiceSettings | None = None) -> None:
    """Add the service's routes to an application serving a ladder, sweeping first the
    scratch folders of uploads that a killed server left (``Ladder.sweep_scratch``)."""
    app.state.service = settings = settings or ServiceSettings()
    source = app.state.source
    if isinstance(source, LadderSource):
        source.ladder.sweep_scratch()
    app.state.checks = CheckQueue(settings.checks_at_once, settings.checks_queued)
    app.include_router(router)
    app.include_router(pages)


def close_service(app: FastAPI) -> None:
    """Stop the uploads' checks: the waiting ones cancelled, the running ones killed."""
    checks: CheckQueue | None = getattr(app.state, "checks", None)
    if checks is not None:
        checks.close()


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


UPLOAD_BODY = {
    "required": True,
    "description": (
        "The bot folder as a gzipped tar archive, the whole body (not a form): what "
        "`pitch submit` sends. Read as it arrives and cut off at the size limit."
    ),
    "content": {"application/gzip": {"schema": {"type": "string", "format": "binary"}}},
}
"""The upload as ``/docs`` and clients see it: FastAPI cannot describe a body that the
route streams itself."""
UPLOAD_REFUSALS = {
    400: "the upload ended before its last byte, or its client left before its check",
    401: "no token, or a bad one",
    403: "the bot's name is another author's",
    413: "the archive is over the size limit",
    422: "the archive or the bot was refused: why, with the bot's stderr tail",
    429: "over one of the author's limits (Retry-After)",
    503: "the checks' queue is full (Retry-After)",
    507: "the server's disk is full (Retry-After)",
}


@router.post(
    "/submissions",
    status_code=201,
    response_model=VerdictOut,
    responses={
        200: {"model": VerdictOut, "description": "identical content was already stored"},
        **{
            status: {"model": ErrorOut, "description": why}
            for status, why in UPLOAD_REFUSALS.items()
        },
    },
    openapi_extra={"requestBody": UPLOAD_BODY},
)
async def submit(
    request: Request, response: Response, ladder: LadderDep, author: AuthorDep
) -> Response | VerdictOut:
    """Upload a bot (the body is its ``.tar.gz``, as ``pitch submit`` packs it): the verdict.

    201 with the stored version, 200 when identical content was already stored, 422 when
    the archive or the bot was refused (the reason, with the bot's stderr tail), 413 over
    the size limit, 403 for another author's bot name, 429 over one of the author's limits,
    503 when the checks' queue is full and 507 when the server's disk is (all three with
    Retry-After; a full disk keeps no verdict, since the bot is not at fault).
    """
    settings: ServiceSettings = request.app.state.service
    checks: CheckQueue = request.app.state.checks
    assert author.id is not None
    quota = await run_in_threadpool(limits_of, ladder, author.id, settings.author_limits)
    try:
        with checks.ticket(author.id, quota.checks) as ticket:
            await run_in_threadpool(check_rate, ladder, author.id, quota)
            stored = await run_in_threadpool(count_versions, ladder, author.id)
            check_stored(quota, Usage(stored, 0))  # the disk is counted once unpacked
            scratch = ladder.folder / SCRATCH_FOLDER
            scratch.mkdir(exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=scratch, prefix="body-") as upload:
                await _receive_body(request, upload, settings.limits.max_archive_bytes)
                verdict = await ticket.run(
                    lambda: _gone(request),
                    check_upload,
                    str(ladder.folder),
                    ladder.engine.url.render_as_string(hide_password=False),
                    author.id,
                    upload.name,
                    settings.limits,
                    settings.trust_bots,
                    quota,
                )
    except QuotaExceeded as error:
        return _later(429, str(error), error.retry_after)
    except AuthorBusy as error:
        return _later(429, str(error), QUEUE_RETRY_S)
    except (QueueFull, Stopping) as error:
        return _later(503, str(error), QUEUE_RETRY_S)
    except ForbiddenError as error:
        raise HTTPException(403, str(error)) from None
    except ClientDisconnect:
        raise HTTPException(400, "the upload ended before its last byte") from None
    except OSError as error:  # from this process (the body) or the check's
        if not disk_full(error):
            raise
        log.error("an upload was turned away: the ladder's disk is full (%s)", error.strerror)
        return _later(507, DISK_FULL_MESSAGE, DISK_FULL_RETRY_S)
    if verdict is None:  # the client left while its check waited: nobody reads this
        raise HTTPException(400, "the client left before its check began")
    shown = VerdictOut(**asdict(verdict))
    if not verdict.accepted:
        raise HTTPException(422, verdict.reason)
    if not verdict.new:
        response.status_code = 200
    return shown


async def _receive_body(request: Request, file: Any, limit: int) -> None:
    """Write the request's body to ``file`` as it arrives, cut off at ``limit`` bytes.

    Raises:
        HTTPException: 413 over the limit (declared or counted).
        ClientDisconnect: the body stopped (the client left, or took too long).
    """
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise HTTPException(413, _over(limit))
    received = 0
    async for chunk in request.stream():
        received += len(chunk)
        if received > limit:
            raise HTTPException(413, _over(limit))
        file.write(chunk)
    file.flush()


async def _gone(request: Request) -> None:
    """Returns once the client has disconnected (after its body, nothing else comes)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


def _later(status: int, message: str, retry_after: int) -> JSONResponse:
    return JSONResponse(
        {"detail": message}, status_code=status, headers={"Retry-After": str(retry_after)}
    )


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


@router.get("/submissions/{number}/logs", response_model=list[LogOut])
def submission_log_list(
    number: SubmissionNumber, ladder: LadderDep, author: AuthorDep
) -> list[LogOut]:
    """Your submission's logs: its smoke test's, kept when it was refused (none otherwise)."""
    listed = _mine(lambda: submission_logs(ladder, author, number))
    return [LogOut(**asdict(log)) for log in listed]


@router.get("/submissions/{number}/logs/{path:path}", response_class=FileResponse)
def submission_log_file(
    number: SubmissionNumber, path: str, ladder: LadderDep, author: AuthorDep
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
    timeline's ``logs``, and ``faults``: the fault steps of your bots (``at``, the step) with
    their ``last`` lines and ``exception``: what the viewer adds when your token is in the tab."""
    source: LadderSource = request.app.state.source
    _, record = source.game(str(number))
    if not source.log_seats(record, author, number):
        raise HTTPException(403, f"no bot of game {number} is yours: its logs are its authors'")
    data = cached_timeline(request, str(number), author)
    faults = [
        {"at": at, "last": step["last"], "exception": step.get("exception")}
        for at, step in enumerate(data["steps"])
        if step["k"] == "fault" and "last" in step
    ]
    return {"logs": data["logs"], "faults": faults}


class TimingOut(BaseModel):
    """``pitch_ladder.timing``'s statistic for one version of a bot."""

    version: str
    games: int = Field(description="its newest games examined")
    decisions: int = Field(description="its timed decisions in them")
    hands: int = Field(description="its hands tested: slow or fast")
    p: float | None = Field(description="the corrected p-value; null: too few hands to test")
    feature: str | None = Field(description="the fact of the dealt hand that p is of")
    flagged: bool = Field(description="p below the threshold")


class BotTimingOut(BaseModel):
    bot: str
    threshold: float
    versions: list[TimingOut] = Field(description="its newest versions, newest first")


@router.get("/bots/{name}/timing", response_model=BotTimingOut)
def bot_timing(name: str, ladder: LadderDep, author: AuthorDep) -> BotTimingOut:
    """Whether a bot's think times tell its partner about its hidden hand (an admin's
    token): ``pitch_ladder.timing``'s statistic for its newest versions, each over its
    newest games. What the bot's page flags when an admin's token is in the tab."""
    from sqlmodel import Session

    from pitch_ladder import timing

    _mine(lambda: require_admin(author))
    with Session(ladder.engine) as session:
        bot = _mine(lambda: ladder.bot_named(session, name))
        found = timing.bot_timing(session, bot)
    return BotTimingOut(
        bot=name,
        threshold=timing.THRESHOLD,
        versions=[
            TimingOut(version=line.version, flagged=line.check.flagged, **asdict(line.check))
            for line in found
        ],
    )


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


@router.get("/authors/{name}/limits", response_model=LimitsOut)
def author_limits(name: str, request: Request, ladder: LadderDep, author: AuthorDep) -> LimitsOut:
    """An author's limits and what they use of them (your own, or anyone's for an admin)."""
    if author.name != name:
        _mine(lambda: require_admin(author))
    return _limits_out(request, ladder, name)


@router.put("/authors/{name}/limits", response_model=LimitsOut)
def change_author_limits(
    name: str, change: LimitsIn, request: Request, ladder: LadderDep, author: AuthorDep
) -> LimitsOut:
    """Give an author limits of their own (an admin's token); the others' stay."""
    _mine(lambda: require_admin(author))
    values = change.model_dump(exclude={"clear"})
    try:
        set_limits(ladder, name, clear=change.clear, **values)
    except LadderError as error:
        raise NotFound(str(error)) from None
    return _limits_out(request, ladder, name)


def _limits_out(request: Request, ladder: Ladder, name: str) -> LimitsOut:
    from sqlmodel import Session

    from pitch_ladder.authors import author_named

    settings: ServiceSettings = request.app.state.service
    with Session(ladder.engine) as session:
        try:
            target = author_named(session, name)
        except LadderError as error:
            raise NotFound(str(error)) from None
    assert target.id is not None
    used = usage(ladder, ladder.folder, target.id)
    return LimitsOut(
        author=name,
        limits=asdict(limits_of(ladder, target.id, settings.author_limits)),
        override=override_of(ladder, target.id),
        versions=used.versions,
        disk_bytes=used.disk_bytes,
    )


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
