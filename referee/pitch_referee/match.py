"""A match between two bots: duplicate deal pairs, concurrent workers, resume, statistics.

Card luck is the enemy of every conclusion in a card game, so by default every deal is
played twice with the teams swapped (same deck order for each hand number, same first
dealer): game ``a`` of a pair has bot A in seats 0 and 2, game ``b`` has it in 1 and 3.

The match folder is the source of truth: ``match.json`` (who and how), one record per
finished game under ``games/`` (written atomically), bot logs under ``logs/``, and
``summary.json``, which is always recomputed from the records. A match killed at any
moment resumes by playing exactly the games that have no record yet; seeded bots make
the resumed match end exactly as an uninterrupted one would.

The match seed gives every deal, and is the secret the bots' own seeds are derived from
(``seeds.bot_seed``), so that one seed replays a whole match. A bot that knows it can
work out the deals: a match given no seed draws a fresh one, kept in ``match.json``.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import queue
import secrets
import threading
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from pitch_sdk.options import RuleOptions
from pitch_sdk.record import RecordError, load_record, write_record

from .errors import BotError
from .game_loop import FaultPolicy, TimeControl
from .manifest import BotManifest, load_manifest
from .process import StartOptions
from .referee import PlayerSlot, Referee, RefereeSettings
from .sandbox import SandboxLimits, SandboxMode, SandboxUnavailableError
from .sandbox import resolve as resolve_sandbox
from .stats import Pentanomial, SprtParams, SprtResult, Trinomial, parse_sprt, sprt
from .workers import die_with_parent, pin_to_core, usable_cores

MATCH_FORMAT = "pitch-match"
MATCH_VERSION = 1


class MatchError(ValueError):
    """A match that cannot be started or resumed; the message says why."""


@dataclass(frozen=True)
class Entrant:
    """One side of a match: a bot folder, or a name for a bot the user starts by hand."""

    name: str
    manifest: BotManifest | None = None

    @property
    def version(self) -> str:
        return self.manifest.version if self.manifest else "by hand"

    @classmethod
    def from_argument(cls, text: str) -> Entrant:
        """A bot folder if ``text`` names one, else a bot the user will start by hand."""
        path = Path(text)
        if path.is_dir() or "/" in text:
            manifest = load_manifest(path)
            return cls(manifest.name, manifest)
        return cls(text, None)


@dataclass(frozen=True)
class MatchSettings:
    games: int = 100
    """Games to play; with duplicate deals, rounded up to whole pairs."""
    seed: int | None = None
    """The deals, and the secret of the bots' seeds; ``None``: a fresh one (``seeded``)."""
    duplicate: bool = True
    concurrency: int = 1
    time_limit_ms: int = 1000
    time_reserve_ms: int = 10_000
    fault_policy: str = "forfeit"
    rules: dict[str, Any] = field(default_factory=dict)
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

    def __post_init__(self) -> None:
        if self.games < 1:
            raise MatchError("--games must be at least 1")
        if self.concurrency < 1:
            raise MatchError("--concurrency must be at least 1")
        if self.time_limit_ms < 1 or self.time_reserve_ms < 0:
            raise MatchError("--time-limit must be positive and --time-reserve not negative")
        try:
            FaultPolicy(self.fault_policy)
        except ValueError:
            raise MatchError(
                f"--fault-policy {self.fault_policy!r}: choose forfeit or substitute"
            ) from None
        self.options()  # validates the rules
        self.sprt_params()
        try:
            SandboxMode(self.sandbox)
        except ValueError:
            raise MatchError(f"--sandbox {self.sandbox!r}: choose on, off or auto") from None
        if self.memory_mb < 16 or self.max_processes < 4:
            raise MatchError("--memory must be at least 16 MB and --max-processes at least 4")

    def seeded(self) -> MatchSettings:
        """These settings with a seed: their own, or a fresh random one (63 bits)."""
        return self if self.seed is not None else replace(self, seed=secrets.randbits(63))

    def options(self) -> RuleOptions:
        return RuleOptions.from_dict(self.rules)

    def sprt_params(self) -> SprtParams | None:
        return parse_sprt(self.sprt) if self.sprt else None

    def sandboxed(self, warn: Callable[[str], None]) -> bool:
        """Whether this machine runs these bots in the sandbox (``warn`` if auto finds none).

        Raises:
            MatchError: the sandbox is on and the machine cannot provide it.
        """
        try:
            return resolve_sandbox(SandboxMode(self.sandbox), warn)
        except SandboxUnavailableError as error:
            raise MatchError(f"{error}; or run trusted bots with --sandbox off") from None

    def referee_settings(self, sandboxed: bool) -> RefereeSettings:
        limits = SandboxLimits(memory_mb=self.memory_mb, processes=self.max_processes)
        return RefereeSettings(
            TimeControl(self.time_limit_ms, self.time_reserve_ms),
            FaultPolicy(self.fault_policy),
            StartOptions(self.start_timeout_s),
            sandbox=limits if sandboxed else None,
        )


