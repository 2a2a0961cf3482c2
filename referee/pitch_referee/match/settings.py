"""Who plays a match and how: ``Entrant``, ``MatchSettings``, and ``MatchError``.

Settings are checked once, when they are made; their messages say what is wrong in the
settings' own terms (``games must be at least 1``), and a ``SettingError`` names the
field, so that the command line can word it with its flag.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Collection, Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from pitch_sdk.options import RuleOptions

from ..game_loop import FaultPolicy, TimeControl
from ..manifest import BotManifest, load_manifest
from ..process import StartOptions
from ..referee import RefereeSettings
from ..sandbox import SandboxLimits, SandboxMode, SandboxUnavailableError
from ..sandbox import resolve as resolve_sandbox
from ..stats import SprtParams, parse_sprt, sprt_sample_cap


class MatchError(ValueError):
    """A match that cannot be started or resumed; the message says why."""


class SettingError(MatchError):
    """A match setting with a bad value.

    ``setting`` is the field and ``problem`` what is wrong with it. The message is the
    ``subject`` (the setting in words) followed by the problem, or the problem alone
    when there is no subject (the problem then says what it is about).
    """

    def __init__(self, setting: str, problem: str, subject: str | None = None) -> None:
        super().__init__(f"{subject} {problem}" if subject else problem)
        self.setting = setting
        self.problem = problem
        self.subject = subject


class NoSandboxError(MatchError):
    """The settings ask for the sandbox, and this machine cannot provide it."""


@dataclass(frozen=True)
class Entrant:
    """One side of a match: a bot folder, or a name for a bot the user starts by hand."""

    name: str
    manifest: BotManifest | None = None

    @property
    def version(self) -> str:
        return self.manifest.version if self.manifest else "by hand"

    @property
    def by_hand(self) -> bool:
        return self.manifest is None

    @classmethod
    def from_folder(cls, folder: str | Path) -> Entrant:
        """The bot in ``folder`` (its ``bot.toml``).

        Raises:
            MatchError: there is no folder there.
            ManifestError: its ``bot.toml`` is missing or wrong.
        """
        path = Path(folder)
        if not path.is_dir():
            raise MatchError(f"no bot folder at {folder}")
        manifest = load_manifest(path)
        return cls(manifest.name, manifest)

    @classmethod
    def from_argument(cls, text: str, by_hand: Collection[str] = ()) -> Entrant:
        """A bot started by hand if ``text`` is one of the ``by_hand`` names, else the bot
        folder ``text`` (``from_folder``): a name is never taken for a bot started by hand
        unless the caller says so."""
        if text in by_hand:
            return cls(text, None)
        return cls.from_folder(text)

    def to_json(self) -> dict[str, Any]:
        folder = str(self.manifest.folder) if self.manifest else None
        return {"name": self.name, "version": self.version, "folder": folder}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Entrant:
        if data.get("folder"):
            manifest = load_manifest(data["folder"])
            return cls(manifest.name, manifest)
        return cls(data["name"], None)


MAX_TIMING_GRID_MS = 1000
"""The coarsest timing grid: a second per decision already makes a game last minutes."""
DEFAULT_GAMES = 100
"""Games of a match without an SPRT, unless told otherwise."""
LOG_BUDGET_BYTES = 10 * 1024 * 1024
"""What a bot's logs may hold in one match, all its seats and workers together."""


def default_games(sprt: str | None, duplicate: bool = True) -> int:
    """The games of a match not told how many: ``DEFAULT_GAMES``, or with an SPRT enough
    for the test to decide 99 times in 100 however close the bots are
    (``stats.sprt_sample_cap``: pairs in a duplicate match, games in a plain one).

    Raises:
        SettingError: the SPRT text does not read.
    """
    if not sprt:
        return DEFAULT_GAMES
    try:
        samples = sprt_sample_cap(parse_sprt(sprt))
    except ValueError as error:
        raise SettingError("sprt", str(error).removeprefix("SPRT "), "SPRT") from None
    return 2 * samples if duplicate else samples


