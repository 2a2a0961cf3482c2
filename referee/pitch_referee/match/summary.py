"""What a match's finished games say: the tally, progress, and the summary.

Everything here is computed from the outcomes of the finished games (``outcomes``: a
few numbers per game, taken from its record), so a summary is always the same whatever
stopped and resumed the match on the way, and a match's memory does not grow with its
records. Progress is tallied as games finish (``Tally``), never recounted.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, overload

from ..stats import Pentanomial, SprtResult, Trinomial, sprt
from .folder import MatchFolder
from .outcomes import GameOutcome, RecordNames, load_outcomes
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


CANNOT_PLAY_AFTER = 2
"""Games (a duplicate pair) after which a bot whose every game ended in an
``outcomes.UNPLAYABLE`` fault is taken to be unable to play at all."""


def cannot_play(outcomes: Iterable[GameOutcome]) -> tuple[str, ...]:
    """The sides (``a``, ``b``) that cannot play at all, judging by ``outcomes``.

    After ``CANNOT_PLAY_AFTER`` games, a side cannot play if it failed (a start or crash
    fault) in at least one and played properly in none. A game that ended before the
    side was asked anything (its opponent's fault) says nothing about it.
    """
    playability = Playability()
    for outcome in outcomes:
        playability.add(outcome)
    return playability.cannot_play()


class Playability:
    """``cannot_play`` as games finish, in constant time and memory per game."""

    def __init__(self) -> None:
        self.games = 0
        self.failed = {"a": False, "b": False}
        self.played = {"a": False, "b": False}

    def add(self, outcome: GameOutcome) -> None:
        self.games += 1
        for side in "ab":
            self.failed[side] = self.failed[side] or outcome.failed(side)
            self.played[side] = self.played[side] or outcome.played(side)

    def cannot_play(self) -> tuple[str, ...]:
        if self.games < CANNOT_PLAY_AFTER:
            return ()
        return tuple(side for side in "ab" if self.failed[side] and not self.played[side])


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


class Tally:
    """A match's counts, kept up to date as games finish: bot A's wins, losses and
    draws, and the pentanomial (complete duplicate pairs) or trinomial (games).

    Adding a game costs the same however many came before; the memory held is one
    number per duplicate pair with a single game so far.
    """

    def __init__(self, duplicate: bool) -> None:
        self.duplicate = duplicate
        self.played = self.wins = self.losses = self.draws = 0
        self._bins = [0] * (5 if duplicate else 3)
        self._first_of_pair: dict[int, float] = {}

    def add(self, outcome: GameOutcome) -> None:
        """Count one more game (each game once: the caller sees to that)."""
        score = outcome.a_score
        self.played += 1
        self.wins += score == 1
        self.losses += score == 0
        self.draws += score == 0.5
        if not self.duplicate:
            self._bins[int(score * 2)] += 1
            return
        first = self._first_of_pair.pop(outcome.spec.pair, None)
        if first is None:
            self._first_of_pair[outcome.spec.pair] = score
        else:
            self._bins[int((first + score) * 2)] += 1

    def counts(self) -> Pentanomial | Trinomial:
        """Pentanomial over complete pairs (duplicate), else trinomial over games."""
        return Pentanomial(*self._bins) if self.duplicate else Trinomial(*self._bins)

    def progress(self, settings: MatchSettings, planned: int) -> MatchProgress:
        counts = self.counts()
        params = settings.sprt_params()
        return MatchProgress(
            played=self.played,
            planned=planned,
            wins=self.wins,
            losses=self.losses,
            draws=self.draws,
            elo=counts.elo,
            elo_interval=counts.elo_interval,
            sprt=(
                sprt(counts, params.elo0, params.elo1, params.alpha, params.beta)
                if params
                else None
            ),
        )


def tally(outcomes: Iterable[GameOutcome], duplicate: bool) -> Pentanomial | Trinomial:
    """Pentanomial over complete pairs (duplicate), else trinomial over games."""
    return _tally_of(outcomes, duplicate).counts()


def _tally_of(outcomes: Iterable[GameOutcome], duplicate: bool) -> Tally:
    counts = Tally(duplicate)
    for outcome in outcomes:
        counts.add(outcome)
    return counts


def progress_of(
    outcomes: Iterable[GameOutcome], settings: MatchSettings, planned: int
) -> MatchProgress:
    return _tally_of(outcomes, settings.duplicate).progress(settings, planned)


@dataclass(frozen=True)
class LoadedMatch:
    """A match folder as read from disk: who, how, the schedule and the finished games
    (their outcomes, never their records)."""

    folder: MatchFolder
    a: Entrant
    b: Entrant
    settings: MatchSettings
    specs: list[GameSpec]
    outcomes: dict[GameSpec, GameOutcome]
    """The finished games, in schedule order."""
    records: RecordNames
    """Each finished game's record file (``records[spec]``: its name in the games folder)."""
    a_partner: Entrant | None = None
    """Who partners bot A (``None``: bot A itself)."""
    b_partner: Entrant | None = None

    @classmethod
    def load(cls, root: Path) -> LoadedMatch:
        folder = MatchFolder(root)
        a, b, settings = folder.read_header()
        a_partner, b_partner = folder.read_partners()
        specs = schedule(settings)
        outcomes, records = load_outcomes(folder, specs, settings.duplicate)
        return cls(folder, a, b, settings, specs, outcomes, records, a_partner, b_partner)


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
    for outcome in sorted(outcomes, key=lambda o: (o.spec.pair, o.spec.side)):
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


@dataclass(frozen=True, slots=True)
class GameEntry:
    """One finished game, as the summary lists it."""

    game: str
    record: str
    """The record's path within the match folder."""
    a_team: int
    a_score: float
    scores: tuple[int, int]
    termination: str

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "record": self.record,
            "a_team": self.a_team,
            "a_score": self.a_score,
            "scores": list(self.scores),
            "termination": self.termination,
        }