@dataclass(frozen=True)
class GameSpec:
    """One game of the schedule."""

    pair: int
    side: str
    """``a``: bot A is team 0 (seats 0, 2); ``b``: bot A is team 1."""
    seed: str
    first_dealer: int

    @property
    def game_id(self) -> str:
        return f"pair-{self.pair:05d}-{self.side}"

    @property
    def a_team(self) -> int:
        return 0 if self.side == "a" else 1


def schedule(settings: MatchSettings) -> list[GameSpec]:
    """Every game of the match, in order. Duplicate pairs share a seed and first dealer."""
    if settings.seed is None:
        raise MatchError("a match without a seed has no schedule yet: use settings.seeded()")
    if settings.duplicate:
        pairs = (settings.games + 1) // 2
        return [
            GameSpec(pair, side, f"{settings.seed}.{pair}", pair % 4)
            for pair in range(pairs)
            for side in "ab"
        ]
    return [
        GameSpec(game, "ab"[game % 2], f"{settings.seed}.{game}", game % 4)
        for game in range(settings.games)
    ]


def _seats(spec: GameSpec, slots: dict[str, PlayerSlot]) -> list[PlayerSlot]:
    """The process per seat: A1/A2 are bot A's two processes, B1/B2 bot B's."""
    order = ("A1", "B1", "A2", "B2") if spec.side == "a" else ("B1", "A1", "B2", "A2")
    return [slots[key] for key in order]


# --- the match folder ---------------------------------------------------------------


@dataclass(frozen=True)
class MatchFolder:
    root: Path

    @property
    def games_dir(self) -> Path:
        return self.root / "games"

    def record_path(self, spec: GameSpec) -> Path:
        return self.games_dir / f"{spec.game_id}.json"

    def write_header(self, a: Entrant, b: Entrant, settings: MatchSettings) -> None:
        header = {
            "format": MATCH_FORMAT,
            "version": MATCH_VERSION,
            "bots": {side: _entrant_json(entrant) for side, entrant in (("a", a), ("b", b))},
            "settings": asdict(settings),
        }
        self.root.mkdir(parents=True, exist_ok=True)
        self.games_dir.mkdir(exist_ok=True)
        _write_json(self.root / "match.json", header)

    def read_header(self) -> tuple[Entrant, Entrant, MatchSettings]:
        path = self.root / "match.json"
        try:
            header = json.loads(path.read_text())
            if header.get("format") != MATCH_FORMAT or header.get("version") != MATCH_VERSION:
                raise MatchError(f"{path}: not a pitch match of a known version")
            settings = MatchSettings(**header["settings"])
            bots = header["bots"]
            return _entrant_from(bots["a"]), _entrant_from(bots["b"]), settings
        except FileNotFoundError:
            raise MatchError(f"{self.root}: no match here (no match.json)") from None
        except (json.JSONDecodeError, KeyError, TypeError) as error:
            raise MatchError(f"{path}: unreadable match header ({error})") from None

    def finished(self, specs: Iterable[GameSpec]) -> dict[GameSpec, dict[str, Any]]:
        """The records of finished games; a record without a result does not count."""
        done = {}
        for spec in specs:
            try:
                record = load_record(self.record_path(spec))
            except RecordError:
                continue
            if record.get("result"):
                done[spec] = record
        return done


def _entrant_json(entrant: Entrant) -> dict[str, Any]:
    folder = str(entrant.manifest.folder) if entrant.manifest else None
    return {"name": entrant.name, "version": entrant.version, "folder": folder}


def _entrant_from(data: dict[str, Any]) -> Entrant:
    if data.get("folder"):
        manifest = load_manifest(data["folder"])
        return Entrant(manifest.name, manifest)
    return Entrant(data["name"], None)


def _write_json(path: Path, data: Any) -> None:
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(data, indent=1) + "\n")
    temporary.replace(path)


# --- results and statistics ----------------------------------------------------------


