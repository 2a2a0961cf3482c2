"""The ladder service: one folder, one database, and what the ``pitch ladder`` commands do.

``Ladder`` is a facade: it opens the folder's database (``layout``, ``database``,
``ownership``) and hands each call to the module that owns the work: ``versions``
(submitting a bot), ``roster`` (the bots by name), ``rounds`` (a ``ladder run``),
``backup``, ``standings``, ``games`` and ``browse`` (reading the results). The folder's
layout is described in ``layout``.

Plain functions and classes over a folder and an engine: no Typer, no printing.
"""

from __future__ import annotations

import json
import time
import tomllib
from collections.abc import Callable
from concurrent.futures import Executor
from pathlib import Path
from types import TracebackType
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session

from pitch_referee.workers import usable_cores

from . import backup as backups
from . import browse, roster
from .authors import LOCAL_AUTHOR
from .browse import BotPage, MatchInfo, RatingPoint
from .database import open_database, shown_url, watch
from .errors import LadderError
from .game_query import NEWEST_GAMES, PAGE, GameQuery, check_page
from .games import GameInfo, StoredGame, page_of_games, stored_game
from .layout import BOTS_FOLDER, LADDER_FILE, database_of, sweep_scratch
from .lock import RunLock
from .models import Bot
from .ownership import claim_database, new_ladder_id
from .rating_tables import Fit, current_fit, rebuild
from .roster import BotInfo, NotInLadder
from .rounds import RoundsWanted, pools_for, run_rounds
from .runner import ProgressCallback, RunReport
from .sandbox_policy import require_sandbox
from .standings import Standing, standings
from .versions import Submission, submit_version

__all__ = ["BotInfo", "Ladder", "NotInLadder", "Submission"]
"""The facade, and the types its answers are made of (defined where they are made)."""


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
        marker, url = database_of(folder, db)
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
        return submit_version(self.folder, self.engine, source, name, author, smoke)

    def sweep_scratch(self) -> list[str]:
        """Remove the scratch folders that submissions left behind (a killed process, or
        one interrupted while cleaning up); their names. A folder that a running
        submission holds is never touched, whoever runs it: see ``scratch``.

        Called where a ladder starts its work, once: when a server enables uploads, and
        when ``ladder run`` takes the run lock.
        """
        return sweep_scratch(self.folder)

    def bots(self) -> list[BotInfo]:
        """Every bot with its latest version, retired ones included, by name.

        Counts come from the per-version totals (``version_rating``), not from the games.
        """
        with Session(self.engine) as session:
            return roster.bot_infos(session, self.folder)

    def retire(self, name: str) -> int:
        """Stop scheduling ``name``; its games and ratings stay. Returns the matches cancelled.

        Raises:
            LadderError: no bot of that name.
        """
        with Session(self.engine) as session:
            return roster.retire(session, name)

    def bot_named(self, session: Session, name: str) -> Bot:
        """The bot called ``name``.

        Raises:
            NotInLadder: no such bot (the message lists some that are).
        """
        return roster.bot_named(session, name)

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
        wanted = RoundsWanted(rounds, games_per_match, rules or {}, partnerships)
        require_sandbox(trust_bots)
        return run_rounds(
            self.folder,
            self.engine,
            self.check_database,
            wanted,
            pools_for(executor, affinity),
            workers or len(usable_cores()),
            RunLock(self.folder, wait, on_wait),
            progress,
        )

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
        marker, url = database_of(folder, db)
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
                versions = roster.version_ids(session, bot, query.version)
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
                versions = roster.version_ids(session, self.bot_named(session, bot), version)
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
            return browse.rating_history(session, roster.version_ids(session, bot, None)[-1])

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
