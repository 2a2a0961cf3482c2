"""What a match's finished games say: outcomes, the tally, progress, and the summary.

Everything here is computed from the records in the match folder, so a summary is
always the same whatever stopped and resumed the match on the way.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from pitch_sdk.faults import FaultKind
from pitch_sdk.record import RecordError, RecordFault, record_result

from ..stats import Pentanomial, SprtResult, Trinomial, sprt
from .folder import MatchFolder
from .schedule import GameSpec, schedule
from .settings import Entrant, MatchSettings


class MatchStatus(enum.StrEnum):
    """Where a match stands; summaries hold the value."""

    RUNNING = "running"
    FINISHED = "finished"
    STOPPED_BY_SPRT = "stopped by SPRT"
    SPRT_UNDECIDED = "SPRT undecided at the game cap"
    """Every game was played and the SPRT accepted neither hypothesis."""
    CANNOT_PLAY = "stopped: a bot cannot play"
    """Every game this run played so far ended in a start or crash fault of one bot."""
    INTERRUPTED = "interrupted"
    """Stopped by the user (Ctrl-C) or a failed worker; resuming plays the rest."""


UNPLAYABLE = frozenset(
    {FaultKind.START_FAILED, FaultKind.NO_HELLO, FaultKind.CRASHED, FaultKind.DISCONNECTED}
)
"""Faults that say a bot never got to play, or died playing."""

CANNOT_PLAY_AFTER = 2
"""Games (a duplicate pair) after which a bot whose every game ended in an ``UNPLAYABLE``
fault is taken to be unable to play at all."""


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
    a_faults: tuple[RecordFault, ...] = ()
    b_faults: tuple[RecordFault, ...] = ()
    a_asked: bool = True
    """Whether bot A made a decision of its own in this game (one not forced)."""
    b_asked: bool = True

    def faults_of(self, side: str) -> tuple[RecordFault, ...]:
        return self.a_faults if side == "a" else self.b_faults

    def failed(self, side: str) -> bool:
        """Whether ``side`` ended this game with a start or crash fault."""
        return any(fault.kind in UNPLAYABLE for fault in self.faults_of(side))

    def played(self, side: str) -> bool:
        """Whether ``side`` made decisions in this game and ended it without failing."""
        return (self.a_asked if side == "a" else self.b_asked) and not self.failed(side)

    @classmethod
    def from_record(cls, spec: GameSpec, record: dict[str, Any]) -> GameOutcome:
        """The outcome of ``spec``'s finished record.

        Raises:
            RecordError: the record has no result, or one that does not read.
        """
        result = record_result(record)
        if result is None:
            raise RecordError(f"{spec.game_id}: the game is not finished")
        a, b = spec.a_team, 1 - spec.a_team
        return cls(
            spec,
            result.score_of(a),
            result.scores[a],
            result.scores[b],
            len(result.faults),
            result.team_cpu_ms(a),
            result.team_cpu_ms(b),
            result.faults_of(a),
            result.faults_of(b),
            _asked(record, a),
            _asked(record, b),
        )


def _asked(record: dict[str, Any], team: int) -> bool:
    """Whether a seat of ``team`` made an unforced decision in ``record``."""
    return any(
        not decision.get("forced", True) and decision.get("seat", -1) % 2 == team
        for hand in record.get("hands", [])
        for decision in hand.get("decisions", [])
    )


def cannot_play(outcomes: Iterable[GameOutcome]) -> tuple[str, ...]:
    """The sides (``a``, ``b``) that cannot play at all, judging by ``outcomes``.

    After ``CANNOT_PLAY_AFTER`` games, a side cannot play if it failed (a start or crash
    fault) in at least one and played properly in none. A game that ended before the
    side was asked anything (its opponent's fault) says nothing about it.
    """
    outcomes = list(outcomes)
    if len(outcomes) < CANNOT_PLAY_AFTER:
        return ()
    return tuple(
        side
        for side in "ab"
        if any(o.failed(side) for o in outcomes) and not any(o.played(side) for o in outcomes)
    )


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
class LoadedMatch:
    """A match folder as read from disk: who, how, the schedule and the finished games."""

    folder: MatchFolder
    a: Entrant
    b: Entrant
    settings: MatchSettings
    specs: list[GameSpec]
    finished: dict[GameSpec, dict[str, Any]]
    outcomes: dict[GameSpec, GameOutcome]

    @classmethod
    def load(cls, root: Path) -> LoadedMatch:
        folder = MatchFolder(root)
        a, b, settings = folder.read_header()
        specs = schedule(settings)
        finished = folder.finished(specs)
        outcomes = {spec: GameOutcome.from_record(spec, rec) for spec, rec in finished.items()}
        return cls(folder, a, b, settings, specs, finished, outcomes)


@dataclass(frozen=True)
class CpuUse:
    """Each bot's CPU, in seconds, over the games where the sandbox measured it."""

    a_s: float
    b_s: float
    games: int


@dataclass(frozen=True)
class MatchStats:
    model: str
    """``pentanomial`` (duplicate pairs) or ``trinomial`` (single games)."""
    counts: tuple[int, ...]
    elo: float | None
    elo_interval: tuple[float, float] | None
    los: float | None
    sprt: SprtResult | None


@dataclass(frozen=True)
class FaultTally:
    """One bot's faults of one kind over the match, with the first one's detail."""

    kind: str
    """A ``FaultKind`` value."""
    count: int
    first_game: str
    first_detail: str
    log: str | None
    """The bot's log file at its first fault of this kind, where it had one."""


def fault_tallies(outcomes: Iterable[GameOutcome], side: str) -> tuple[FaultTally, ...]:
    """``side``'s faults by kind, in the order of their first game (schedule order)."""
    tallies: dict[str, FaultTally] = {}
    for outcome in sorted(outcomes, key=lambda o: o.spec.game_id):
        for fault in outcome.faults_of(side):
            known = tallies.get(fault.kind)
            if known is None:
                tallies[fault.kind] = FaultTally(
                    fault.kind, 1, outcome.spec.game_id, fault.detail, fault.log
                )
            else:
                tallies[fault.kind] = FaultTally(
                    known.kind, known.count + 1, known.first_game, known.first_detail, known.log
                )
    return tuple(tallies.values())


@dataclass(frozen=True)
class GameEntry:
    """One finished game, as the summary lists it."""

    game: str
    record: str
    """The record's path within the match folder."""
    a_team: int
    a_score: float
    scores: tuple[int, int]
    termination: str


@dataclass(frozen=True)
class MatchSummary:
    """A match, recomputed from its records: what ``pitch match`` prints, what the ladder
    reads, and (``to_json``) what ``summary.json`` holds."""

    folder: Path
    a: Entrant
    b: Entrant
    settings: MatchSettings
    status: MatchStatus
    games_planned: int
    games_played: int
    wins: int
    """Bot A's wins, losses and draws (bot B's are the other way round)."""
    losses: int
    draws: int
    points: tuple[int, int]
    """Bot A's and bot B's points over all games."""
    faults: int
    cpu: CpuUse | None
    stats: MatchStats
    games: tuple[GameEntry, ...]
    a_faults: tuple[FaultTally, ...] = ()
    """Bot A's faults by kind."""
    b_faults: tuple[FaultTally, ...] = ()
    cannot_play: tuple[str, ...] = ()
    """The sides (``a``, ``b``) that the match stopped for (``MatchStatus.CANNOT_PLAY``)."""

    def bot(self, side: str) -> Entrant:
        return self.a if side == "a" else self.b

    def faults_of(self, side: str) -> tuple[FaultTally, ...]:
        return self.a_faults if side == "a" else self.b_faults

    def record_path(self, game: GameEntry) -> Path:
        return self.folder / game.record

    def to_json(self) -> dict[str, Any]:
        """``summary.json``: plain JSON, infinite Elo limits written as null."""
        stats = self.stats
        cpu = self.cpu
        data = {
            "bots": {"a": self.a.to_json(), "b": self.b.to_json()},
            "settings": self.settings.to_json(),
            "status": str(self.status),
            "games_planned": self.games_planned,
            "games_played": self.games_played,
            "result": {
                "a": {"wins": self.wins, "losses": self.losses, "draws": self.draws},
                "b": {"wins": self.losses, "losses": self.wins, "draws": self.draws},
                "points": {"a": self.points[0], "b": self.points[1]},
                "faults": self.faults,
                "faults_by_kind": {
                    side: [asdict(tally) for tally in self.faults_of(side)] for side in "ab"
                },
                "cpu_s": {"a": cpu.a_s, "b": cpu.b_s, "games": cpu.games} if cpu else None,
            },
            "cannot_play": list(self.cannot_play),
            "stats": {
                "model": stats.model,
                "counts": list(stats.counts),
                "elo": stats.elo,
                "elo_interval": list(stats.elo_interval) if stats.elo_interval else None,
                "los": stats.los,
                "sprt": asdict(stats.sprt) if stats.sprt else None,
            },
            "games": [
                {
                    "game": game.game,
                    "record": game.record,
                    "a_team": game.a_team,
                    "a_score": game.a_score,
                    "scores": list(game.scores),
                    "termination": game.termination,
                }
                for game in self.games
            ],
        }
        return _finite(data)


def summarize(root: Path, status: MatchStatus, cannot_play: tuple[str, ...] = ()) -> MatchSummary:
    """The match summary, recomputed from the records in the folder, and saved."""
    return summary_of(LoadedMatch.load(root), status, cannot_play)


def summary_of(
    loaded: LoadedMatch, status: MatchStatus, cannot_play: tuple[str, ...] = ()
) -> MatchSummary:
    """The summary of ``loaded``, saved as its folder's ``summary.json``."""
    folder, settings = loaded.folder, loaded.settings
    outcomes = list(loaded.outcomes.values())
    progress = progress_of(outcomes, settings, len(loaded.specs))
    counts = tally(outcomes, settings.duplicate)
    games = []
    for spec, record in sorted(loaded.finished.items(), key=lambda item: item[0].game_id):
        result = record_result(record)
        assert result is not None  # finished records only
        games.append(
            GameEntry(
                game=spec.game_id,
                record=folder.record_path(spec).relative_to(folder.root).as_posix(),
                a_team=spec.a_team,
                a_score=loaded.outcomes[spec].a_score,
                scores=result.scores,
                termination=result.termination,
            )
        )
    summary = MatchSummary(
        folder=folder.root,
        a=loaded.a,
        b=loaded.b,
        settings=settings,
        status=status,
        games_planned=len(loaded.specs),
        games_played=len(outcomes),
        wins=progress.wins,
        losses=progress.losses,
        draws=progress.draws,
        points=(
            sum(outcome.a_points for outcome in outcomes),
            sum(outcome.b_points for outcome in outcomes),
        ),
        faults=sum(outcome.faults for outcome in outcomes),
        cpu=_cpu_use(outcomes),
        stats=MatchStats(
            model="pentanomial" if settings.duplicate else "trinomial",
            counts=tuple(counts.counts),
            elo=progress.elo,
            elo_interval=progress.elo_interval,
            los=counts.los,
            sprt=progress.sprt,
        ),
        games=tuple(games),
        a_faults=fault_tallies(outcomes, "a"),
        b_faults=fault_tallies(outcomes, "b"),
        cannot_play=cannot_play,
    )
    folder.write_summary(summary.to_json())
    return summary


def _cpu_use(outcomes: list[GameOutcome]) -> CpuUse | None:
    """Each bot's CPU over the games where it was measured (all of them, or none)."""
    measured = [o for o in outcomes if o.a_cpu_ms is not None and o.b_cpu_ms is not None]
    if not measured:
        return None
    return CpuUse(
        a_s=round(sum(o.a_cpu_ms or 0.0 for o in measured) / 1000, 2),
        b_s=round(sum(o.b_cpu_ms or 0.0 for o in measured) / 1000, 2),
        games=len(measured),
    )


def _finite(data: Any) -> Any:
    """JSON has no infinity: write unbounded Elo limits as null."""
    if isinstance(data, float) and data in (float("inf"), float("-inf")):
        return None
    if isinstance(data, dict):
        return {key: _finite(value) for key, value in data.items()}
    if isinstance(data, list):
        return [_finite(value) for value in data]
    return data
