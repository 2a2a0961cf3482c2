"""Games' analyses kept on disk, so that a game is analysed once however often it is viewed.

One JSON file per game, named by a hash of its key (a key is a record's path or a ladder
game's number: never a file name to trust), holding the key, the record's version and the
analysis. The version is what changes when a folder's record file is rewritten (its
modification time and size, as the viewer's kept timelines use); a ladder's game never
changes. An analysis kept for another version of its record, or in another format, is not
served and is removed.

Where: a ladder's under its folder (``<ladder>/analysis/``); a folder of matches' in a
cache folder the server owns (``$XDG_CACHE_HOME/pitch/analysis/<hash of the folder>/``, by
default under ``~/.cache``), since the folder served may be read-only or someone else's.
At most ``limit`` files are kept: writing one more removes the least recently written.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from .game_analysis import FORMAT_VERSION

KEPT_ANALYSES = 1000
"""Analyses kept per server: about 4 KB a hand (45 KB for a 12-hand game, 0.6 MB for
155 hands), so some 50 MB for games of a usual length."""
SUFFIX = ".analysis.json"


class AnalysisStore:
    """The kept analyses in ``folder``, at most ``limit`` of them."""

    def __init__(self, folder: Path, limit: int = KEPT_ANALYSES) -> None:
        if limit < 1:
            raise ValueError("an analysis store keeps at least one analysis")
        self.folder = folder
        self.limit = limit

    def get(self, key: str, version: object) -> dict[str, Any] | None:
        """The analysis kept for game ``key`` at ``version`` of its record, if any."""
        path = self._path(key)
        try:
            kept = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if (
            not isinstance(kept, dict)
            or kept.get("key") != key
            or kept.get("version") != _jsonable(version)
            or not isinstance(kept.get("analysis"), dict)
            or kept["analysis"].get("version") != FORMAT_VERSION
        ):
            path.unlink(missing_ok=True)  # stale: its record changed, or an older format
            return None
        return kept["analysis"]

    def put(self, key: str, version: object, analysis: dict[str, Any]) -> None:
        """Keep ``analysis`` of game ``key`` at ``version``, whole or not at all.

        Raises:
            OSError: the folder cannot be written (the analysis is still served once).
        """
        self.folder.mkdir(parents=True, exist_ok=True)
        body = json.dumps(
            {"key": key, "version": _jsonable(version), "analysis": analysis},
            separators=(",", ":"),
        )
        handle, temporary = tempfile.mkstemp(dir=self.folder, suffix=".part")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                file.write(body)
            os.replace(temporary, self._path(key))
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        self._bound()

    def count(self) -> int:
        """How many analyses are kept."""
        return len(self._files())

    def _files(self) -> list[Path]:
        try:
            return [path for path in self.folder.iterdir() if path.name.endswith(SUFFIX)]
        except OSError:
            return []

    def _bound(self) -> None:
        """Remove the least recently written analyses beyond the limit."""
        files = self._files()
        if len(files) <= self.limit:
            return
        by_age = sorted(files, key=_written)
        for path in by_age[: len(files) - self.limit]:
            path.unlink(missing_ok=True)

    def _path(self, key: str) -> Path:
        digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        return self.folder / f"{digest}{SUFFIX}"


def _written(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return 0


def _jsonable(version: object) -> object:
    """A record's version as JSON reads it back (a tuple comes back a list)."""
    return list(version) if isinstance(version, tuple) else version


def cache_folder(served: Path) -> Path:
    """The cache folder of a folder of matches' analyses: one per folder served."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    digest = hashlib.sha256(str(served.resolve()).encode("utf-8", "surrogatepass")).hexdigest()
    return base / "pitch" / "analysis" / digest[:16]
