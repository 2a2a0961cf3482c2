"""The match folder, the one place that knows its layout.

```
<root>/match.json           who and how (``MATCH_FORMAT``), written before the first game
<root>/games/<game>.json.gz one record per finished game, written atomically: gzip-
                            compressed JSON, or plain ``<game>.json`` (``compress_records``)
<root>/outcomes.jsonl       a line per finished game: its outcome, taken from its record
<root>/logs/worker-N/       each worker's bot logs
<root>/summary.json         recomputed from the outcomes (``summary.MatchSummary.to_json``)
```

The folder is the source of truth: a match killed at any moment resumes by playing
exactly the games that have no finished record yet. ``outcomes.jsonl`` only saves
reading the records again (``outcomes``): a record counts whether or not it has a line.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from .schedule import GameSpec
from .settings import Entrant, MatchError, MatchSettings

MIXED_FILE = "mixed.json"
"""What marks a folder of the mixed-partnership format: its team matches are the match
folders inside it (``mixed``)."""

MATCH_FORMAT = "pitch-match"
MATCH_VERSION = 1
TEAM_MATCH_VERSION = 2
"""A match whose teams are two different bots (``bots`` names ``a_partner`` or
``b_partner``): a reader that knows only version 1 refuses it rather than seat bot A in
its partner's place."""

PLAIN = ".json"
COMPRESSED = ".json.gz"
RECORD_SUFFIXES = (COMPRESSED, PLAIN)
"""How record files end: ``<game>.json.gz`` (gzip) or ``<game>.json``; both are records,
which ``load_record`` reads alike."""


class RecordFile(NamedTuple):
    """A record file as a directory listing shows it: enough to tell whether it changed."""

    name: str
    size: int
    mtime_ns: int

    @property
    def game(self) -> str:
        """The game whose record this is."""
        return self.name.removesuffix(COMPRESSED).removesuffix(PLAIN)

    @property
    def compressed(self) -> bool:
        return self.name.endswith(COMPRESSED)


