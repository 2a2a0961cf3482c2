"""The ladder service: one folder, one database, and what the ``pitch ladder`` commands do.

A ladder folder holds ``ladder.toml`` (marks the folder, holds the ladder's id, and names
the database when it is not the default), ``ladder.db`` (the SQLite default),
``bots/<name>/<hash12>/`` (the ladder's copy of every submitted version),
``matches/<round>-<a>-vs-<b>/`` (records and logs), ``smoke/`` (the smoke tests of
refused submissions), ``backups/`` (``ladder backup``) and ``run.lock``. The database
URL comes from the caller (``--db``/``PITCH_DB``), else from ``ladder.toml``, else it is
the folder's SQLite file.

Plain functions and classes over a folder and an engine: no Typer, no printing.
"""

from __future__ import annotations

import json
import shutil
import time
import tomllib
from collections.abc import Callable
from concurrent.futures import Executor
from contextlib import nullcontext
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import Any

from sqlalchemy import Engine, func
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from pitch_referee.sandbox import unavailable_reason
from pitch_referee.workers import usable_cores

from . import backup as backups
from . import browse
from .authors import LOCAL_AUTHOR, author_named, check_new_name, check_owner, name_key
from .browse import BotPage, MatchInfo, RatingPoint
from .database import database_url, open_database, shown_url, watch
from .errors import LadderError
from .executor import local_pool
from .game_query import NEWEST_GAMES, PAGE, GameQuery, check_page
from .games import GameInfo, StoredGame, page_of_games, stored_game
from .lock import RunLock, waiting_lock
from .models import Bot, BotVersion, Match, VersionRating
from .ownership import claim_database, new_ladder_id
from .pending import pending_rounds
from .rating_tables import Fit, current_fit, rebuild
from .runner import Pools, ProgressCallback, RunReport, play_pending
from .schedule_writer import schedule_rounds
from .scratch import remove_tree, scratch_folder, sweep
from .standings import Standing, latest_rows, standings, version_label
from .submit import check_name, content_hash, copy_bot, read_manifest, smoke_test

LADDER_FILE = "ladder.toml"
BOTS_FOLDER = "bots"
SCRATCH_FOLDER = "tmp"
"""Submissions in progress: scratch copies (``scratch.scratch_folder``) and per-name locks."""
UPLOAD_PREFIX = "upload-"
"""A scratch folder of an upload being unpacked (``submissions.submit_upload``)."""
SUBMIT_PREFIX = "submit-"
"""A scratch folder of a submission being copied and smoke-tested (``Ladder.submit``)."""
SMOKE_FOLDER = "smoke"
"""Where a refused bot's smoke test stays: ``smoke/<name>-<hash12>/`` for one submitted on
the server's machine (``ladder submit``), ``smoke/submission-<id>/`` for an upload, which
belongs to that submission and its author (``submissions.submission_logs``)."""


class NotInLadder(LadderError):
    """A bot, version or game that the ladder does not have (the web server's 404)."""


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


@dataclass(frozen=True)
class BotInfo:
    name: str
    active: bool
    version: str
    versions: int
    games: int
    folder: Path


SHOWN_NAMES = 10
"""Bot names listed in the message for an unknown bot."""


def require_sandbox(trust_bots: bool) -> None:
    """Refuse to run submitted bots where they cannot be sandboxed, unless trusted.

    (Where the machine can, they are sandboxed, trusted or not: the matches' sandbox
    setting is ``auto``.)

    Raises:
        LadderError: the machine cannot sandbox bots and ``trust_bots`` is false.
    """
    reason = unavailable_reason()
    if reason is not None and not trust_bots:
        raise LadderError(
            f"the ladder runs submitted bots only in the sandbox, and this machine cannot "
            f"sandbox them: {reason}; or, if you trust every bot in this ladder, pass --trust-bots"
        )


