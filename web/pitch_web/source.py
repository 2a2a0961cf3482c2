"""What a server shows: a ladder (its database and folder), or a folder of matches and records.

Every page, API route and live feed reads through a ``Source``, so the viewer plays a game
the same way whichever produced it. A game is named by a key: a ladder game's number, or
a record file's path relative to the folder served.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from pitch_sdk.record import load_record

LADDER_FILE = "ladder.toml"


class NotFound(LookupError):
    """A game, bot or match that the source does not have (a 404)."""


class Source(Protocol):
    title: str
    """Shown in every page's heading."""
    folder: Path
    """The folder served; live games journal under it."""

    def record(self, key: str) -> dict[str, Any]:
        """The game record named by ``key``.

        Raises:
            NotFound: no such game.
            RecordError: the record is there but cannot be read as one.
        """
        ...

    def close(self) -> None: ...


class FolderSource:
    """A folder of match folders and records (``pitch serve matches/``)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder.resolve()
        self.title = self.folder.name

    def record(self, key: str) -> dict[str, Any]:
        path = (self.folder / key).resolve()
        if not path.is_relative_to(self.folder) or not path.is_file():
            raise NotFound(f"no record {key} in {self.folder}")
        return load_record(path)

    def close(self) -> None:
        pass


class LadderSource:
    """A ladder folder and its database (``pitch serve --ladder FOLDER``)."""

    def __init__(self, folder: Path, db: str | None = None) -> None:
        from pitch_ladder.ladder import Ladder

        self.ladder = Ladder.open(folder, db)
        self.folder = self.ladder.folder
        self.title = f"ladder {self.folder.name}"

    def record(self, key: str) -> dict[str, Any]:
        from pitch_ladder.errors import LadderError

        if not key.isdigit():
            raise NotFound(f"no game {key}: ladder games are numbered")
        try:
            return self.ladder.game(int(key)).record
        except LadderError as error:
            raise NotFound(str(error)) from None

    def close(self) -> None:
        self.ladder.close()


def open_source(folder: Path, db: str | None = None) -> Source:
    """The ladder in ``folder`` if it holds one, else the folder of matches and records."""
    if (folder / LADDER_FILE).exists() or db:
        return LadderSource(folder, db)
    return FolderSource(folder)
