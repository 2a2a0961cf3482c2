"""Bots submitted from elsewhere: an author's upload, its verdict, and what is theirs to read.

``pitch serve`` hands an authenticated author's upload here. The archive is unpacked in a
scratch folder of the ladder (``archive.unpack`` refuses what it must; the folder is removed
however the upload ends: ``scratch``), then submitted as
a local folder is (``Ladder.submit``: the name's owner, the content hash, the smoke game
and the conformance check in the sandbox). Every upload leaves a verdict, accepted or
refused with its reason and the bot's stderr tail, that its author (and an admin) can
read and nobody else: the reasons may quote what a bot wrote.

An author may retire their own bots and read their own bots' logs: the smoke test's and
each match's logs of the seats their bot played, and the lines of one game that the viewer
shows (``log_seats``). An admin may do all of it for every bot.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, BinaryIO

from sqlmodel import Session, col, select

from pitch_referee.errors import BotError
from pitch_referee.logtail import clip

from .archive import ArchiveError, ArchiveLimits, unpack
from .authors import ForbiddenError, check_owner
from .errors import LadderError
from .ladder import SCRATCH_FOLDER, SMOKE_FOLDER, UPLOAD_PREFIX, Ladder
from .models import LOCAL_AUTHOR_ID, Author, Bot, BotVersion, Match, SubmissionVerdict
from .quotas import QuotaExceeded
from .scratch import scratch_folder
from .submit import content_hash

VERDICTS_SHOWN = 50
REASON_BYTES = 8 * 1024
"""The most of a refusal's reason that is kept, in UTF-8 bytes: its first lines, whole."""
REASON_LINE_BYTES = 512
"""The widest line of a reason kept (a bot's stderr lines are cut narrower at the source,
``pitch_referee.logtail``)."""


@dataclass(frozen=True)
class Verdict:
    """What the service says to an upload."""

    id: int
    bot: str
    accepted: bool
    new: bool
    """Accepted and stored; False for identical content already stored (a no-op)."""
    version: str
    reason: str
    submitted_at: datetime


@dataclass(frozen=True)
class LogFile:
    """One of a bot's logs, by its path in the ladder folder."""

    path: str
    size: int


def submit_upload(
    ladder: Ladder,
    author: Author,
    upload: BinaryIO,
    limits: ArchiveLimits | None = None,
    *,
    trust_bots: bool = False,
    admit: Callable[[Path], None] | None = None,
) -> Verdict:
    """Unpack, check and store ``author``'s uploaded archive; the verdict, kept for them.

    A refused archive or bot is a verdict, not an error: the author reads why.
    ``admit`` sees the unpacked bot folder before anything runs it (the author's quotas).

    Raises:
        ForbiddenError: the bot's name belongs to another author (nothing is kept).
        QuotaExceeded: ``admit`` refused the bot (nothing is kept).
    """
    with scratch_folder(ladder.folder / SCRATCH_FOLDER, UPLOAD_PREFIX) as scratch:
        manifest = None
        try:
            manifest = unpack(upload, scratch / "bot", limits)
            if admit is not None:
                admit(manifest.folder)
            stored = ladder.submit(manifest.folder, author=author.name, trust_bots=trust_bots)
        except (ForbiddenError, QuotaExceeded):
            raise
        except (ArchiveError, LadderError, BotError) as refusal:
            # The refused bot's hash, for its author, while its scratch copy is still there.
            bot, digest = (manifest.name, content_hash(manifest.folder)) if manifest else ("", "")
            return _keep(ladder, author, bot, digest, accepted=False, reason=str(refusal))
    return _keep(
        ladder,
        author,
        stored.bot,
        stored.content_hash,
        accepted=True,
        new=stored.new,
        version=stored.version,
    )


def _keep(
    ladder: Ladder,
    author: Author,
    bot: str,
    digest: str,
    *,
    accepted: bool,
    new: bool = False,
    version: str = "",
    reason: str = "",
) -> Verdict:
    """Store the verdict, its reason capped (``capped_reason``): every later read of the
    author's verdicts sends it again."""
    reason = capped_reason(reason)
    with Session(ladder.engine) as session:
        row = SubmissionVerdict.model_validate(
            {
                "author_id": author.id,
                "bot": bot,
                "content_hash": digest,
                "accepted": accepted,
                "new": new,
                "version": version,
                "reason": reason,
            }
        )
        session.add(row)
        session.commit()
        return _verdict(row)


