"""How long a ladder keeps its bots' logs: by age, and within a total size.

Two kinds of logs grow without end on a server: each match's bot logs
(``matches/<match>/logs/worker-N/*.log`` and the index beside each,
``pitch_referee.logindex``; each bot's within its budget per match:
``MatchSettings.log_budget_bytes``) and the smoke tests kept for refused submissions
(``smoke/<folder>/``). ``sweep`` removes the match logs older than
``match_log_days`` and the smoke tests older than ``refused_log_days``, then, while what
is left is over ``max_log_bytes``, the oldest first. A match still being played keeps its
logs, whatever their age. Records, ratings and verdicts are never touched: a game whose
logs are gone shows no log lines.

``pitch serve --ladder`` sweeps at start and every ``sweep_minutes`` (``Sweeper``), with
the ``[retention]`` table of its settings file.
"""

from __future__ import annotations

import logging
import shutil
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session, col, select

from pitch_referee.logindex import INDEX_SUFFIX

from .ladder import Ladder
from .layout import SMOKE_FOLDER
from .models import Match

log = logging.getLogger(__name__)
DAY_S = 86_400


@dataclass(frozen=True)
class RetentionSettings:
    """The ``[retention]`` table of ``pitch serve``'s settings file."""

    match_log_days: float = 90
    """A finished match's bot logs go this long after they were last written (0: kept)."""
    refused_log_days: float = 30
    """A refused submission's smoke-test logs go this long after its verdict (0: kept)."""
    max_log_bytes: int = 10 * 1024**3
    """All of them together stay within this; beyond it the oldest go first (0: no limit)."""
    sweep_minutes: float = 60
    """How often the server sweeps, after the sweep at its start (0: at start only)."""

    def __post_init__(self) -> None:
        for name in ("match_log_days", "refused_log_days", "max_log_bytes", "sweep_minutes"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must not be negative")


@dataclass(frozen=True)
class Swept:
    """What a sweep removed."""

    files: int
    bytes: int
    kept_bytes: int
    """What the logs hold after the sweep."""


@dataclass
class _Item:
    path: Path
    size: int
    mtime: float
    folder: bool


def sweep(ladder: Ladder, settings: RetentionSettings, now: float | None = None) -> Swept:
    """Remove the logs that ``settings`` keeps no longer (see the module docstring)."""
    now = time.time() if now is None else now
    items = [*_match_logs(ladder), *_smoke_tests(ladder)]
    removed = freed = 0

    def remove(item: _Item) -> None:
        nonlocal removed, freed
        try:
            if item.folder:
                shutil.rmtree(item.path)
            else:
                item.path.unlink()
        except FileNotFoundError:
            return
        removed, freed = removed + 1, freed + item.size

    left = []
    for item in items:
        days = settings.refused_log_days if item.folder else settings.match_log_days
        if days and now - item.mtime > days * DAY_S:
            remove(item)
        else:
            left.append(item)
    total = sum(item.size for item in left)
    if settings.max_log_bytes:
        for item in sorted(left, key=lambda item: item.mtime):
            if total <= settings.max_log_bytes:
                break
            remove(item)
            total -= item.size
    if removed:
        log.info("retention: removed %d logs (%d bytes); %d bytes kept", removed, freed, total)
    return Swept(removed, freed, total)


def _match_logs(ladder: Ladder) -> list[_Item]:
    """Every log file and log index of the matches not being played (a pending match may
    be playing)."""
    with Session(ladder.engine) as session:
        playing = set(
            session.exec(select(Match.folder).where(col(Match.status) == "pending")).all()
        )
    items = []
    for path in (ladder.folder / "matches").glob("*/logs/*/*.log*"):
        if not path.name.endswith((".log", f".log{INDEX_SUFFIX}")):
            continue
        match = path.parents[2].relative_to(ladder.folder).as_posix()
        if match in playing:
            continue
        try:
            stat = path.stat()
        except FileNotFoundError:
            continue
        items.append(_Item(path, stat.st_size, stat.st_mtime, folder=False))
    return items


def _smoke_tests(ladder: Ladder) -> list[_Item]:
    """Every refused submission's smoke test, a folder each, as old as its newest file."""
    items = []
    for folder in (ladder.folder / SMOKE_FOLDER).glob("*"):
        if not folder.is_dir() or folder.is_symlink():
            continue
        files = [path.stat() for path in folder.rglob("*") if path.is_file()]
        newest = max((stat.st_mtime for stat in files), default=folder.stat().st_mtime)
        items.append(_Item(folder, sum(stat.st_size for stat in files), newest, folder=True))
    return items


class Sweeper:
    """Sweeps a ladder's logs in a thread: at once, then every ``sweep_minutes`` until
    ``stop`` is set (a sweep that fails is logged, and the next one tries again)."""

    def __init__(self, ladder: Ladder, settings: RetentionSettings, stop: threading.Event):
        self.ladder = ladder
        self.settings = settings
        self.stop = stop
        self.thread = threading.Thread(target=self._run, name="retention", daemon=True)

    def start(self) -> Sweeper:
        self.thread.start()
        return self

    def _run(self) -> None:
        interval = self.settings.sweep_minutes * 60
        while True:
            try:
                sweep(self.ladder, self.settings)
            except (OSError, SQLAlchemyError) as error:  # a server keeps serving
                log.warning("retention: the sweep failed: %s", error)
            if not interval or self.stop.wait(interval):
                return