class GameList(Sequence[GameEntry]):
    """A summary's games, in schedule order, each made from its outcome when asked for:
    a long match keeps its outcomes, not a second copy of them."""

    def __init__(self, outcomes: Iterable[GameOutcome], records: RecordNames) -> None:
        self._outcomes = tuple(outcomes)
        self._records = records

    def __len__(self) -> int:
        return len(self._outcomes)

    @overload
    def __getitem__(self, index: int) -> GameEntry: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[GameEntry, ...]: ...
    def __getitem__(self, index: int | slice) -> GameEntry | tuple[GameEntry, ...]:
        if isinstance(index, slice):
            return tuple(self._entry(outcome) for outcome in self._outcomes[index])
        return self._entry(self._outcomes[index])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    def __repr__(self) -> str:
        return f"GameList({len(self)} games)"

    def _entry(self, outcome: GameOutcome) -> GameEntry:
        spec = outcome.spec
        return GameEntry(
            game=spec.game_id,
            record=f"games/{self._records[spec]}",
            a_team=spec.a_team,
            a_score=outcome.a_score,
            scores=outcome.scores,
            termination=outcome.termination,
        )


@dataclass(frozen=True)
class MatchSummary:
    """A match, recomputed from its games' outcomes: what ``pitch match`` prints, what the
    ladder reads, and (``to_json``) what ``summary.json`` holds."""

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
    games: Sequence[GameEntry]
    """In schedule order (a ``GameList``: each entry made when asked for)."""
    a_faults: tuple[FaultTally, ...] = ()
    """Bot A's faults by kind."""
    b_faults: tuple[FaultTally, ...] = ()
    cannot_play: tuple[str, ...] = ()
    """The sides (``a``, ``b``) that the match stopped for (``MatchStatus.CANNOT_PLAY``)."""
    a_partner: Entrant | None = None
    """Who partners bot A in its team (``None``: bot A itself); "bot A's" results are
    then this team's."""
    b_partner: Entrant | None = None

    def bot(self, side: str) -> Entrant:
        return self.a if side == "a" else self.b

    def partner(self, side: str) -> Entrant | None:
        return self.a_partner if side == "a" else self.b_partner

    def team_name(self, side: str) -> str:
        """``alpha``, or ``alpha+gamma`` for a team of two different bots."""
        partner = self.partner(side)
        bot = self.bot(side).name
        return bot if partner is None else f"{bot}+{partner.name}"

    def faults_of(self, side: str) -> tuple[FaultTally, ...]:
        return self.a_faults if side == "a" else self.b_faults

    def record_path(self, game: GameEntry) -> Path:
        return self.folder / game.record

    def to_json(self) -> dict[str, Any]:
        """``summary.json``: plain JSON, infinite Elo limits written as null."""
        return {**self._head_json(), "games": [game.to_json() for game in self.games]}

    def save(self) -> None:
        """Write ``summary.json`` (``to_json``), a game at a time."""
        MatchFolder(self.folder).write_summary(
            self._head_json(), (game.to_json() for game in self.games)
        )

    def _head_json(self) -> dict[str, Any]:
        """``to_json`` without the games."""
        stats = self.stats
        cpu = self.cpu
        bots = {"a": self.a.to_json(), "b": self.b.to_json()}
        for side in "ab":
            if (partner := self.partner(side)) is not None:
                bots[f"{side}_partner"] = partner.to_json()
        data = {
            "bots": bots,
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
        }
        return _finite(data)


def summarize(root: Path, status: MatchStatus, cannot_play: tuple[str, ...] = ()) -> MatchSummary:
    """The match summary, recomputed from the outcomes of the games in the folder, and
    saved."""
    return summary_of(LoadedMatch.load(root), status, cannot_play)


def summary_of(
    loaded: LoadedMatch, status: MatchStatus, cannot_play: tuple[str, ...] = ()
) -> MatchSummary:
    """The summary of ``loaded``, saved as its folder's ``summary.json``."""
    folder, settings = loaded.folder, loaded.settings
    outcomes = loaded.outcomes.values()
    counts = _tally_of(outcomes, settings.duplicate)
    progress = counts.progress(settings, len(loaded.specs))
    pentanomial_or_trinomial = counts.counts()
    summary = MatchSummary(
        folder=folder.root,
        a=loaded.a,
        b=loaded.b,
        settings=settings,
        status=status,
        games_planned=len(loaded.specs),
        games_played=counts.played,
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
            counts=tuple(pentanomial_or_trinomial.counts),
            elo=progress.elo,
            elo_interval=progress.elo_interval,
            los=pentanomial_or_trinomial.los,
            sprt=progress.sprt,
        ),
        games=GameList(outcomes, loaded.records),
        a_faults=fault_tallies(outcomes, "a"),
        b_faults=fault_tallies(outcomes, "b"),
        cannot_play=cannot_play,
        a_partner=loaded.a_partner,
        b_partner=loaded.b_partner,
    )
    summary.save()
    return summary


def _cpu_use(outcomes: Iterable[GameOutcome]) -> CpuUse | None:
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