def capped_reason(reason: str) -> str:
    """``reason`` within ``REASON_BYTES``: each line cut at ``REASON_LINE_BYTES`` (marked
    with the bytes cut), and the lines past the limit replaced by a line that counts them.
    Bytes that are not UTF-8 (lone surrogates) are replaced, as a database must take it."""
    lines = reason.split("\n")  # not splitlines: it also splits at \r, \x1c and more
    kept: list[str] = []
    size = 0
    for number, line in enumerate(lines):
        line = clip(line, REASON_LINE_BYTES)
        size += len(line.encode()) + 1
        if size > REASON_BYTES - 64:  # room for the line that says so
            kept.append(f"[... {len(lines) - number:,} more lines cut]")
            break
        kept.append(line)
    return "\n".join(kept)


def _verdict(row: SubmissionVerdict) -> Verdict:
    assert row.id is not None
    return Verdict(
        row.id, row.bot, row.accepted, row.new, row.version, row.reason, row.submitted_at
    )


def verdicts(ladder: Ladder, author: Author, limit: int = VERDICTS_SHOWN) -> list[Verdict]:
    """``author``'s latest verdicts, newest first (an admin's are everyone's)."""
    with Session(ladder.engine) as session:
        query = select(SubmissionVerdict).order_by(col(SubmissionVerdict.id).desc()).limit(limit)
        if not author.admin:
            query = query.where(SubmissionVerdict.author_id == author.id)
        return [_verdict(row) for row in session.exec(query)]


def retire_own(ladder: Ladder, author: Author, name: str) -> int:
    """Retire ``name`` for its author (or an admin); the matches cancelled.

    Raises:
        NotInLadder: no bot of that name.
        ForbiddenError: the bot is another author's.
    """
    _owned(ladder, author, name)
    return ladder.retire(name)


def bot_logs(ladder: Ladder, author: Author, name: str) -> list[LogFile]:
    """The logs ``author`` may read of their bot ``name``: its smoke tests' and the logs of
    the seats it played in each match (never its opponents'), newest match first.

    Raises:
        NotInLadder: no bot of that name.
        ForbiddenError: the bot is another author's.
    """
    bot = _owned(ladder, author, name)
    return [_log(ladder.folder, path) for path in _log_paths(ladder, bot)]


def open_log(ladder: Ladder, author: Author, name: str, path: str) -> Path:
    """The file of one of ``bot_logs``, for reading.

    Raises:
        NotInLadder: no bot of that name.
        ForbiddenError: the bot is another author's, or ``path`` is not one of its logs.
    """
    for log in bot_logs(ladder, author, name):
        if log.path == path:
            return ladder.folder / path
    raise ForbiddenError(f"{path} is not a log of {name}: `bot_logs` lists them")


def log_seats(ladder: Ladder, record: dict[str, Any], author: Author | None) -> set[int]:
    """The seats of a game ``record`` whose bots' log lines ``author`` may read: their own
    bots' (an admin: every bot's). Without an author (anyone who asks), the operator's
    bots': those submitted on the server's machine (the local author)."""
    seats = {
        player["seat"]: player.get("name")
        for player in record.get("players", [])
        if isinstance(player, dict) and player.get("seat") in range(4)
    }
    if author is not None and author.admin:
        return set(seats)
    owner = LOCAL_AUTHOR_ID if author is None else author.id
    with Session(ladder.engine) as session:
        owned = set(
            session.exec(
                select(Bot.name).where(
                    col(Bot.name).in_([n for n in seats.values() if isinstance(n, str)]),
                    Bot.author_id == owner,
                )
            )
        )
    return {seat for seat, name in seats.items() if name in owned}


def _owned(ladder: Ladder, author: Author, name: str) -> Bot:
    with Session(ladder.engine) as session:
        bot = ladder.bot_named(session, name)
        if not author.admin:
            check_owner(bot, author)
        return bot


def _log_paths(ladder: Ladder, bot: Bot) -> Iterator[Path]:
    """The smoke tests' logs, then the logs of the bot's seats, newest match first (its
    seats are A1 and A2 in a match where it is A, B1 and B2 where it is B)."""
    smoke = re.compile(rf"{re.escape(bot.name)}-[0-9a-f]{{12}}")  # not "<name>-v2-<hash>"
    for folder in sorted((ladder.folder / SMOKE_FOLDER).glob("*")):
        if smoke.fullmatch(folder.name):
            yield from sorted(folder.glob("**/*.log"))
    with Session(ladder.engine) as session:
        versions = session.exec(select(BotVersion.id).where(BotVersion.bot_id == bot.id)).all()
        played = [
            (match_id, folder, side)
            for side, column in (("A", col(Match.a_version_id)), ("B", col(Match.b_version_id)))
            for match_id, folder in session.exec(
                select(Match.id, Match.folder).where(column.in_(versions))
            )
        ]
    for _, folder, side in sorted(played, reverse=True):
        yield from sorted((ladder.folder / folder).glob(f"logs/worker-*/{side}[12]-*.log"))


def _log(root: Path, path: Path) -> LogFile:
    return LogFile(path.relative_to(root).as_posix(), path.stat().st_size)