@dataclass(frozen=True)
class GameOutcome:
    """One finished game from bot A's side."""

    spec: GameSpec
    a_score: float
    """1 win, 0.5 draw, 0 loss."""
    a_points: int
    b_points: int
    faults: int
    a_cpu_ms: float | None = None
    """CPU used by bot A's two processes in this game, where the sandbox measured it."""
    b_cpu_ms: float | None = None

    @classmethod
    def from_record(cls, spec: GameSpec, record: dict[str, Any]) -> GameOutcome:
        result = record["result"]
        winner = result["winner"]
        a_score = 0.5 if winner is None else float(winner == spec.a_team)
        scores = result["scores"]
        return cls(
            spec,
            a_score,
            scores[spec.a_team],
            scores[1 - spec.a_team],
            len(record.get("faults", [])),
            _team_cpu_ms(record, spec.a_team),
            _team_cpu_ms(record, 1 - spec.a_team),
        )


def _team_cpu_ms(record: dict[str, Any], team: int) -> float | None:
    """The CPU of a team's two seats in a game (``None`` where it was not measured)."""
    players = record.get("players", [])
    spent = [player.get("cpu_ms") for player in players if player.get("seat", -1) % 2 == team]
    if len(spent) != 2 or None in spent:
        return None
    return sum(spent)


@dataclass(frozen=True)
class MatchProgress:
    played: int
    planned: int
    wins: int
    losses: int
    draws: int
    elo: float | None
    elo_interval: tuple[float, float] | None
    sprt: SprtResult | None


def tally(outcomes: Iterable[GameOutcome], duplicate: bool) -> Pentanomial | Trinomial:
    """Pentanomial over complete pairs (duplicate), else trinomial over games."""
    outcomes = list(outcomes)
    if not duplicate:
        return Trinomial.from_scores(outcome.a_score for outcome in outcomes)
    by_pair: dict[int, list[float]] = {}
    for outcome in outcomes:
        by_pair.setdefault(outcome.spec.pair, []).append(outcome.a_score)
    return Pentanomial.from_pair_scores(sum(s) for s in by_pair.values() if len(s) == 2)


def progress_of(
    outcomes: list[GameOutcome], settings: MatchSettings, planned: int
) -> MatchProgress:
    counts = tally(outcomes, settings.duplicate)
    params = settings.sprt_params()
    return MatchProgress(
        played=len(outcomes),
        planned=planned,
        wins=sum(outcome.a_score == 1 for outcome in outcomes),
        losses=sum(outcome.a_score == 0 for outcome in outcomes),
        draws=sum(outcome.a_score == 0.5 for outcome in outcomes),
        elo=counts.elo,
        elo_interval=counts.elo_interval,
        sprt=sprt(counts, params.elo0, params.elo1, params.alpha, params.beta) if params else None,
    )


@dataclass(frozen=True)
class _Loaded:
    """A match folder as read from disk: who, how, the schedule and the finished games."""

    folder: MatchFolder
    a: Entrant
    b: Entrant
    settings: MatchSettings
    specs: list[GameSpec]
    finished: dict[GameSpec, dict[str, Any]]
    outcomes: dict[GameSpec, GameOutcome]


def _load(root: Path) -> _Loaded:
    folder = MatchFolder(root)
    a, b, settings = folder.read_header()
    specs = schedule(settings)
    finished = folder.finished(specs)
    outcomes = {spec: GameOutcome.from_record(spec, record) for spec, record in finished.items()}
    return _Loaded(folder, a, b, settings, specs, finished, outcomes)


def summarize(root: Path, status: str) -> dict[str, Any]:
    """The match summary, recomputed from the records in the folder, and saved."""
    return _summary(_load(root), status)


def _summary(loaded: _Loaded, status: str) -> dict[str, Any]:
    folder, a, b, settings = loaded.folder, loaded.a, loaded.b, loaded.settings
    outcomes = list(loaded.outcomes.values())
    progress = progress_of(outcomes, settings, len(loaded.specs))
    counts = tally(outcomes, settings.duplicate)
    summary = {
        "bots": {"a": _entrant_json(a), "b": _entrant_json(b)},
        "settings": asdict(settings),
        "status": status,
        "games_planned": len(loaded.specs),
        "games_played": len(outcomes),
        "result": {
            "a": {"wins": progress.wins, "losses": progress.losses, "draws": progress.draws},
            "b": {"wins": progress.losses, "losses": progress.wins, "draws": progress.draws},
            "points": {
                "a": sum(outcome.a_points for outcome in outcomes),
                "b": sum(outcome.b_points for outcome in outcomes),
            },
            "faults": sum(outcome.faults for outcome in outcomes),
            "cpu_s": _cpu_seconds(outcomes),
        },
        "stats": {
            "model": "pentanomial" if settings.duplicate else "trinomial",
            "counts": list(counts.counts),
            "elo": progress.elo,
            "elo_interval": list(progress.elo_interval) if progress.elo_interval else None,
            "los": counts.los,
            "sprt": asdict(progress.sprt) if progress.sprt else None,
        },
        "games": [
            {
                "game": spec.game_id,
                "record": str(folder.record_path(spec).relative_to(folder.root)),
                "a_team": spec.a_team,
                "a_score": loaded.outcomes[spec].a_score,
                "scores": record["result"]["scores"],
                "termination": record["result"]["termination"],
            }
            for spec, record in sorted(loaded.finished.items(), key=lambda item: item[0].game_id)
        ],
    }
    _write_json(folder.root / "summary.json", _finite(summary))
    return summary


