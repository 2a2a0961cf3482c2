"""``pitch serve``'s settings file: the server, the scheduler and the upload limits in one
TOML file, every key optional (``docs/deployment.md`` lists them). Options on the command
line win over the file.

    [server]
    host = "127.0.0.1"
    port = 8000

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
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from types import NoneType, UnionType
from typing import Any, Union, get_args, get_origin, get_type_hints

from pitch_ladder.archive import ArchiveLimits
from pitch_ladder.pairing import PairingSettings
from pitch_ladder.scheduler import SchedulerSettings
from pitch_referee.errors import PitchError
from pitch_sdk.options import RuleOptions


@dataclass(frozen=True)
class ServerSettings:
    host: str = "127.0.0.1"
    port: int = 8000

    def __post_init__(self) -> None:
        if not 0 <= self.port <= 65535:
            raise ValueError(f"port {self.port} is not a port (0 to 65535)")


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
        tables = {"server": ServerSettings, "scheduler": SchedulerFile, "uploads": ArchiveLimits}
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