@dataclass(frozen=True)
class MatchSettings:
    games: int = DEFAULT_GAMES
    """Games to play; with duplicate deals, rounded up to whole pairs. With an SPRT,
    the cap where the match stops undecided (``default_games`` is one that suffices)."""
    seed: int | None = None
    """The deals, and the secret of the bots' seeds; ``None``: a fresh one (``seeded``)."""
    duplicate: bool = True
    concurrency: int = 1
    time_limit_ms: int = 1000
    time_reserve_ms: int = 10_000
    fault_policy: str = "forfeit"
    rules: RuleOptions = field(default_factory=RuleOptions)
    """The rule options. A dict (as ``match.json`` and the ladder's database hold them)
    is read into ``RuleOptions`` when the settings are made."""
    sprt: str | None = None
    """``elo0=..,elo1=..[,alpha=..,beta=..]``: stop as soon as the test decides."""
    start_timeout_s: float = 10.0
    affinity: bool = True
    """Pin each worker process, with its bots, to its own core (see ``affinity``)."""
    sandbox: str = "auto"
    """``on``, ``off`` or ``auto``: run the bots in the sandbox (``sandbox.SandboxMode``)."""
    memory_mb: int = SandboxLimits.memory_mb
    """Each sandboxed bot process's memory, its children included."""
    max_processes: int = SandboxLimits.processes
    """Each sandboxed bot's processes and threads."""
    attach_timeout_s: float = 120.0
    """How long the processes of a bot started by hand have to connect."""
    log_budget_bytes: int = LOG_BUDGET_BYTES
    """What each bot's logs keep in this match, over all its log files together: shared
    out evenly between the files it writes (one per seat it holds, per worker: a same-bot
    team in a match of 2 workers writes 4), each of which stops at its share
    (``log_cap_bytes``). A flooding bot keeps this much of the match, no more."""
    timing_grid_ms: int = 0
    """Release each decision request on a grid of this many ms from the game's start, so
    that a partner's think time is not seen finer than it (timing signals between
    partners: docs/sandbox.md); 0, as ``pitch match`` by default: at once. The ladder's
    service uses 25 ms (``[scheduler] timing_grid_ms``)."""
    compress_records: bool = False
    """Write each game's record gzip-compressed, as ``<game>.json.gz`` (about a tenth of
    the size; ``pitch match`` does by default), rather than as plain ``<game>.json``.
    Off here so that a caller that finds records by name (the ladder's import looks
    for ``*.json``) keeps finding them; ``load_record`` reads both. A folder written
    before this setting existed has plain records, and resumes so."""

    def __post_init__(self) -> None:
        if isinstance(self.rules, Mapping):
            try:
                object.__setattr__(self, "rules", RuleOptions.from_dict(dict(self.rules)))
            except (TypeError, ValueError) as error:
                raise SettingError("rules", str(error)) from None
        elif not isinstance(self.rules, RuleOptions):
            problem = f"should be rule options, not {type(self.rules).__name__}"
            raise SettingError("rules", problem, "the rules")
        if self.games < 1:
            raise SettingError("games", "must be at least 1", "games")
        if self.concurrency < 1:
            raise SettingError("concurrency", "must be at least 1", "concurrency")
        if self.time_limit_ms < 1:
            raise SettingError("time_limit_ms", "must be at least 1 ms", "the time limit")
        if self.time_reserve_ms < 0:
            raise SettingError("time_reserve_ms", "must not be negative", "the time reserve")
        try:
            FaultPolicy(self.fault_policy)
        except ValueError:
            problem = f"must be forfeit or substitute, not {self.fault_policy!r}"
            raise SettingError("fault_policy", problem, "the fault policy") from None
        try:
            self.sprt_params()
        except ValueError as error:  # parse_sprt's messages start with "SPRT "
            raise SettingError("sprt", str(error).removeprefix("SPRT "), "SPRT") from None
        try:
            SandboxMode(self.sandbox)
        except ValueError:
            problem = f"must be on, off or auto, not {self.sandbox!r}"
            raise SettingError("sandbox", problem, "the sandbox") from None
        if self.memory_mb < 16:
            raise SettingError("memory_mb", "must be at least 16 MB", "a bot's memory")
        if self.max_processes < 4:
            raise SettingError("max_processes", "must be at least 4", "a bot's process limit")
        if self.log_budget_bytes < 1024:
            raise SettingError("log_budget_bytes", "must be at least 1024 bytes", "a bot's logs")
        if not 0 <= self.timing_grid_ms <= MAX_TIMING_GRID_MS:
            problem = f"must be 0 (none) to {MAX_TIMING_GRID_MS} ms"
            raise SettingError("timing_grid_ms", problem, "the timing grid")
        if not self.attach_timeout_s > 0:
            problem = "must be more than 0 s"
            raise SettingError("attach_timeout_s", problem, "the time to start a bot by hand")

    def to_json(self) -> dict[str, Any]:
        """As ``match.json`` and the ladder's database hold them (rules as a dict)."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> MatchSettings:
        """Settings written by ``to_json``; a key this version does not know is an error.

        Raises:
            MatchError: an unknown key or a bad value (a ``SettingError``).
        """
        known = {item.name for item in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise MatchError(f"unknown match setting {unknown[0]!r}")
        try:
            return cls(**data)
        except TypeError as error:  # a value of the wrong type, compared with a number
            raise MatchError(f"unreadable match settings ({error})") from None

    def seeded(self) -> MatchSettings:
        """These settings with a seed: their own, or a fresh random one (63 bits)."""
        return self if self.seed is not None else replace(self, seed=secrets.randbits(63))

    def options(self) -> RuleOptions:
        return self.rules

    def sprt_params(self) -> SprtParams | None:
        """The SPRT's parameters, or ``None`` for a match without one."""
        return parse_sprt(self.sprt) if self.sprt else None

    def sandboxed(self, warn: Callable[[str], None]) -> bool:
        """Whether this machine runs these bots in the sandbox (``warn`` if auto finds none).

        Raises:
            NoSandboxError: the sandbox is on and the machine cannot provide it.
        """
        try:
            return resolve_sandbox(SandboxMode(self.sandbox), warn)
        except SandboxUnavailableError as error:
            raise NoSandboxError(str(error)) from None

    def log_cap_bytes(self, seats: int, workers: int | None = None) -> int:
        """The share of a bot's ``log_budget_bytes`` that each of its log files keeps, for
        a bot that holds ``seats`` process slots in each of ``workers`` (default: the
        match's ``concurrency``)."""
        return self.log_budget_bytes // (max(1, seats) * max(1, workers or self.concurrency))

    def referee_settings(self, sandboxed: bool) -> RefereeSettings:
        limits = SandboxLimits(memory_mb=self.memory_mb, processes=self.max_processes)
        return RefereeSettings(
            TimeControl(self.time_limit_ms, self.time_reserve_ms),
            FaultPolicy(self.fault_policy),
            StartOptions(self.start_timeout_s),
            sandbox=limits if sandboxed else None,
            attach_timeout_s=self.attach_timeout_s,
            timing_grid_ms=self.timing_grid_ms,
        )
