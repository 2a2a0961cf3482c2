"""``pitch serve``'s settings file: the server, the scheduler and the upload limits in one
TOML file, every key optional (``docs/deployment.md`` lists them). Options on the command
line win over the file.

    [server]
    host = "127.0.0.1"
    port = 8000
    header_timeout_s = 10   # a request's headers must arrive within it
    body_timeout_s = 120    # and its body within this, from its first byte read
    keep_alive_s = 5        # an idle kept-alive connection is closed after it
    max_connections = 1000  # more at once: 503
    max_header_bytes = 16384

    [limits]
    uploads_per_hour = 20   # per author (an admin may give one author others)
    checks = 2              # an author's uploads being checked or waiting, at once
    versions = 50           # versions stored per author
    disk_bytes = 104857600  # bytes of an author's stored versions, unpacked
    checks_at_once = 2      # the server's check processes
    checks_queued = 64      # uploads waiting for one; more: 503

    [scheduler]
    enabled = true          # false: serve the pages and API only
    workers = 2             # matches at once (default: the cores)
    games_per_match = 2
    matches_per_step = 8
    placement_matches = 6
    quartets_per_step = 0   # groups of four that also play the mixed-partnership format
    interval_s = 0          # the least time between steps' starts: a rate limit
    timing_grid_ms = 25     # requests released on a 25 ms grid: no finer timing signals
    rules = { hand_cap = 30 }

    [uploads]
    max_archive_bytes = 52428800
    max_entries = 5000
    max_unpacked_bytes = 209715200

    [retention]
    match_log_days = 90       # a finished match's bot logs, kept this long (0: for good)
    refused_log_days = 30     # a refused submission's smoke-test logs
    max_log_bytes = 10737418240  # all of them; beyond it the oldest go first (0: no limit)
    sweep_minutes = 60        # the server sweeps at start, then this often
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from types import NoneType, UnionType
from typing import Any, Union, get_args, get_origin, get_type_hints

from pitch_ladder.archive import ArchiveLimits
from pitch_ladder.pairing import PairingSettings
from pitch_ladder.quotas import AuthorLimits
from pitch_ladder.retention import RetentionSettings
from pitch_ladder.scheduler import SchedulerSettings
from pitch_referee.errors import PitchError
from pitch_sdk.options import RuleOptions


@dataclass(frozen=True)
class ServerSettings:
    """The ``[server]`` table: where to listen, and how long a slow client is waited for."""

    host: str = "127.0.0.1"
    port: int = 8000
    header_timeout_s: float = 10.0
    """From a connection's opening (or its next request's first byte) to the end of the
    request's headers; past it the connection is closed."""
    body_timeout_s: float = 120.0
    """From the first read of a request's body to its end; past it a 408, and the
    connection is closed (50 MiB in 120 s: 440 KB/s)."""
    keep_alive_s: float = 5.0
    """An idle kept-alive connection is closed after it (uvicorn's ``timeout_keep_alive``)."""
    max_connections: int = 1000
    """Connections served at once; a request beyond them is a 503 (``limit_concurrency``)."""
    max_header_bytes: int = 16 * 1024
    """A request's line and headers (``h11_max_incomplete_event_size``); over it, a 400."""

    def __post_init__(self) -> None:
        if not 0 <= self.port <= 65535:
            raise ValueError(f"port {self.port} is not a port (0 to 65535)")
        for name in ("header_timeout_s", "body_timeout_s", "keep_alive_s"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be more than 0")
        if self.max_connections < 1 or self.max_header_bytes < 1024:
            raise ValueError("max_connections must be at least 1, max_header_bytes 1024")


@dataclass(frozen=True)
class LimitsFile:
    """The ``[limits]`` table: every author's limits, and the server's uploads' checks."""

    uploads_per_hour: int = AuthorLimits.uploads_per_hour
    checks: int = AuthorLimits.checks
    versions: int = AuthorLimits.versions
    disk_bytes: int = AuthorLimits.disk_bytes
    checks_at_once: int = 2
    """Uploads checked at once, each in a process of its own at a lower CPU priority."""
    checks_queued: int = 64
    """Uploads waiting for a check; one more is a 503 with Retry-After."""

    def __post_init__(self) -> None:
        self.per_author()
        if self.checks_at_once < 1 or self.checks_queued < 0:
            raise ValueError("checks_at_once must be at least 1, checks_queued at least 0")

    def per_author(self) -> AuthorLimits:
        """Every author's limits, before an admin's override.

        Raises:
            ValueError: a limit under 1.
        """
        return AuthorLimits(self.uploads_per_hour, self.checks, self.versions, self.disk_bytes)


@dataclass(frozen=True)
class SchedulerFile:
    """The ``[scheduler]`` table."""

    enabled: bool = True
    workers: int | None = None
    games_per_match: int = 2
    matches_per_step: int = 8
    placement_matches: int = 6
    quartets_per_step: int = 0
    interval_s: float = 0.0
    timing_grid_ms: int = 25
    """The tournament's timing grid (``MatchSettings.timing_grid_ms``): on by default
    here, where strangers' bots partner each other; 0 turns it off."""
    rules: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.workers is not None and self.workers < 1:
            raise ValueError("workers must be at least 1")

    def settings(self) -> SchedulerSettings:
        """The scheduler's own settings.

        Raises:
            ValueError: a value out of range, or an unknown or bad rule.
        """
        return SchedulerSettings(
            pairing=PairingSettings(
                self.matches_per_step, self.placement_matches, self.quartets_per_step
            ),
            games_per_match=self.games_per_match,
            rules=RuleOptions.from_dict(self.rules).to_dict(),
            interval_s=self.interval_s,
            timing_grid_ms=self.timing_grid_ms,
        )


@dataclass(frozen=True)
class ServeSettings:
    server: ServerSettings = field(default_factory=ServerSettings)
    scheduler: SchedulerFile = field(default_factory=SchedulerFile)
    uploads: ArchiveLimits = field(default_factory=ArchiveLimits)
    limits: LimitsFile = field(default_factory=LimitsFile)
    retention: RetentionSettings = field(default_factory=RetentionSettings)

    @classmethod
    def load(cls, path: Path | None) -> ServeSettings:
        """The settings in ``path`` (the defaults without one).

        Raises:
            PitchError: the file is missing, not TOML, or has an unknown table or key, or a
                value of the wrong type or out of range (the message names it).
        """
        if path is None:
            return cls()
        try:
            data = tomllib.loads(path.read_text())
        except OSError as error:
            raise PitchError(f"cannot read the settings file {path}: {error.strerror}") from None
        except tomllib.TOMLDecodeError as error:
            raise PitchError(f"{path}: not valid TOML ({error})") from None
        tables = {
            "server": ServerSettings,
            "scheduler": SchedulerFile,
            "uploads": ArchiveLimits,
            "limits": LimitsFile,
            "retention": RetentionSettings,
        }
        unknown = sorted(set(data) - set(tables))
        if unknown:
            raise PitchError(f"{path}: unknown table [{unknown[0]}] (known: {', '.join(tables)})")
        parts = {
            name: _table(path, name, kind, data.get(name, {})) for name, kind in tables.items()
        }
        settings = cls(**parts)
        try:
            settings.scheduler.settings()
        except ValueError as error:
            raise PitchError(f"{path}: [scheduler]: {error}") from None
        return settings


def _table(path: Path, name: str, kind: type, values: object) -> Any:
    """``kind`` made from the TOML table ``values``, every key and type checked."""
    if not isinstance(values, dict):
        raise PitchError(f"{path}: {name} must be a table ([{name}])")
    hints = get_type_hints(kind)
    for key, value in values.items():
        if key not in hints:
            known = ", ".join(f.name for f in fields(kind))
            raise PitchError(f"{path}: [{name}] has no setting {key!r} (known: {known})")
        accepted = _value_types(hints[key])
        if type(value) not in accepted:
            wanted = " or ".join(t.__name__ for t in accepted)
            raise PitchError(f"{path}: [{name}] {key} must be {wanted}, not {value!r}")
    try:
        return kind(**values)
    except ValueError as error:
        raise PitchError(f"{path}: [{name}]: {error}") from None


def _value_types(hint: Any) -> tuple[type, ...]:
    """The TOML value types that a field of type ``hint`` takes (a float takes an int)."""
    options = get_args(hint) if get_origin(hint) in (Union, UnionType) else (hint,)
    kinds = [get_origin(option) or option for option in options if option is not NoneType]
    if float in kinds:
        kinds.append(int)
    return tuple(kinds)
