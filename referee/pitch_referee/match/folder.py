"""The match folder, the one place that knows its layout.

```
<root>/match.json        who and how (``MATCH_FORMAT``), written before the first game
<root>/games/<game>.json one record per finished game, written atomically
<root>/logs/worker-N/    each worker's bot logs
<root>/summary.json      recomputed from the records (``summary.MatchSummary.to_json``)
```

The folder is the source of truth: a match killed at any moment resumes by playing
exactly the games that have no finished record yet.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pitch_sdk.record import RecordError, load_record, record_result

from .schedule import GameSpec
from .settings import Entrant, MatchError, MatchSettings

MATCH_FORMAT = "pitch-match"
MATCH_VERSION = 1


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

    def exists(self) -> bool:
        """Whether a match was started here."""
        return self.header_path.exists()

    def record_path(self, spec: GameSpec) -> Path:
        return self.games_dir / f"{spec.game_id}.json"

    def worker_logs(self, worker: int) -> Path:
        return self.logs_dir / f"worker-{worker}"

    def write_header(self, a: Entrant, b: Entrant, settings: MatchSettings) -> None:
        header = {
            "format": MATCH_FORMAT,
            "version": MATCH_VERSION,
            "bots": {"a": a.to_json(), "b": b.to_json()},
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
        path = self.header_path
        try:
            header = json.loads(path.read_text())
            if header.get("format") != MATCH_FORMAT or header.get("version") != MATCH_VERSION:
                raise MatchError(f"{path}: not a pitch match of a known version")
            settings = MatchSettings.from_json(header["settings"])
            bots = header["bots"]
            return Entrant.from_json(bots["a"]), Entrant.from_json(bots["b"]), settings
        except FileNotFoundError:
            raise MatchError(f"{self.root}: no match here (no match.json)") from None
        except (json.JSONDecodeError, AttributeError, KeyError, TypeError) as error:
            raise MatchError(f"{path}: unreadable match header ({error})") from None
        except MatchError as error:
            raise MatchError(f"{path}: {error}") from None

    def finished(self, specs: Iterable[GameSpec]) -> dict[GameSpec, dict[str, Any]]:
        """The records of finished games; a record without a result does not count, and
        neither does one that cannot be read (the game is played again)."""
        done = {}
        for spec in specs:
            try:
                record = load_record(self.record_path(spec))
                if record_result(record) is not None:
                    done[spec] = record
            except RecordError:
                continue
        return done

    def finished_count(self) -> int:
        """How many games have a finished record, whatever the schedule (for listings)."""
        count = 0
        for path in self.games_dir.glob("*.json"):
            try:
                count += record_result(load_record(path)) is not None
            except RecordError:
                continue
        return count

    def write_summary(self, data: dict[str, Any]) -> None:
        write_json(self.summary_path, data)


def write_json(path: Path, data: Any) -> None:
    """Write ``data`` atomically: a reader never finds half a file."""
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(data, indent=1) + "\n")
    temporary.replace(path)
