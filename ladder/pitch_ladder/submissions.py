"""Bots submitted from elsewhere: an author's upload, its verdict, and what is theirs to read.

``pitch serve`` hands an authenticated author's upload here. The archive is unpacked in a
scratch folder of the ladder (``archive.unpack`` refuses what it must; the folder is removed
however the upload ends: ``scratch``), then submitted as
a local folder is (``Ladder.submit``: the name's owner, the content hash, the smoke game
and the conformance check in the sandbox). Every upload leaves a verdict, accepted or
refused with its reason and the bot's stderr tail, that its author (and an admin) can
read and nobody else: the reasons may quote what a bot wrote.

An author may retire their own bots and read their own bots' logs: each match's logs of
the seats their bot's versions played (by the version in each seat, partners included),
and the lines of one game that the viewer shows (``log_seats``). A refused upload's smoke
test stays with that submission (``smoke/submission-<id>/``), read by its id, never by
the bot's name. An admin may do all of it for every bot.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import BinaryIO

from sqlmodel import Session, col, or_, select

from pitch_referee.errors import BotError
from pitch_referee.logtail import clip
from pitch_sdk.cards import SEATS
from pitch_sdk.gamerecord import GameRecord as SdkGameRecord

from .archive import ArchiveError, ArchiveLimits, unpack
from .authors import ForbiddenError, check_owner
from .errors import LadderError
from .ladder import Ladder, NotInLadder
from .layout import SCRATCH_FOLDER, SMOKE_FOLDER, UPLOAD_PREFIX
from .models import LOCAL_AUTHOR_ID, Author, Bot, BotVersion, Game, Match, SubmissionVerdict
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
        smoke = scratch / "smoke"  # a refused bot's smoke test, until its verdict has an id
        try:
            manifest = unpack(upload, scratch / "bot", limits)
            if admit is not None:
                admit(manifest.folder)
            stored = ladder.submit(
                manifest.folder, author=author.name, trust_bots=trust_bots, smoke=smoke
            )
        except (ForbiddenError, QuotaExceeded):
            raise
        except (ArchiveError, LadderError, BotError) as refusal:
            # The refused bot's hash, for its author, while its scratch copy is still there.
            bot, digest = (manifest.name, content_hash(manifest.folder)) if manifest else ("", "")
            shown = {scratch / "bot": "the bot's folder", smoke: "", scratch: ""}  # server paths
            reason = public_reason(str(refusal), ladder.folder, shown)
            verdict = _keep(ladder, author, bot, digest, accepted=False, reason=reason)
            if smoke.is_dir():  # its smoke test's logs: this submission's, by its id
                smoke.rename(submission_folder(ladder, verdict.id))
            return verdict
    return _keep(
        ladder,
        author,
        stored.bot,
        stored.content_hash,
        accepted=True,
        new=stored.new,
        version=stored.version,
    )


def submission_folder(ladder: Ladder, verdict_id: int) -> Path:
    """Where an upload's refused smoke test stays: ``smoke/submission-<id>/``."""
    folder = ladder.folder / SMOKE_FOLDER / f"{SUBMISSION_PREFIX}{verdict_id}"
    folder.parent.mkdir(parents=True, exist_ok=True)
    return folder


SUBMISSION_PREFIX = "submission-"
_ABSOLUTE = re.compile(r"(?<![\w.~-])/[^\s:;,'\"()<>|]*")


def public_reason(reason: str, root: Path, inside: dict[Path, str]) -> str:
    """``reason`` with no absolute path of the server's: a path inside one of ``inside``'s
    folders becomes relative to it (the folder itself its replacement), one elsewhere in
    ``root`` (the ladder folder) or the temporary folder its file name."""
    roots = [Path(tempfile.gettempdir()), root, *inside]
    bases = {str(base.resolve()) for base in roots} | {str(base) for base in roots}

    def shown(found: re.Match[str]) -> str:
        path = Path(found.group())
        if not any(found.group() == base or found.group().startswith(base + "/") for base in bases):
            return found.group()  # not the server's (a sandboxed bot's /bot/..., say)
        for folder, replacement in inside.items():
            for form in (folder, folder.resolve()):
                if path == form:
                    return replacement or "."
                if path.is_relative_to(form):
                    return path.relative_to(form).as_posix()
        return path.name

    return _ABSOLUTE.sub(shown, reason)


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
    """The logs ``author`` may read of their bot ``name``: the logs of the seats its
    versions played in each match (never another bot's, partners' included), newest match
    first. A refused upload's smoke test is its submission's (``submission_logs``), never
    a name's: whoever later submits a bot of that name does not read it.

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


def submission_logs(ladder: Ladder, author: Author, verdict_id: int) -> list[LogFile]:
    """The logs of submission ``verdict_id``'s smoke test, kept when it was refused (its
    paths relative to the submission's folder); its author's, or an admin's, to read.

    Raises:
        NotInLadder: no submission with that id.
        ForbiddenError: the submission is another author's.
    """
    folder = _submission(ladder, author, verdict_id)
    return [_log(folder, path) for path in sorted(folder.glob("**/*.log")) if path.is_file()]


def open_submission_log(ladder: Ladder, author: Author, verdict_id: int, path: str) -> Path:
    """The file of one of ``submission_logs``, for reading.

    Raises:
        NotInLadder: no submission with that id.
        ForbiddenError: the submission is another author's, or ``path`` is not one of its logs.
    """
    for log in submission_logs(ladder, author, verdict_id):
        if log.path == path:
            return _submission(ladder, author, verdict_id) / path
    raise ForbiddenError(f"{path} is not a log of submission {verdict_id}")


def _submission(ladder: Ladder, author: Author, verdict_id: int) -> Path:
    """The folder of ``author``'s submission ``verdict_id`` (which may hold nothing)."""
    with Session(ladder.engine) as session:
        row = session.get(SubmissionVerdict, verdict_id)
        if row is None:
            raise NotInLadder(f"no submission {verdict_id}")
        if not author.admin and row.author_id != author.id:
            raise ForbiddenError(f"submission {verdict_id} is another author's")
    return ladder.folder / SMOKE_FOLDER / f"{SUBMISSION_PREFIX}{verdict_id}"


