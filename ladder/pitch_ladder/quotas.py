"""Per-author limits on what the service takes and keeps: uploads per hour, uploads being
checked at once, stored versions, and the disk their files take.

The server's settings give every author the same limits (``AuthorLimits``); an admin may
give one author others (``set_limits``, kept in the ``author_limit`` table, a column left
empty keeping the server's value). The checks in flight are counted by the server that
takes the uploads (``pitch_web.checks``). The rest is counted here, from the database and
the ladder folder, so that a restart or a second server process on the same database
counts the same: the uploads of the last hour are the author's verdicts in it
(``check_rate``), and what is stored is the author's versions (retired bots' included,
for their files stay) and the bytes of their files as unpacked and stored, never the
archive's size (a 200 KB archive may hold a 191 MB bot).

Imports nothing from the web side.
"""

from __future__ import annotations

import math
import os
from dataclasses import asdict, dataclass, fields, replace
from datetime import UTC, timedelta
from pathlib import Path

from sqlmodel import col, func, select

from .authors import Store, _session, author_named
from .errors import LadderError
from .models import AuthorLimit, Bot, BotVersion, SubmissionVerdict, now

MIB = 1024 * 1024
HOUR = timedelta(hours=1)
STORED_RETRY_S = 3600
"""Retry-After for a stored limit (versions, disk): nothing frees with time, so an hour,
while the author asks an admin or the operator removes versions."""


@dataclass(frozen=True)
class AuthorLimits:
    """What one author may do (the ``[limits]`` table's per-author keys)."""

    uploads_per_hour: int = 20
    """Uploads checked in any hour (a moving window), refused or accepted alike."""
    checks: int = 2
    """The author's uploads being checked, or waiting for a check, at once."""
    versions: int = 50
    """Bot versions stored for the author, over all their bots."""
    disk_bytes: int = 100 * MIB
    """Bytes of the files of the author's stored versions, as unpacked."""

    def __post_init__(self) -> None:
        for item in fields(self):
            if getattr(self, item.name) < 1:
                raise ValueError(f"{item.name} must be at least 1")

    def over(self, override: AuthorLimit | None) -> AuthorLimits:
        """These limits with an admin's ``override`` in place where it sets one."""
        if override is None:
            return self
        values = {
            item.name: getattr(override, item.name)
            for item in fields(self)
            if getattr(override, item.name) is not None
        }
        return replace(self, **values)


class QuotaExceeded(LadderError):
    """An author is over one of their limits: the service's 429, with ``retry_after``."""

    def __init__(self, message: str, retry_after: int = STORED_RETRY_S) -> None:
        super().__init__(message)
        self.retry_after = retry_after

    def __reduce__(self) -> tuple[type, tuple[str, int]]:  # crosses the checks' processes
        return type(self), (str(self), self.retry_after)


@dataclass(frozen=True)
class Usage:
    """What an author has stored."""

    versions: int
    disk_bytes: int


def limits_of(store: Store, author_id: int, defaults: AuthorLimits) -> AuthorLimits:
    """The limits of the author ``author_id``: ``defaults`` with their override, if any."""
    with _session(store) as session:
        return defaults.over(session.get(AuthorLimit, author_id))


def set_limits(
    store: Store, name: str, *, clear: bool = False, **values: int | None
) -> dict[str, int | None]:
    """Give the author ``name`` limits of their own (committed); the override as it now is.

    ``values`` are ``AuthorLimits`` fields; a None value leaves that limit as it was.
    With ``clear``, the override is removed first (the server's settings apply again).

    Raises:
        LadderError: no such author, an unknown limit, or a value under 1.
    """
    known = {item.name for item in fields(AuthorLimits)}
    for key, value in values.items():
        if key not in known:
            raise LadderError(f"no limit {key!r} (limits: {', '.join(sorted(known))})")
        if value is not None and value < 1:
            raise LadderError(f"{key} must be at least 1, not {value}")
    with _session(store) as session:
        author = author_named(session, name)
        assert author.id is not None
        row = session.get(AuthorLimit, author.id)
        if row is not None and clear:
            session.delete(row)
            session.flush()
            row = None
        chosen = {key: value for key, value in values.items() if value is not None}
        if row is None and chosen:
            row = AuthorLimit.model_validate({"author_id": author.id, **chosen})
        elif row is not None:
            for key, value in chosen.items():
                setattr(row, key, value)
            row.changed_at = now()
        if row is not None:
            session.add(row)
        session.commit()
        return override_of(session, author.id)


