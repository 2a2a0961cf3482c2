"""The ladder's bots by name: finding one (and its versions), listing them all with their
counts, and retiring one. Reads and writes through the caller's session.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import func
from sqlmodel import Session, col, select

from .errors import LadderError
from .models import Bot, BotVersion, Match, VersionRating
from .standings import latest_rows, version_label

SHOWN_NAMES = 10
"""Bot names listed in the message for an unknown bot."""


class NotInLadder(LadderError):
    """A bot, version or game that the ladder does not have (the web server's 404)."""


@dataclass(frozen=True)
class BotInfo:
    name: str
    active: bool
    version: str
    versions: int
    games: int
    folder: Path


def bot_named(session: Session, name: str) -> Bot:
    """The bot called ``name``.

    Raises:
        NotInLadder: no such bot (the message lists some that are).
    """
    bot = session.exec(select(Bot).where(Bot.name == name)).first()
    if bot is None:
        names = session.exec(select(Bot.name).order_by(col(Bot.name)).limit(SHOWN_NAMES + 1)).all()
        known = ", ".join(names[:SHOWN_NAMES]) if names else "none yet"
        if len(names) > SHOWN_NAMES:
            known += ", ..."
        raise NotInLadder(f"no bot named {name!r} in this ladder (bots: {known})")
    return bot


def version_ids(session: Session, bot: Bot, version: str | None) -> list[int]:
    """The ids of ``bot``'s versions: all, or those whose manifest version is
    ``version`` or whose content hash starts with it.

    Raises:
        NotInLadder: no version of ``bot`` matches.
    """
    rows = session.exec(
        select(BotVersion).where(BotVersion.bot_id == bot.id).order_by(col(BotVersion.id))
    ).all()
    chosen = [
        row.id
        for row in rows
        if row.id is not None
        and (
            version is None
            or version == row.manifest_version
            or (len(version) >= 4 and row.content_hash.startswith(version.lower()))
        )
    ]
    if not chosen:
        known = ", ".join(version_label(row) for row in rows) or "none"
        raise NotInLadder(f"{bot.name} has no version {version!r} (versions: {known})")
    return chosen


def bot_infos(session: Session, ladder: Path) -> list[BotInfo]:
    """Every bot with its latest version (its folder under ``ladder``), retired ones
    included, by name.

    Counts come from the per-version totals (``version_rating``), not from the games.
    """
    versions = dict(
        session.exec(select(BotVersion.bot_id, func.count()).group_by(col(BotVersion.bot_id))).all()
    )
    games = dict(
        session.exec(
            select(BotVersion.bot_id, func.sum(VersionRating.games))
            .join(VersionRating, col(VersionRating.version_id) == col(BotVersion.id))
            .group_by(col(BotVersion.bot_id))
        ).all()
    )
    return [
        BotInfo(
            name=row.name,
            active=row.active,
            version=row.label,
            versions=versions.get(row.bot_id, 0),
            games=int(games.get(row.bot_id) or 0),
            folder=ladder / row.folder,
        )
        for row in latest_rows(session, include_retired=True)
    ]


def retire(session: Session, name: str) -> int:
    """Stop scheduling ``name`` (committed); its games and ratings stay. Returns the
    matches cancelled.

    Raises:
        NotInLadder: no bot of that name.
    """
    bot = bot_named(session, name)
    bot.active = False
    ids = session.exec(select(BotVersion.id).where(BotVersion.bot_id == bot.id)).all()
    # Each side by its own index: an OR of the two would read every match.
    pending = [
        match
        for side in (col(Match.a_version_id), col(Match.b_version_id))
        for match in session.exec(select(Match).where(Match.status == "pending", side.in_(ids)))
    ]
    for match in pending:
        match.status = "cancelled"
    session.commit()
    return len(pending)