def _cpu_seconds(outcomes: list[GameOutcome]) -> dict[str, float] | None:
    """Each bot's CPU over the games where it was measured (all of them, or none)."""
    measured = [o for o in outcomes if o.a_cpu_ms is not None and o.b_cpu_ms is not None]
    if not measured:
        return None
    return {
        "a": round(sum(o.a_cpu_ms or 0.0 for o in measured) / 1000, 2),
        "b": round(sum(o.b_cpu_ms or 0.0 for o in measured) / 1000, 2),
        "games": len(measured),
    }


def _finite(data: Any) -> Any:
    """JSON has no infinity: write unbounded Elo limits as null."""
    if isinstance(data, float) and data in (float("inf"), float("-inf")):
        return None
    if isinstance(data, dict):
        return {key: _finite(value) for key, value in data.items()}
    if isinstance(data, list):
        return [_finite(value) for value in data]
    return data


# --- running ------------------------------------------------------------------------


ProgressCallback = Callable[[MatchProgress], None]


def run_match(
    a: Entrant,
    b: Entrant,
    settings: MatchSettings,
    root: Path,
    progress: ProgressCallback | None = None,
    announce: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Play a new match into ``root`` (which must not hold one) and return its summary.

    Settings without a seed get a fresh one, written into ``match.json``.
    """
    if (root / "match.json").exists():
        raise MatchError(f"{root} already holds a match: resume it with --resume {root}")
    settings = settings.seeded()
    if a.manifest is None or b.manifest is None:
        settings = replace(settings, concurrency=1)  # bots by hand join one referee
    MatchFolder(root).write_header(a, b, settings)
    return _play_remaining(root, progress, announce)


def resume_match(
    root: Path, progress: ProgressCallback | None = None, announce: Callable[[str], None] = print
) -> dict[str, Any]:
    """Finish an interrupted match: play only the games that have no record yet."""
    MatchFolder(root).read_header()
    return _play_remaining(root, progress, announce)


def _play_remaining(
    root: Path, progress: ProgressCallback | None, announce: Callable[[str], None]
) -> dict[str, Any]:
    loaded = _load(root)
    settings, specs = loaded.settings, loaded.specs
    outcomes = list(loaded.outcomes.values())
    state = progress_of(outcomes, settings, len(specs))
    if progress:
        progress(state)
    if state.sprt and state.sprt.decision:
        return _summary(loaded, "stopped by SPRT")
    todo = [spec for spec in specs if spec not in loaded.finished]
    _summary(loaded, "running")
    pairs: dict[int, list[GameSpec]] = {}  # in schedule order
    for spec in todo:
        pairs.setdefault(spec.pair, []).append(spec)
    job = _Job(loaded.a, loaded.b, settings, root, settings.sandboxed(announce))
    stopped = False
    for outcome in _run_workers(job, list(pairs.values()), announce):
        outcomes.append(outcome)
        state = progress_of(outcomes, settings, len(specs))
        if progress:
            progress(state)
        if state.sprt and state.sprt.decision:
            stopped = True
            break
    return summarize(root, "stopped by SPRT" if stopped else "finished")


@dataclass(frozen=True)
class _Job:
    a: Entrant
    b: Entrant
    settings: MatchSettings
    root: Path
    sandboxed: bool
    """Resolved once for the match (``MatchSettings.sandboxed``), so every worker agrees."""


def _run_workers(
    job: _Job, pairs: list[list[GameSpec]], announce: Callable[[str], None]
) -> Iterable[GameOutcome]:
    """Outcomes as games finish; closing the generator stops every worker.

    The workers take deal pairs from one queue, so a worker that drew short games takes
    more of them and all finish together. One worker runs on a thread of this process
    (which is also how bots started by hand join); more run in worker processes, one
    referee each, so they use every core, each pinned to its own unless
    ``settings.affinity`` is off.

    Each worker says when it has no pairs left. One that ends without saying so (a
    killed process, a crash) took a pair with it, so the match cannot finish.

    Raises:
        MatchError: a worker failed, or ended without finishing its pairs.
    """
    count = min(job.settings.concurrency, max(1, len(pairs)))
    if count == 1:
        work: Any = queue.SimpleQueue()
        results: Any = queue.SimpleQueue()
        stop: Any = threading.Event()
        arguments = (job, 0, work, results, stop, announce)
        workers = [threading.Thread(target=_work, args=arguments)]
    else:
        context = multiprocessing.get_context("spawn")
        work, results, stop = context.Queue(), context.Queue(), context.Event()
        work.cancel_join_thread()  # a match stopped early exits without feeding its unplayed pairs
        cores = usable_cores() if job.settings.affinity else None
        workers = [
            context.Process(
                target=_worker_main, args=(job, w, os.getpid(), cores, work, results, stop)
            )
            for w in range(count)
        ]
    for pair in pairs:
        work.put(pair)
    for _ in workers:
        work.put(None)  # one "no more pairs" per worker
    for worker in workers:
        worker.daemon = True
        worker.start()
    try:
        done: set[int] = set()
        while len(done) < len(workers):
            ended = [n for n, worker in enumerate(workers) if not worker.is_alive()]
            try:
                message = results.get(timeout=0.5)
            except queue.Empty:  # so the last words of the workers that had ended are read
                _check_ended(workers, [n for n in ended if n not in done], job.root)
                continue
            if isinstance(message, int):
                done.add(message)
            elif isinstance(message, str):
                raise MatchError(message)
            else:
                yield message
    finally:
        stop.set()
        for worker in workers:
            worker.join(timeout=30)
            if isinstance(worker, multiprocessing.process.BaseProcess) and worker.is_alive():
                worker.kill()


def _check_ended(
    workers: list[threading.Thread] | list[multiprocessing.process.BaseProcess],
    ended: list[int],
    root: Path,
) -> None:
    """Raise for the ``ended`` workers, which ended without saying they were done.

    A worker's messages are queued before it ends (a process flushes its queue before
    it exits), so a worker that had ended before an empty wait on the queue has nothing
    more to say.
    """
    if not ended:
        return
    exitcode = getattr(workers[ended[0]], "exitcode", None)  # threads have none
    how = "stopped on an error" if exitcode is None else f"died (exit {exitcode})"
    raise MatchError(
        f"worker {ended[0]} {how} before the match ended; the finished games are kept in "
        f"{root}: `pitch match --resume {root}` plays the rest"
    )


def _work(
    job: _Job,
    worker: int,
    work: Any,
    results: Any,
    stop: Any,
    announce: Callable[[str], None],
) -> None:
    """Play pairs from ``work`` until it says none are left (or the match stops).

    Reports each outcome on ``results``, then the worker's number when it is done, or
    why it failed.
    """
    try:
        asyncio.run(_play_pairs(job, worker, work.get, results.put, announce, stop.is_set))
    except (BotError, MatchError, OSError, ValueError) as error:
        results.put(f"worker {worker}: {error}")
    else:
        results.put(worker)


def _worker_main(
    job: _Job,
    worker: int,
    parent: int,
    cores: list[int] | None,
    work: Any,
    results: Any,
    stop: Any,
) -> None:
    """A worker process: its own referee and bots; dies with the match process."""
    die_with_parent(parent)
    if cores:
        pin_to_core(worker, cores)
    _work(job, worker, work, results, stop, print)


async def _play_pairs(
    job: _Job,
    worker: int,
    next_pair: Callable[[], list[GameSpec] | None],
    report: Callable[[GameOutcome], None],
    announce: Callable[[str], None],
    stopped: Callable[[], bool] = lambda: False,
) -> None:
    folder = MatchFolder(job.root)
    slots = {
        key: PlayerSlot(key, entrant.manifest, entrant.name)
        for key, entrant in (("A1", job.a), ("A2", job.a), ("B1", job.b), ("B2", job.b))
    }
    log_dir = job.root / "logs" / f"worker-{worker}"
    settings = job.settings
    async with Referee(
        log_dir, settings.referee_settings(job.sandboxed), announce=announce
    ) as referee:
        while (pair := next_pair()) is not None:
            for spec in pair:
                if stopped():
                    return
                result = await referee.play(
                    _seats(spec, slots),
                    game_id=spec.game_id,
                    seed=spec.seed,
                    options=settings.options(),
                    first_dealer=spec.first_dealer,
                    secret=str(settings.seed),
                )
                write_record(result.record, folder.record_path(spec))
                report(GameOutcome.from_record(spec, result.record))