class Ladder:
    """A ladder folder and its database. Use ``Ladder.open`` (or ``init``) and close it."""

    def __init__(self, folder: Path, engine: Engine) -> None:
        self.folder = folder.resolve()  # jobs may run with another working folder
        self.engine = engine
        self.check_database = watch(engine)
        """Raises ``LadderError`` if the database file opened is no longer there."""

    @classmethod
    def init(cls, folder: Path, db: str | None = None) -> Ladder:
        """Create the ladder (or open it if it exists), bringing its schema up to date.

        Only a ladder with no bots yet gets a new database: for a ladder with bots, a
        missing database is lost data to restore, not something to create afresh.

        Raises:
            LadderError: the database cannot be reached, or (a ladder with bots) it is
                missing, empty or damaged.
        """
        marker = folder / LADDER_FILE
        if not marker.exists():
            folder.mkdir(parents=True, exist_ok=True)
            text = f'format = "pitch-ladder"\nid = "{new_ladder_id()}"\n'
            if db:
                text += f"database = {json.dumps(db)}\n"
            marker.write_text(text)
        return cls._open(folder, db, create=not (folder / BOTS_FOLDER).exists())

    @classmethod
    def open(cls, folder: Path, db: str | None = None) -> Ladder:
        """Open an existing ladder, migrating its schema if needed.

        Raises:
            LadderError: no ladder in ``folder``, or its database cannot be reached, or is
                missing, empty or damaged.
        """
        return cls._open(folder, db, create=False)

    @classmethod
    def _open(cls, folder: Path, db: str | None, create: bool) -> Ladder:
        marker, url = _database_of(folder, db)
        engine = open_database(url, create=create)
        try:
            claim_database(engine, marker, shown_url(url))
        except BaseException:
            engine.dispose()
            raise
        return cls(folder, engine)

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> Ladder:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    # --- bots -------------------------------------------------------------------------

    def submit(
        self,
        source: Path,
        name: str | None = None,
        *,
        author: str = LOCAL_AUTHOR,
        trust_bots: bool = False,
        smoke: Path | None = None,
    ) -> Submission:
        """Validate, copy and smoke-test a bot folder, then store it as a new version.

        The name belongs to the ``author`` who first submits it (``local`` by default:
        see ``authors``); nobody else may submit under it. Identical content already
        submitted under this name stores nothing (and makes a retired bot active again).
        The smoke test runs the bot in the sandbox; where the machine has none, the bot is
        refused unless ``trust_bots`` (``require_sandbox``). A refused bot's smoke test
        stays in ``smoke`` (a new folder; default ``smoke/<name>-<hash12>/``).

        Raises:
            ForbiddenError: another author owns the name.
            LadderError: a bad manifest or name, a new name like another bot's
                (``authors.check_new_name``), an unknown author, the machine cannot
                sandbox the bot, or the bot failed its smoke test (the message has its
                stderr); nothing is stored then.
        """
        require_sandbox(trust_bots)
        manifest = read_manifest(source)
        name = name or manifest.name
        check_name(name)
        digest = content_hash(manifest.folder)
        relative = f"{BOTS_FOLDER}/{name}/{digest[:12]}"
        # One submission of a name at a time (a server submits from many threads): the
        # second of two identical ones then finds the first's version instead of racing
        # it, and the second of two look-alikes (by name_key) finds the first's name.
        with waiting_lock(self.folder / SCRATCH_FOLDER / f"submit-{name_key(name)}.lock"):
            with Session(self.engine) as session:
                owner = author_named(session, author)
                bot = session.exec(select(Bot).where(Bot.name == name)).first()
                if bot is None:
                    check_new_name(session, name)  # before the smoke test, and again to store
                else:
                    check_owner(bot, owner)
                    known = session.exec(
                        select(BotVersion).where(
                            BotVersion.bot_id == bot.id, BotVersion.content_hash == digest
                        )
                    ).first()
                    if known is not None:
                        reactivated = not bot.active
                        bot.active = True
                        session.commit()
                        label = version_label(known)
                        folder = self.folder / known.folder
                        return Submission(name, label, folder, False, reactivated, digest)
            target = self.folder / relative
            self._stage(manifest.folder, target, name, smoke)
            try:
                return self._store(name, digest, relative, author)
            except IntegrityError:  # the same version stored meanwhile: its copy is ``target``
                raise LadderError(f"{name} was submitted by another command meanwhile") from None
            except BaseException:
                remove_tree(target)
                raise

    def _stage(self, source: Path, target: Path, name: str, smoke: Path | None) -> None:
        """Copy the bot to a scratch folder, smoke-test the copy, then move it to ``target``.

        A refused bot's smoke test stays in ``smoke`` (default ``smoke/<name>-<hash12>/``).
        """
        smoke = smoke or self.folder / SMOKE_FOLDER / f"{name}-{target.name}"
        shutil.rmtree(smoke, ignore_errors=True)
        with scratch_folder(self.folder / SCRATCH_FOLDER, f"{SUBMIT_PREFIX}{name}-") as scratch:
            scratch.chmod(0o755)  # readable by the sandbox's unprivileged user, whatever umask
            copy = copy_bot(source, scratch, name)
            smoke_test(copy, smoke)
            shutil.rmtree(smoke)
            remove_tree(target)  # a copy left by a killed submit
            target.parent.mkdir(parents=True, exist_ok=True)
            scratch.rename(target)

    def sweep_scratch(self) -> list[str]:
        """Remove the scratch folders that submissions left behind (a killed process, or
        one interrupted while cleaning up); their names. A folder that a running
        submission holds is never touched, whoever runs it: see ``scratch``.

        Called where a ladder starts its work, once: when a server enables uploads, and
        when ``ladder run`` takes the run lock.
        """
        return sweep(self.folder / SCRATCH_FOLDER, (UPLOAD_PREFIX, SUBMIT_PREFIX))

    def _store(self, name: str, digest: str, relative: str, author: str) -> Submission:
        manifest = read_manifest(self.folder / relative)
        with Session(self.engine) as session:
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
        return Submission(name, label, self.folder / relative, True, reactivated, digest)

    def bots(self) -> list[BotInfo]:
        """Every bot with its latest version, retired ones included, by name.

        Counts come from the per-version totals (``version_rating``), not from the games.
        """
        with Session(self.engine) as session:
            versions = dict(
                session.exec(
                    select(BotVersion.bot_id, func.count()).group_by(col(BotVersion.bot_id))
                ).all()
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
                    folder=self.folder / row.folder,
                )
                for row in latest_rows(session, include_retired=True)
            ]

    def retire(self, name: str) -> int:
        """Stop scheduling ``name``; its games and ratings stay. Returns the matches cancelled.

        Raises:
            LadderError: no bot of that name.
        """
        with Session(self.engine) as session:
            bot = self.bot_named(session, name)
            bot.active = False
            ids = session.exec(select(BotVersion.id).where(BotVersion.bot_id == bot.id)).all()
            # Each side by its own index: an OR of the two would read every match.
            pending = [
                match
                for side in (col(Match.a_version_id), col(Match.b_version_id))
                for match in session.exec(
                    select(Match).where(Match.status == "pending", side.in_(ids))
                )
            ]
            for match in pending:
                match.status = "cancelled"
            session.commit()
            return len(pending)

    def bot_named(self, session: Session, name: str) -> Bot:
        """The bot called ``name``.

        Raises:
            NotInLadder: no such bot (the message lists some that are).
        """
        bot = session.exec(select(Bot).where(Bot.name == name)).first()
        if bot is None:
            names = session.exec(
                select(Bot.name).order_by(col(Bot.name)).limit(SHOWN_NAMES + 1)
            ).all()
            known = ", ".join(names[:SHOWN_NAMES]) if names else "none yet"
            if len(names) > SHOWN_NAMES:
                known += ", ..."
            raise NotInLadder(f"no bot named {name!r} in this ladder (bots: {known})")
        return bot

    def _versions(self, session: Session, bot: Bot, version: str | None) -> list[int]:
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

    # --- matches ----------------------------------------------------------------------

    def run(
        self,
        rounds: int = 1,
        games_per_match: int = 20,
        rules: dict[str, Any] | None = None,
        *,
        executor: Executor | None = None,
        workers: int | None = None,
        affinity: bool = True,
        progress: ProgressCallback | None = None,
        wait: bool = False,
        trust_bots: bool = False,
        on_wait: Callable[[int | None], None] = lambda _pid: None,
        partnerships: bool = False,
    ) -> RunReport:
        """Finish the matches an interrupted run left, then play new round-robin rounds.

        Unfinished matches keep the settings they were scheduled with, and their rounds
        count toward ``rounds``: running the same command again after an interruption
        plays exactly the schedule the first one would have played.

        Args:
            executor: where matches run; default a local process pool of ``workers``
                (default: the cores), each pinned to its own core if ``affinity``, and
                made afresh when a worker dies (see ``runner``). It is handed
                ``runner.window(workers)`` matches at a time (2 x workers + 1): give a
                remote executor its number of workers.
            wait: wait for another run on this ladder to end instead of refusing.
            trust_bots: run the bots without the sandbox where the machine has none.
            partnerships: each new round also plays the mixed-partnership format's team
                matches (``schedule.partnership_round``), rated by the team model.

        Raises:
            LadderError: another run holds the ladder, fewer than two active bots (four
                with ``partnerships``), some
                matches could not be played or records were refused, or the database
                file was deleted meanwhile.
            ValueError: a bad rule or game count.
        """
        if rounds < 1:
            raise LadderError("--rounds must be at least 1")
        if games_per_match < 1:
            raise LadderError("--games-per-match must be at least 1")
        require_sandbox(trust_bots)
        with RunLock(self.folder, wait, on_wait):
            self.check_database()
            self.sweep_scratch()
            unfinished = pending_rounds(self.engine)
            if rounds > unfinished:
                schedule_rounds(
                    self.engine, rounds - unfinished, games_per_match, rules or {}, partnerships
                )
            pools = partial(local_pool, affinity=affinity) if executor is None else _reuse(executor)
            size = workers or len(usable_cores())
            report = play_pending(
                self.folder, self.engine, pools, size, progress, self.check_database
            )
            with Session(self.engine) as session:
                current_fit(session)  # kept for the standings that usually follow a run
            return report

    # --- backups ----------------------------------------------------------------------

    def backup(self, out: Path | None = None) -> Path:
        """Copy the SQLite database to ``out`` (default: ``backups/ladder-<time>.db``).

        Raises:
            LadderError: the database is PostgreSQL, or ``out`` exists.
        """
        database = backups.database_file(str(self.engine.url))
        out = out or self.folder / "backups" / f"ladder-{time.strftime('%Y%m%d-%H%M%S')}.db"
        backups.backup(database, out)
        return out

    @staticmethod
    def restore(folder: Path, source: Path, db: str | None = None) -> Path | None:
        """Put the backup ``source`` in place of the ladder's SQLite database.

        Works whatever state the database is in (it is not opened), once no run holds the
        ladder. Returns where the replaced database is kept (None if there was none).

        Raises:
            LadderError: no ladder in ``folder``, a PostgreSQL database, a run in progress,
                or ``source`` is not a backup of this ladder.
        """
        marker, url = _database_of(folder, db)
        database = backups.database_file(url)
        backups.check_backup(source, tomllib.loads(marker.read_text()).get("id"))
        if source.resolve() == database.resolve():
            raise LadderError(f"{source} is the ladder's database itself, not a backup")
        with RunLock(folder):
            return backups.restore(database, source)

    # --- results ----------------------------------------------------------------------

    def standings(self, include_retired: bool = False) -> list[Standing]:
        """The latest version of each active bot (all bots if asked), ranked by the fit.

        Ranked within each group of bots whose results connect: see ``standings.standings``.

        Raises:
            LadderError: the ladder has no bots.
        """
        with Session(self.engine) as session:
            lines = standings(session, include_retired)
        if not lines:
            raise LadderError(
                f"no bots in the ladder at {self.folder}: submit some with "
                "`pitch ladder submit DIR`"
            )
        return lines

    def rerate(self) -> int:
        """Recompute the ratings from the stored games (a repair); returns the games read.

        Storing games keeps the ratings up to date on its own: this is for a database
        whose derived tables were changed by hand or damaged. Waits for, or refuses, a
        run in progress like ``run`` (the run lock).

        Raises:
            LadderError: another run holds the ladder.
        """
        with RunLock(self.folder), Session(self.engine) as session:
            self.check_database()
            games = rebuild(session)
            session.commit()
        return games

    def games(self, query: GameQuery = NEWEST_GAMES) -> list[GameInfo]:
        """The page of stored games that ``query`` asks for, newest first (by game number).

        ``games.page_of_games`` reads it, once ``query.bot`` and its ``version`` are
        resolved here: pass the last game's number as ``before`` for the next page.

        Raises:
            NotInLadder: no bot of that name, or no such version of it.
        """
        with Session(self.engine) as session:
            versions = None
            if query.bot is not None:
                bot = self.bot_named(session, query.bot)
                versions = self._versions(session, bot, query.version)
            return page_of_games(session, self.folder, versions, query)

    def matches(
        self,
        bot: str | None = None,
        *,
        version: str | None = None,
        status: str | None = None,
        limit: int = PAGE,
        offset: int = 0,
        before: int | None = None,
    ) -> list[MatchInfo]:
        """A page of matches, newest first: of one bot (one version of it) if named.

        Paged like ``games``, by match id.

        Raises:
            NotInLadder: no bot of that name, or no such version of it.
            LadderError: a limit or offset out of range, an unknown status.
        """
        check_page(limit, offset)
        if status is not None and status not in browse.MATCH_STATUSES:
            statuses = ", ".join(browse.MATCH_STATUSES)
            raise LadderError(f"status must be one of {statuses}, not {status!r}")
        if bot is None and version is not None:
            raise LadderError("a version filter needs a bot")
        with Session(self.engine) as session:
            versions = None
            if bot is not None:
                versions = self._versions(session, self.bot_named(session, bot), version)
            return browse.matches(
                session, versions, status=status, limit=limit, offset=offset, before=before
            )

    def match(self, number: int) -> MatchInfo:
        """One match and its games so far.

        Raises:
            NotInLadder: no match with that number.
        """
        with Session(self.engine) as session:
            found = browse.match(session, number)
        if found is None:
            raise NotInLadder(f"no match {number} in this ladder")
        return found

    def bot_page(self, name: str, fit: Fit | None = None) -> BotPage:
        """A bot's versions with their ratings (from ``fit``, else the current fit), its
        results by opponent, its faults by kind.

        Raises:
            NotInLadder: no bot of that name.
        """
        with Session(self.engine) as session:
            fit = fit or current_fit(session)  # first: it may commit, expiring the bot
            return browse.bot_page(session, self.bot_named(session, name), fit)

    def rating_history(self, name: str) -> list[RatingPoint]:
        """The Elo of ``name``'s latest version after each of its games (thinned for a chart).

        Raises:
            NotInLadder: no bot of that name.
        """
        with Session(self.engine) as session:
            bot = self.bot_named(session, name)
            return browse.rating_history(session, self._versions(session, bot, None)[-1])

    def game(self, number: int) -> StoredGame:
        """One stored game and its record (from the database: the file may be gone).

        Raises:
            NotInLadder: no game with that number.
        """
        with Session(self.engine) as session:
            found = stored_game(session, self.folder, number)
        if found is None:
            raise NotInLadder(f"no game {number} in this ladder: `pitch ladder games` lists them")
        return found


def _reuse(executor: Executor) -> Pools:
    """The caller's executor for every attempt: only the local pool is made afresh."""
    return lambda _size: nullcontext(executor)


def _database_of(folder: Path, db: str | None) -> tuple[Path, str]:
    """The ladder's ``ladder.toml`` and its database URL (``db`` first, then the file's).

    Raises:
        LadderError: no ladder in ``folder``, or its ``ladder.toml`` is not TOML.
    """
    marker = folder / LADDER_FILE
    try:
        config = tomllib.loads(marker.read_text())
    except FileNotFoundError:
        raise LadderError(
            f"no ladder in {folder}: create one with `pitch ladder init --ladder {folder}`"
        ) from None
    except tomllib.TOMLDecodeError as error:
        raise LadderError(f"{marker}: not valid TOML ({error})") from None
    return marker, database_url(folder, db or config.get("database"))