@dataclass(frozen=True)
class MatchFolder:
    root: Path

    @property
    def header_path(self) -> Path:
        return self.root / "match.json"

    @property
    def games_dir(self) -> Path:
        return self.root / "games"

    @property
    def logs_dir(self) -> Path:
        return self.root / "logs"

    @property
    def summary_path(self) -> Path:
        return self.root / "summary.json"

    @property
    def outcomes_path(self) -> Path:
        return self.root / "outcomes.jsonl"

    def exists(self) -> bool:
        """Whether a match was started here."""
        return self.header_path.exists()

    def record_path(self, spec: GameSpec, compressed: bool = False) -> Path:
        """Where ``spec``'s record is written: ``<game>.json.gz`` if ``compressed``."""
        return self.games_dir / f"{spec.game_id}{COMPRESSED if compressed else PLAIN}"

    def worker_logs(self, worker: int) -> Path:
        return self.logs_dir / f"worker-{worker}"

    def write_header(
        self,
        a: Entrant,
        b: Entrant,
        settings: MatchSettings,
        partners: tuple[Entrant | None, Entrant | None] = (None, None),
    ) -> None:
        """``match.json``. ``partners``: who partners bot A and bot B (``None``: itself)."""
        bots = {"a": a.to_json(), "b": b.to_json()}
        for side, partner in zip("ab", partners, strict=True):
            if partner is not None:
                bots[f"{side}_partner"] = partner.to_json()
        header = {
            "format": MATCH_FORMAT,
            "version": TEAM_MATCH_VERSION if len(bots) > 2 else MATCH_VERSION,
            "bots": bots,
            "settings": settings.to_json(),
        }
        self.root.mkdir(parents=True, exist_ok=True)
        self.games_dir.mkdir(exist_ok=True)
        write_json(self.header_path, header)

    def read_header(self) -> tuple[Entrant, Entrant, MatchSettings]:
        """Who plays and how, from ``match.json``.

        Raises:
            MatchError: no match here, or a header this version cannot read.
            ManifestError: a bot's folder no longer holds a valid bot.
        """
        header = self._header()
        path = self.header_path
        try:
            settings = MatchSettings.from_json(header["settings"])
            bots = header["bots"]
            return Entrant.from_json(bots["a"]), Entrant.from_json(bots["b"]), settings
        except (AttributeError, KeyError, TypeError) as error:
            raise MatchError(f"{path}: unreadable match header ({error})") from None
        except MatchError as error:
            raise MatchError(f"{path}: {error}") from None

    def read_partners(self) -> tuple[Entrant | None, Entrant | None]:
        """Who partners bot A and bot B, from ``match.json`` (``None``: the bot itself).

        Raises:
            MatchError, ManifestError: as ``read_header``.
        """
        try:
            bots = self._header()["bots"]
            return tuple(  # type: ignore[return-value]
                Entrant.from_json(bots[key]) if key in bots else None
                for key in ("a_partner", "b_partner")
            )
        except (AttributeError, KeyError, TypeError) as error:
            raise MatchError(f"{self.header_path}: unreadable match header ({error})") from None

    def _header(self) -> dict[str, Any]:
        """``match.json``, of a format and version this code reads.

        Raises:
            MatchError: no match here, or a header this version cannot read.
        """
        path = self.header_path
        try:
            header = json.loads(path.read_text())
        except FileNotFoundError:
            raise MatchError(f"{self.root}: no match here (no match.json)") from None
        except json.JSONDecodeError as error:
            raise MatchError(f"{path}: unreadable match header ({error})") from None
        known = (MATCH_VERSION, TEAM_MATCH_VERSION)
        if (
            not isinstance(header, dict)
            or header.get("format") != MATCH_FORMAT
            or header.get("version") not in known
        ):
            raise MatchError(f"{path}: not a pitch match of a known version")
        return header

    def records(self) -> Iterator[RecordFile]:
        """The record files in the games folder (``<game>.json.gz`` and ``<game>.json``;
        not temporary or set-aside files), from the directory listing alone: one
        ``stat`` each, never their contents. Records are written only once their game is
        over."""
        try:
            with os.scandir(self.games_dir) as entries:
                for entry in entries:
                    if _game_of(entry.name) is None:
                        continue
                    try:
                        stat = entry.stat()
                    except FileNotFoundError:  # moved meanwhile (the ladder refusing it)
                        continue
                    yield RecordFile(entry.name, stat.st_size, stat.st_mtime_ns)
        except FileNotFoundError:
            return

    def finished_count(self) -> int:
        """How many games have a record, whatever the schedule (for listings): names
        only, no record is read."""
        return len({file.game for file in self.records()})

    def write_summary(self, data: dict[str, Any], games: Iterable[dict[str, Any]] = ()) -> None:
        """``summary.json``: ``data``, then its ``games`` one to a line."""
        write_json(self.summary_path, data, ("games", games))


def record_game(path: Path) -> str:
    """The game id of the record at ``path``: its name without the record's suffix (the
    referee names each record by its game, and the bots' log indexes by the same id)."""
    name = path.name
    return next((name.removesuffix(s) for s in RECORD_SUFFIXES if name.endswith(s)), name)


def _game_of(name: str) -> str | None:
    """The game whose record a file of this name is, if it is a record's name."""
    for suffix in RECORD_SUFFIXES:
        if name.endswith(suffix):
            game = name[: -len(suffix)]
            return game if game.startswith("pair-") and "." not in game else None
    return None


def write_json(path: Path, data: Any, rows: tuple[str, Iterable[Any]] | None = None) -> None:
    """Write ``data`` atomically: a reader never finds half a file.

    With ``rows`` (a key and its values), ``data`` gets that key last, a list written
    one value to a line as the values come: a long match's summary is never whole in
    memory.
    """
    temporary = path.with_name(path.name + ".tmp")
    with temporary.open("w") as file:
        text = json.dumps(data, indent=1)
        if rows is None:
            file.write(text + "\n")
        else:
            key, values = rows
            head = text.removesuffix("}").rstrip()
            file.write(f"{head}{',' if data else ''}\n {json.dumps(key)}: [")
            for number, value in enumerate(values):
                file.write(("," if number else "") + "\n  " + json.dumps(value))
            file.write("\n ]\n}\n")
    temporary.replace(path)