def override_of(store: Store, author_id: int) -> dict[str, int | None]:
    """The admin's override of an author's limits, every limit named (None: the server's)."""
    with _session(store) as session:
        row = session.get(AuthorLimit, author_id)
        names = [item.name for item in fields(AuthorLimits)]
        return {name: getattr(row, name) if row else None for name in names}


def usage(store: Store, folder: Path, author_id: int) -> Usage:
    """What the author ``author_id`` has stored in the ladder at ``folder``."""
    with _session(store) as session:
        stored = session.exec(
            select(BotVersion.folder)
            .join(Bot, col(Bot.id) == col(BotVersion.bot_id))
            .where(Bot.author_id == author_id)
        ).all()
    return Usage(len(stored), sum(folder_bytes(folder / path) for path in stored))


def count_versions(store: Store, author_id: int) -> int:
    """How many versions the author ``author_id`` has stored (no disk read)."""
    with _session(store) as session:
        return session.exec(
            select(func.count())
            .select_from(BotVersion)
            .join(Bot, col(Bot.id) == col(BotVersion.bot_id))
            .where(Bot.author_id == author_id)
        ).one()


def folder_bytes(folder: Path) -> int:
    """The bytes of the regular files under ``folder`` (0 if it is gone); links not followed."""
    total = 0
    for root, _, files in os.walk(folder):
        for name in files:
            try:
                status = os.lstat(os.path.join(root, name))
            except OSError:
                continue
            total += status.st_size
    return total


def check_rate(store: Store, author_id: int, limits: AuthorLimits) -> None:
    """Refuse an upload past the author's ``uploads_per_hour`` in the last hour, counted
    from their verdicts in the database (every upload checked, accepted or refused): at
    most ``uploads_per_hour`` rows read, newest first, through the (author, id) index.

    Raises:
        QuotaExceeded: the author's ``uploads_per_hour``-th newest verdict is under an
            hour old; ``retry_after`` is when it will not be.
    """
    with _session(store) as session:
        recent = session.exec(
            select(SubmissionVerdict.submitted_at)
            .where(SubmissionVerdict.author_id == author_id)
            .order_by(col(SubmissionVerdict.id).desc())
            .limit(limits.uploads_per_hour)
        ).all()
    if len(recent) < limits.uploads_per_hour:
        return
    oldest = recent[-1] if recent[-1].tzinfo else recent[-1].replace(tzinfo=UTC)  # SQLite's
    wait = (oldest + HOUR - now()).total_seconds()
    if wait > 0:
        raise QuotaExceeded(
            f"over your limit: {limits.uploads_per_hour} uploads in the last hour; "
            "send it again when the window has moved on",
            math.ceil(wait),
        )


def check_stored(limits: AuthorLimits, used: Usage, adding_bytes: int = 0) -> None:
    """Refuse a new version that would put the author over their stored limits.

    Raises:
        QuotaExceeded: ``limits.versions`` versions are stored already, or the new
            version's ``adding_bytes`` would take the author's files past ``disk_bytes``.
    """
    if used.versions >= limits.versions:
        raise QuotaExceeded(
            f"over your limit: {used.versions} bot versions stored, the most you may have "
            f"is {limits.versions}; an admin can raise it (`pitch ladder author limits`)"
        )
    if used.disk_bytes + adding_bytes > limits.disk_bytes:
        raise QuotaExceeded(
            f"over your limit: this bot unpacks to {adding_bytes:,} bytes and your stored "
            f"versions take {used.disk_bytes:,}, past your {limits.disk_bytes:,} bytes of disk; "
            "an admin can raise it (`pitch ladder author limits`)"
        )


def describe(limits: AuthorLimits) -> dict[str, int]:
    """``limits`` as a plain dict (the API's and the CLI's)."""
    return asdict(limits)