def log_seats(
    ladder: Ladder, record: SdkGameRecord, author: Author | None, game: int | None = None
) -> set[int]:
    """The seats of a game ``record`` whose bots' log lines ``author`` may read: their own
    bots' (an admin: every bot's). Without an author (anyone who asks), the operator's
    bots': those submitted on the server's machine (the local author).

    With the ladder's ``game`` number, each seat's bot is the version that the game's row
    seats there (``seat_versions``, partners included); without one, the bot the record
    names."""
    if author is not None and author.admin:
        return {p.seat for p in record.players if p.seat in SEATS}
    owner = LOCAL_AUTHOR_ID if author is None else author.id
    with Session(ladder.engine) as session:
        row = session.get(Game, game) if game is not None else None
        if row is not None:
            by_version = _game_seat_versions(row)
            owned_versions = set(
                session.exec(
                    select(BotVersion.id)
                    .join(Bot, col(Bot.id) == col(BotVersion.bot_id))
                    .where(col(BotVersion.id).in_(set(by_version.values())), Bot.author_id == owner)
                )
            )
            return {seat for seat, version in by_version.items() if version in owned_versions}
        seats = {player.seat: player.name for player in record.players if player.seat in SEATS}
        owned = set(
            session.exec(
                select(Bot.name).where(
                    col(Bot.name).in_(list(seats.values())),
                    Bot.author_id == owner,
                )
            )
        )
    return {seat for seat, name in seats.items() if name in owned}


def _game_seat_versions(game: Game) -> dict[int, int]:
    """The version at each seat of a stored game: its match's slots (``seat_versions``)
    at the table as ``schedule.seats`` puts them (bot A's team at seats 0 and 2 when
    ``a_team`` is 0)."""
    slots = seat_versions(game)
    order = ("A1", "B1", "A2", "B2") if game.a_team == 0 else ("B1", "A1", "B2", "A2")
    return {seat: slots[key] for seat, key in enumerate(order)}


def _owned(ladder: Ladder, author: Author, name: str) -> Bot:
    with Session(ladder.engine) as session:
        bot = ladder.bot_named(session, name)
        if not author.admin:
            check_owner(bot, author)
        return bot


def _log_paths(ladder: Ladder, bot: Bot) -> Iterator[Path]:
    """The logs of the seats the bot's versions played, newest match first.

    Each process slot of a match (``A1``, ``A2``, ``B1``, ``B2``: ``pool.Job.seat_entrants``)
    writes ``logs/worker-N/<slot>-<name>.log``; a slot is the bot's when the version seated
    there is one of its own, partners included: in a team match, the author of A1's bot
    never reads the log of another author's bot at A2.
    """
    with Session(ladder.engine) as session:
        versions = set(session.exec(select(BotVersion.id).where(BotVersion.bot_id == bot.id)).all())
        played = []
        for match in session.exec(
            select(Match).where(
                or_(
                    col(Match.a_version_id).in_(versions),
                    col(Match.b_version_id).in_(versions),
                    col(Match.a_partner_version_id).in_(versions),
                    col(Match.b_partner_version_id).in_(versions),
                )
            )
        ):
            slots = [slot for slot, version in seat_versions(match).items() if version in versions]
            played.append((match.id or 0, match.folder, slots))
    for _, folder, slots in sorted(played, reverse=True):
        for slot in slots:
            yield from sorted((ladder.folder / folder).glob(f"logs/worker-*/{slot}-*.log"))


def seat_versions(match: Match | Game) -> dict[str, int]:
    """The bot version in each process slot of ``match`` (or of a game's match: ``A1``/
    ``A2`` team A's, ``B1``/``B2`` team B's; a team without a partner is its bot in both)."""
    a_partner, b_partner = match.a_partner_version_id, match.b_partner_version_id
    return {
        "A1": match.a_version_id,
        "A2": match.a_version_id if a_partner is None else a_partner,
        "B1": match.b_version_id,
        "B2": match.b_version_id if b_partner is None else b_partner,
    }


def _log(root: Path, path: Path) -> LogFile:
    return LogFile(path.relative_to(root).as_posix(), path.stat().st_size)
