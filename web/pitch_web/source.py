"""What a server shows: a ladder (its database and folder), or a folder of matches and records.

Every page, API route and live feed reads through a ``Source``, so the viewer plays a game
the same way whichever produced it. A game is named by a key: a ladder game's number, or
a record file's path relative to the folder served.

A source turns the ladder's and the match folders' own errors into two kinds the
application answers: ``NotFound`` (a 404) and ``BadQuery`` (a 422, parameters it cannot
answer). The ladder's database code is imported only for a ladder.

Every record a source gives names its bots' logs relative to its match folder
(``pitch_sdk.record.public_logs``): a record written with the server's absolute paths
(before they were relative) shows none of them.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pitch_ladder.game_query import GameQuery
from pitch_referee.match.folder import RECORD_SUFFIXES, MatchFolder, RecordFile
from pitch_referee.match.listing import (
    RUNNING,
    MatchListing,
    at,
    match_folders,
    number,
    read_listing,
    read_summary,
    text,
)
from pitch_sdk.gamerecord import GameRecord, RecordError
from pitch_sdk.record import load_record, match_folder, public_logs

from .pairs import schedule_order
from .params import ID_MAX, ladder_number

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine
    from sqlmodel import Session

    from pitch_ladder.browse import BotPage, MatchInfo, RatingPoint
    from pitch_ladder.games import GameInfo
    from pitch_ladder.ladder import BotInfo
    from pitch_ladder.models import Author
    from pitch_ladder.rating_tables import Fit
    from pitch_ladder.standings import StandingsPage

log = logging.getLogger(__name__)

LADDER_FILE = "ladder.toml"
SUMMARY = "summary.json"
MOST_GAMES = 100_000
"""Every game of a match folder, as one page of ``match_games`` (a schedule has fewer)."""
MATCH_PAGE = 10_000
"""Games read at once when reading every game of a ladder match (the ladder's most)."""
NOT_RECORDS = frozenset({"match.json", SUMMARY})
"""JSON files in a folder of records that are not records."""


class NotFound(LookupError):
    """A game, bot or match that the source does not have (a 404)."""


class BadQuery(ValueError):
    """Parameters that the source cannot answer: a bad filter, a page out of range (a 422)."""


class Source(Protocol):
    title: str
    """Shown in every page's heading."""
    folder: Path
    """The folder served; live games journal under it."""

    def record(self, key: str) -> GameRecord:
        """The game record named by ``key``.

        Raises:
            NotFound: no such game.
            RecordError: the record is there but cannot be read as one.
        """
        ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class FolderGame:
    """A game of a match folder, as the match's summary lists it."""

    key: str
    """Its record's path relative to the folder served."""
    game: str
    a_team: int | None
    a_score: float | None
    scores: tuple[int, int] | None
    """Team 0's and team 1's final scores."""
    termination: str | None
    faults: int | None = None
    """Faults in the game (``FolderSource.with_faults``); ``None``: not read."""


class FolderSource:
    """A folder of match folders and records (``pitch serve matches/``), or one match folder."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder.resolve()
        self.title = self.folder.name

    def record(self, key: str) -> GameRecord:
        path = self._inside(key, "record")
        return public_logs(load_record(path), match_folder(path))

    def close(self) -> None:
        pass

    @property
    def is_match(self) -> bool:
        """Whether the folder served is itself one match folder."""
        return MatchFolder(self.folder).exists()

    def matches(self) -> list[MatchListing]:
        """The match folders in the folder served (or the folder itself), by name."""
        if self.is_match:
            return [self.match("")]
        roots = match_folders(self.folder)
        return [self.match(root.relative_to(self.folder).as_posix()) for root in roots]

    def match(self, key: str) -> MatchListing:
        """The match folder ``key`` (relative to the folder served).

        Raises:
            NotFound: no match folder there.
        """
        root = self._inside(key, "match folder", directory=True)
        if not MatchFolder(root).exists():
            raise NotFound(f"no match folder {key!r} in {self.title}")
        return read_listing(root, key)

    def match_games(self, key: str, offset: int, limit: int) -> tuple[list[FolderGame], int]:
        """A page of the match's games in schedule order, and how many it has.

        From its summary; a match without one (still running, or unreadable) lists its
        record files by name.

        Raises:
            NotFound: no match folder there.
        """
        self.match(key)
        root = self.folder / key
        prefix = f"{key}/" if key else ""
        summary, _note = read_summary(root)
        listed = at(summary, "games")
        if isinstance(listed, list) and at(summary, "status") != RUNNING:
            games = [_folder_game(entry, prefix) for entry in listed if isinstance(entry, dict)]
        else:
            names = sorted(file.name for file in MatchFolder(root).records())
            games = [
                FolderGame(f"{prefix}games/{name}", _game_name(name), None, None, None, None)
                for name in names
            ]
        return games[offset : offset + limit], len(games)

    def with_faults(self, key: str, games: list[FolderGame]) -> list[FolderGame]:
        """``games`` of match ``key`` with their faults: from the match's outcome log
        where its line agrees with the record file on disk, else from the record itself
        (``None`` if it cannot be read). The summary does not list faults."""
        root = self.folder / key
        logged = _logged_faults(MatchFolder(root))
        counted = []
        for game in games:
            faults = logged.get(game.game)
            if faults is None:
                faults = self._record_faults(game.key)
            counted.append(replace(game, faults=faults))
        return counted

    def _record_faults(self, key: str) -> int | None:
        """How many faults the record ``key`` lists (``None``: it cannot be read)."""
        try:
            return len(load_record(self._inside(key, "record")).faults)
        except (NotFound, RecordError):
            return None

    def loose_records(self, offset: int, limit: int) -> tuple[list[str], int]:
        """A page of the record files directly in the folder served (keys, by name), and
        how many there are. Names only: no record is read."""
        names = sorted(
            path.name
            for path in self.folder.iterdir()
            if path.is_file()
            and path.name.endswith(RECORD_SUFFIXES)
            and path.name not in NOT_RECORDS
        )
        return names[offset : offset + limit], len(names)

    def _inside(self, key: str, what: str, directory: bool = False) -> Path:
        try:  # a name the file system refuses (too long, say) names nothing here either
            path = (self.folder / key).resolve()
            exists = path.is_dir() if directory else path.is_file()
        except OSError:
            exists = False
        if not exists or not path.is_relative_to(self.folder):
            raise NotFound(f"no {what} {key!r} in {self.title}")
        return path


def _folder_game(entry: dict[str, Any], prefix: str) -> FolderGame:
    scores = entry.get("scores")
    return FolderGame(
        key=f"{prefix}{entry.get('record')}",
        game=str(entry.get("game")),
        a_team=number(entry.get("a_team"), int),
        a_score=number(entry.get("a_score"), float),
        scores=tuple(scores) if isinstance(scores, list) and len(scores) == 2 else None,
        termination=text(entry.get("termination")),
    )


def _logged_faults(folder: MatchFolder) -> dict[str, int]:
    """Each game's faults from the outcome log (``outcomes.jsonl``), for the games whose
    line was taken from the record file now on disk (same name, size and time)."""
    files = set(folder.records())
    faults: dict[str, int] = {}
    try:
        with folder.outcomes_path.open("rb") as log:
            for line in log:
                try:
                    data = json.loads(line)
                    stamp = RecordFile(data["record"], data["size"], data["mtime_ns"])
                    if stamp in files and type(data["faults"]) is int:
                        faults[str(data["game"])] = data["faults"]
                except (ValueError, KeyError, TypeError):  # a line cut short, or by hand
                    continue
    except OSError:
        pass
    return faults


def _game_name(file_name: str) -> str:
    for suffix in RECORD_SUFFIXES:
        if file_name.endswith(suffix):
            return file_name.removesuffix(suffix)
    return file_name


class LadderSource:
    """A ladder folder and its database (``pitch serve --ladder FOLDER``).

    The standings and a bot's page rate with the Bradley-Terry fit, which new games make
    stale; fitting again takes seconds at a million games. So a reader is shown the kept
    fit at once while a new one is computed in the background (``Refit``), and only the
    very first reader of a ladder, with no fit kept yet, waits for one. Elo and the
    counts are always current: they are updated as each game is stored.
    """

    def __init__(self, folder: Path, db: str | None = None) -> None:
        from pitch_ladder.ladder import Ladder

        self.ladder = Ladder.open(folder, db)
        self.folder = self.ladder.folder
        self.title = self.folder.name
        self.refit = Refit(self.ladder.engine)

    def record(self, key: str) -> GameRecord:
        return self.game(key)[1]

    def game(self, key: str) -> tuple[GameInfo, GameRecord]:
        """A stored game and its record, by its number (as text: keys are text).

        Raises:
            NotFound: no game with that number.
        """
        number = ladder_number(key)
        if number is None:
            raise NotFound(f"no game {key}: ladder games are numbered")
        with ladder_answers():
            info, record = self.ladder.game(number)
        return info, public_logs(record, match_folder(self.folder / info.record_path))

    def log_seats(
        self, record: GameRecord, author: Author | None, game: int | None = None
    ) -> set[int]:
        """The seats of ``record`` (game number ``game``) whose bots' log lines ``author``
        (``None``: anyone) may read: by the version in each seat (``submissions.log_seats``)."""
        from pitch_ladder.submissions import log_seats

        with ladder_answers():
            return log_seats(self.ladder, record, author, game)

    def standings(self, offset: int, limit: int) -> StandingsPage:
        """A page of the standings, as of the kept fit (``standings.standings_page``); if
        games came after it, a refit starts in the background for the readers that follow."""
        from sqlmodel import Session

        from pitch_ladder.standings import standings_page

        with Session(self.ladder.engine) as session:
            page = standings_page(session, offset, limit)
        if page.stale:
            self.refit.start()
        return page

    def bots(self) -> list[BotInfo]:
        return self.ladder.bots()

    def bot_page(self, name: str) -> BotPage:
        from sqlmodel import Session

        with (
            Session(self.ladder.engine) as session,
            self.refit.kept(session) as fit,
            ladder_answers(),
        ):
            return self.ladder.bot_page(name, fit)

    def rating_history(self, name: str) -> list[RatingPoint]:
        with ladder_answers():
            return self.ladder.rating_history(name)

    def matches(self, bot: str | None = None, **filters: Any) -> list[MatchInfo]:
        """``Ladder.matches``, its errors translated."""
        with ladder_answers():
            before = _below_any_id(filters.pop("before", None))
            return self.ladder.matches(bot, **filters, before=before)

    def match(self, key: str) -> MatchInfo:
        """A match by its number (as text).

        Raises:
            NotFound: no match with that number.
        """
        number = ladder_number(key)
        if number is None:
            raise NotFound(f"no match {key}: ladder matches are numbered")
        with ladder_answers():
            return self.ladder.match(number)

    def games(self, query: GameQuery) -> list[GameInfo]:
        """``Ladder.games``, its errors translated."""
        with ladder_answers():
            return self.ladder.games(replace(query, before=_below_any_id(query.before)))

    def game_info(self, key: str) -> GameInfo:
        """A stored game by its number (as text), without its record.

        Raises:
            NotFound: no game with that number.
        """
        number = ladder_number(key)
        found = [] if number is None else self.games(GameQuery(limit=1, before=number + 1))
        if not found or found[0].id != number:
            raise NotFound(f"no game {key} in this ladder")
        return found[0]

    def match_games(self, match: int) -> list[GameInfo]:
        """Every stored game of match number ``match``, in the order of its schedule
        (its game ids: ``pair-00000-a``, ``pair-00000-b``, ...)."""
        found: list[GameInfo] = []
        before = None
        while True:
            page = self.games(GameQuery(match=match, limit=MATCH_PAGE, before=before))
            found += page
            if len(page) < MATCH_PAGE:
                return sorted(found, key=lambda info: schedule_order(info.game_id))
            before = page[-1].id

    def close(self) -> None:
        self.refit.join(timeout=30)
        self.ladder.close()


class Refit:
    """The ladder's fit computed again in a thread of the server, one refit at a time."""

    def __init__(self, engine: Engine) -> None:
        from pitch_ladder.rating_tables import KeptFit

        self.engine = engine
        self._kept_fit = KeptFit()
        self._running = threading.Lock()
        self._thread: threading.Thread | None = None

    @contextmanager
    def kept(self, session: Session) -> Iterator[Fit | None]:
        """The kept fit to show now (``None``: none is kept, the reader must fit); if it
        is stale, a refit starts when the reader is done, so as not to slow it down."""
        kept = self._kept_fit(session)
        yield None if kept is None else kept[0]
        if kept is not None and not kept[1]:
            self.start()

    def start(self) -> None:
        """Refit in the background, unless a refit is running already."""
        if self._running.acquire(blocking=False):
            self._thread = threading.Thread(target=self._run, name="refit", daemon=True)
            self._thread.start()

    def join(self, timeout: float | None = None) -> None:
        """Wait for the refit running now, if any."""
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self) -> None:
        from sqlalchemy.exc import DBAPIError
        from sqlmodel import Session

        from pitch_ladder.rating_tables import current_fit

        try:
            with Session(self.engine) as session:
                current_fit(session)  # keeps the new fit for the readers that follow
        except (DBAPIError, OSError) as error:  # the next stale read tries again
            log.warning("refitting the standings failed: %s", error)
        finally:
            self._running.release()


def _below_any_id(before: int | None) -> int | None:
    """``before``, or None for one past every possible id: it bounds nothing, and
    PostgreSQL refuses to compare its 32-bit ids with it."""
    return None if before is not None and before > ID_MAX else before


@contextmanager
def ladder_answers() -> Iterator[None]:
    """The ladder's errors as the application's: missing things 404, the rest 422."""
    from pitch_ladder.errors import LadderError
    from pitch_ladder.ladder import NotInLadder

    try:
        yield
    except NotInLadder as error:
        raise NotFound(str(error)) from None
    except LadderError as error:
        raise BadQuery(str(error)) from None


def open_source(folder: Path, db: str | None = None) -> Source:
    """The ladder in ``folder`` if it holds one, else the folder of matches and records.

    Raises:
        LadderError: a ladder whose database cannot be opened.
    """
    if (folder / LADDER_FILE).exists() or db:
        return LadderSource(folder, db)
    return FolderSource(folder)
