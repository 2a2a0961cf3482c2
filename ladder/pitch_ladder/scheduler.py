"""A ladder that plays by itself: the service's scheduler.

``pitch ladder run`` plays the rounds it is asked for and stops. The scheduler of
``pitch serve`` keeps playing: each step it finishes whatever an earlier step left
unfinished (a restart, ``kill -9`` included, loses and repeats nothing: the runner's
resume), else chooses a few matches (``pairing``: new versions' placement first, then the
pairings whose outcome is least known; with ``quartets``, groups of four bots in the
mixed-partnership format too), writes them as one round and plays them through
the executor seam (``runner.play_pending``), storing each game with its ratings as it
finishes. Between steps it looks at the pause switch, which lives in the database
(``scheduler_state``) so that the CLI and the API can flip it while it runs, and waits
``interval_s`` if it is asked to keep to a rate.

The scheduler holds the ladder's run lock for as long as it runs: a ``pitch ladder run``
beside it is refused with the holder's pid, as two runs are.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func
from sqlalchemy.exc import DBAPIError
from sqlmodel import Session, col, select

from pitch_referee.match.settings import MAX_TIMING_GRID_MS
from pitch_referee.workers import usable_cores

from .errors import LadderError
from .executor import kill_workers, local_executor, local_pool
from .ladder import Ladder
from .lock import RunLock
from .models import Match, PairTotal, SchedulerState, now
from .pairing import Entrant, PairingSettings, next_pairings, next_quartets
from .pending import pending_rounds
from .rating_tables import current_fit
from .runner import Pools, ProgressCallback, play_pending
from .sandbox_policy import require_sandbox
from .schedule import Pair, Quartet, TeamLineup, team_matches
from .schedule_writer import schedule_round
from .standings import latest_versions

log = logging.getLogger(__name__)
STATE_ROW = 1


@dataclass(frozen=True)
class SchedulerSettings:
    """How the service plays (``pitch serve``'s scheduler options)."""

    pairing: PairingSettings = field(default_factory=PairingSettings)
    games_per_match: int = 2
    """Games of each match: one duplicate pair by default, so that a step is short."""
    rules: dict[str, Any] = field(default_factory=dict)
    interval_s: float = 0.0
    """The least time from one step's start to the next's: a rate limit (0: none)."""
    idle_s: float = 5.0
    """How often to look again while paused, or while fewer than two bots are active."""
    timing_grid_ms: int = 0
    """Each game's decision requests released on a grid of this step (``MatchSettings``):
    partners cannot signal by think time finer than it. 0 here, 25 in ``pitch serve``'s
    ``[scheduler]`` table unless it says otherwise."""

    def __post_init__(self) -> None:
        if self.games_per_match < 1:
            raise ValueError("a match has at least one game")
        if not 0 <= self.timing_grid_ms <= MAX_TIMING_GRID_MS:
            raise ValueError(f"timing_grid_ms must be 0 (none) to {MAX_TIMING_GRID_MS} ms")
        if self.interval_s < 0 or self.idle_s <= 0:
            raise ValueError("the scheduler's interval cannot be negative, nor its idle time 0")


@dataclass(frozen=True)
class Status:
    """The switch as the CLI and the API show it."""

    paused: bool
    changed_at: Any
    changed_by: str
    pending_matches: int


@dataclass(frozen=True)
class Step:
    """What one step did."""

    round: int | None
    """The round it wrote, or ``None`` (it finished an earlier one, or had nothing to do)."""
    pairs: tuple[Pair, ...]
    games: int
    """Games stored."""
    teams: tuple[TeamLineup, ...] = ()
    """The round's team matches (the mixed-partnership format)."""


def status(ladder: Ladder) -> Status:
    """Whether the scheduler is paused, since when and by whom, and what it has pending."""
    with Session(ladder.engine) as session:
        state = session.get(SchedulerState, STATE_ROW)
        pending = session.exec(
            select(func.count()).select_from(Match).where(Match.status == "pending")
        ).one()
    if state is None:
        return Status(False, None, "", pending)
    return Status(state.paused, state.changed_at, state.changed_by, pending)


def set_paused(ladder: Ladder, paused: bool, by: str) -> Status:
    """Pause (or resume) the scheduler from its next step; ``by`` names who did it."""
    with Session(ladder.engine) as session:
        state = session.get(SchedulerState, STATE_ROW) or SchedulerState.model_validate(
            {"id": STATE_ROW, "paused": paused, "changed_at": now(), "changed_by": by}
        )
        state.paused, state.changed_at, state.changed_by = paused, now(), by
        session.add(state)
        session.commit()
    log.info("scheduler %s by %s", "paused" if paused else "resumed", by)
    return status(ladder)


class Scheduler:
    """The loop: ``run(stop)`` plays steps until ``stop`` is set.

    Args:
        executor: where matches run (a Dask cluster's, say); default a local process pool
            of ``workers`` (default: the cores), made afresh when a worker dies.
        trust_bots: run bots without the sandbox where the machine has none.
    """

    def __init__(
        self,
        ladder: Ladder,
        settings: SchedulerSettings | None = None,
        *,
        executor: Executor | None = None,
        workers: int | None = None,
        trust_bots: bool = False,
        progress: ProgressCallback | None = None,
    ) -> None:
        require_sandbox(trust_bots)
        self.ladder = ladder
        self.settings = settings or SchedulerSettings()
        self.workers = workers or len(usable_cores())
        self.pools: Pools = (
            KeptPool(self.workers) if executor is None else (lambda _size: nullcontext(executor))
        )
        self.progress = progress

    def close(self) -> None:
        """Stop the scheduler's own pool (a caller's executor is the caller's to stop)."""
        if isinstance(self.pools, KeptPool):
            self.pools.close()

    def __enter__(self) -> Scheduler:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def run(self, stop: threading.Event, on_step: Callable[[Step], None] = lambda _s: None) -> None:
        """Play steps until ``stop`` is set (checked between steps), holding the run lock.

        A step that fails is logged and the loop goes on after ``idle_s``: its finished
        games are stored, and the next step resumes the rest.

        Raises:
            LadderError: another run holds the ladder.
        """
        with RunLock(self.ladder.folder), self:
            log.info("scheduler started on %s", self.ladder.folder)
            while not stop.is_set():
                wait = self.settings.idle_s
                try:
                    step = self.step()
                except (LadderError, DBAPIError, OSError) as error:
                    log.warning("scheduler step failed: %s", str(error).splitlines()[0])
                else:
                    if step is not None:
                        on_step(step)
                        wait = self.settings.interval_s
                stop.wait(wait)
            log.info("scheduler stopped")

    def step(self) -> Step | None:
        """One step: finish what is pending, or choose and play a new round; ``None`` when
        paused or when there is nothing to play (fewer than two active bots).

        Raises:
            LadderError: some matches could not be played or records were refused (the
                rest are stored), or the database went away.
        """
        if status(self.ladder).paused:
            return None
        self.ladder.check_database()
        number: int | None = None
        pairs: list[Pair] = []
        teams: list[TeamLineup] = []
        if not pending_rounds(self.ladder.engine):
            pairs, groups = self.next_matches()
            teams = [lineup for group in groups for lineup in team_matches(group)]
            if not pairs:
                return None
            settings = self.settings
            number = schedule_round(
                self.ladder.engine,
                [*pairs, *teams],
                settings.games_per_match,
                settings.rules,
                timing_grid_ms=settings.timing_grid_ms,
            )
            log.info(
                "round %d: %s",
                number,
                ", ".join([f"{a} vs {b}" for a, b in pairs] + [_team_match(t) for t in teams]),
            )
        report = play_pending(
            self.ladder.folder,
            self.ladder.engine,
            self.pools,
            self.workers,
            self.progress,
            self.ladder.check_database,
        )
        log.info("stored %d game(s) of %d match(es)", report.games, report.matches)
        return Step(number, tuple(pairs), report.games, tuple(teams))

    def next_matches(self) -> tuple[list[Pair], list[Quartet]]:
        """The pairs the next round plays, from the ratings and counts as they stand, and
        the groups of four that play its team matches (``PairingSettings.quartets``)."""
        with Session(self.ladder.engine) as session:
            latest = {version.id: bot.name for bot, version in latest_versions(session)}
            if len(latest) < 2:
                return [], []
            fit = current_fit(session)
            group_of = {v: i for i, group in enumerate(fit.groups) for v in group}
            matches = _matches_per_version(session)
            between = {
                frozenset((latest[a], latest[b])): games
                for a, b, games in session.exec(
                    select(PairTotal.a_version_id, PairTotal.b_version_id, PairTotal.games)
                )
                if a in latest and b in latest
            }
            pairing = self.settings.pairing
            partnered = _partnered(session, latest) if pairing.quartets else {}
        entrants = [
            Entrant(
                name=name,
                rating=fit.ratings[version].rating if version in fit.ratings else None,
                width=(
                    fit.ratings[version].upper - fit.ratings[version].lower
                    if version in fit.ratings
                    else None
                ),
                group=group_of.get(version),
                matches=matches.get(version, 0),
            )
            for version, name in latest.items()
            if version is not None
        ]
        return next_pairings(entrants, between, pairing), next_quartets(
            list(latest.values()), partnered, pairing.quartets
        )


class KeptPool:
    """The local process pool of every step, started once: a pool takes about a second to
    start its workers, which a step of a few short matches would pay every time. A pool
    that broke (a worker died) is replaced when the runner next asks for one; the runner's
    one-match pools for suspects are made apart. A step that fails kills the pool's
    workers, with its matches: played on, they would share their folders with the next
    step's."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.pool: ProcessPoolExecutor | None = None

    @contextmanager
    def __call__(self, size: int) -> Iterator[Executor]:
        if size != self.workers:
            with local_pool(size) as alone:
                yield alone
            return
        if self.pool is None or _broken(self.pool):
            self.close()
            self.pool = local_executor(self.workers)
        try:
            yield self.pool
        except BaseException:
            kill_workers(self.pool)
            self.close(wait=False)
            raise

    def close(self, wait: bool = True) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=wait, cancel_futures=not wait)
            self.pool = None


def _broken(pool: Executor) -> bool:
    """Whether ``pool`` lost a worker (a broken process pool refuses every job)."""
    try:
        pool.submit(int).result()
    except BrokenProcessPool:
        return True
    return False


def _team_match(lineup: TeamLineup) -> str:
    a, a_partner, b, b_partner = lineup
    return f"{a}+{a_partner} vs {b}+{b_partner}"


def _partnered(session: Session, latest: dict[int | None, str]) -> dict[frozenset[str], int]:
    """The team games each two of the latest versions (named) are scheduled to play, or
    have played, as partners."""
    counts: dict[frozenset[str], int] = {}
    sides = (
        (col(Match.a_version_id), col(Match.a_partner_version_id)),
        (col(Match.b_version_id), col(Match.b_partner_version_id)),
    )
    for version, partner in sides:
        query = (
            select(version, partner, func.sum(Match.games_planned))
            .where(partner.is_not(None), Match.status != "cancelled")
            .group_by(version, partner)
        )
        for one, other, games in session.exec(query):
            if one in latest and other in latest:
                pair = frozenset((latest[one], latest[other]))
                counts[pair] = counts.get(pair, 0) + (games or 0)
    return counts


def _matches_per_version(session: Session) -> dict[int, int]:
    """Matches played or pending per version (cancelled ones do not count)."""
    counts: dict[int, int] = {}
    for side in (col(Match.a_version_id), col(Match.b_version_id)):
        query = select(side, func.count()).where(Match.status != "cancelled").group_by(side)
        for version, count in session.exec(query):
            counts[version] = counts.get(version, 0) + count
    return counts
