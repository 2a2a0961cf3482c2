"""A bot folder stored as a new version of a ladder bot: the name's owner checked, an
identical version found rather than stored twice, the copy staged (copied and smoke-tested
in a scratch folder, then moved into ``bots/<name>/<hash12>/``) and its row written.

The folder work (hash, copy, smoke test) is ``submit``'s; this module adds the database
and the ladder folder's layout around it. One submission of a name at a time (a server
submits from many threads): the second of two identical ones then finds the first's
version instead of racing it, and the second of two look-alikes (by ``name_key``) finds the
first's name.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from .authors import author_named, check_new_name, check_owner, name_key
from .errors import LadderError
from .layout import BOTS_FOLDER, SCRATCH_FOLDER, SMOKE_FOLDER, SUBMIT_PREFIX
from .lock import waiting_lock
from .models import Bot, BotVersion
from .scratch import remove_tree, scratch_folder
from .standings import version_label
from .submit import check_name, content_hash, copy_bot, read_manifest, smoke_test


@dataclass(frozen=True)
class Submission:
    bot: str
    version: str
    """``version_label``: manifest version and short content hash."""
    folder: Path
    new: bool
    """False: identical content was already submitted; nothing was stored."""
    reactivated: bool = False
    content_hash: str = ""
    """The version's whole content hash (``submit.content_hash``)."""


def submit_version(
    ladder: Path, engine: Engine, source: Path, name: str | None, author: str, smoke: Path | None
) -> Submission:
    """The bot folder ``source`` as a version of ``name`` (default: its manifest's name)
    in the ladder folder ``ladder``, submitted by ``author``; a refused bot's smoke test
    stays in ``smoke`` (default ``smoke/<name>-<hash12>/``). See ``Ladder.submit``.

    Raises:
        ForbiddenError: another author owns the name.
        LadderError: a bad manifest or name, a new name like another bot's, an unknown
            author, or the bot failed its smoke test; nothing is stored then.
    """
    manifest = read_manifest(source)
    name = name or manifest.name
    check_name(name)
    digest = content_hash(manifest.folder)
    relative = f"{BOTS_FOLDER}/{name}/{digest[:12]}"
    with waiting_lock(ladder / SCRATCH_FOLDER / f"submit-{name_key(name)}.lock"):
        known = _known_version(ladder, engine, name, digest, author)
        if known is not None:
            return known
        target = ladder / relative
        _stage(ladder, manifest.folder, target, name, smoke)
        try:
            return _store(ladder, engine, name, digest, relative, author)
        except IntegrityError:  # the same version stored meanwhile: its copy is ``target``
            raise LadderError(f"{name} was submitted by another command meanwhile") from None
        except BaseException:
            remove_tree(target)
            raise


def _known_version(
    ladder: Path, engine: Engine, name: str, digest: str, author: str
) -> Submission | None:
    """The version of ``name`` with content ``digest`` if one is stored (its bot made
    active again), after checking that ``author`` may submit under ``name``.

    Raises:
        ForbiddenError: another author owns the name.
        LadderError: an unknown author, or a new name like another bot's.
    """
    with Session(engine) as session:
        owner = author_named(session, author)
        bot = session.exec(select(Bot).where(Bot.name == name)).first()
        if bot is None:
            check_new_name(session, name)  # before the smoke test, and again to store
            return None
        check_owner(bot, owner)
        known = session.exec(
            select(BotVersion).where(BotVersion.bot_id == bot.id, BotVersion.content_hash == digest)
        ).first()
        if known is None:
            return None
        reactivated = not bot.active
        bot.active = True
        session.commit()
        return Submission(
            name, version_label(known), ladder / known.folder, False, reactivated, digest
        )


def _stage(ladder: Path, source: Path, target: Path, name: str, smoke: Path | None) -> None:
    """Copy the bot to a scratch folder, smoke-test the copy, then move it to ``target``.

    A refused bot's smoke test stays in ``smoke`` (default ``smoke/<name>-<hash12>/``).
    """
    smoke = smoke or ladder / SMOKE_FOLDER / f"{name}-{target.name}"
    shutil.rmtree(smoke, ignore_errors=True)
    with scratch_folder(ladder / SCRATCH_FOLDER, f"{SUBMIT_PREFIX}{name}-") as scratch:
        scratch.chmod(0o755)  # readable by the sandbox's unprivileged user, whatever umask
        copy = copy_bot(source, scratch, name)
        smoke_test(copy, smoke)
        shutil.rmtree(smoke)
        remove_tree(target)  # a copy left by a killed submit
        target.parent.mkdir(parents=True, exist_ok=True)
        scratch.rename(target)


def _store(
    ladder: Path, engine: Engine, name: str, digest: str, relative: str, author: str
) -> Submission:
    """The staged copy at ``relative`` written as a new version of ``name``."""
    manifest = read_manifest(ladder / relative)
    with Session(engine) as session:
        owner = author_named(session, author)
        bot = session.exec(select(Bot).where(Bot.name == name)).first()
        reactivated = bot is not None and not bot.active
        if bot is None:
            check_new_name(session, name)
            bot = Bot.model_validate({"name": name, "author_id": owner.id})
        check_owner(bot, owner)  # a bot made meanwhile by another author's submission
        bot.active = True
        session.add(bot)
        session.flush()
        version = BotVersion.model_validate(
            {
                "bot_id": bot.id,
                "content_hash": digest,
                "folder": relative,
                "manifest_name": manifest.name,
                "manifest_version": manifest.version,
                "command": list(manifest.command),
                "description": manifest.description,
                "author": manifest.author,
            }
        )
        session.add(version)
        session.commit()
        label = version_label(version)
    return Submission(name, label, ladder / relative, True, reactivated, digest)
