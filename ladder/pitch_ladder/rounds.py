"""A ``ladder run``: under the run lock, finish the matches an interrupted run left, write
the new round-robin rounds still owed, play every pending match on an executor, and keep
the fit current for the standings that usually follow.

Unfinished matches keep the settings they were scheduled with, and their rounds count
toward the rounds asked for: running the same command again after an interruption plays
exactly the schedule the first one would have played. The schedule, the pending matches
and their games are the runner's (``runner``); this module decides what to ask it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import Executor
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.exc import DBAPIError
from sqlmodel import Session

from .database import failed_mid_run
from .errors import LadderError
from .executor import local_pool
from .layout import sweep_scratch
from .lock import RunLock
from .pending import pending_rounds
from .rating_tables import current_fit
from .runner import Pools, ProgressCallback, RunReport, play_pending
from .schedule_writer import schedule_rounds


@dataclass(frozen=True)
class RoundsWanted:
    """What a run plays: ``rounds`` rounds in all (unfinished ones included), new ones of
    ``games_per_match`` games under ``rules``, with the team matches if ``partnerships``."""

    rounds: int
    games_per_match: int
    rules: dict[str, Any]
    partnerships: bool

    def __post_init__(self) -> None:
        """Raises ``LadderError`` on a count below one, naming the option."""
        if self.rounds < 1:
            raise LadderError("--rounds must be at least 1")
        if self.games_per_match < 1:
            raise LadderError("--games-per-match must be at least 1")


def pools_for(executor: Executor | None, affinity: bool) -> Pools:
    """A local process pool made afresh for each attempt (its workers pinned to cores if
    ``affinity``), or the caller's ``executor`` for every attempt."""
    if executor is None:
        return partial(local_pool, affinity=affinity)
    return lambda _size: nullcontext(executor)


def run_rounds(
    ladder: Path,
    engine: Engine,
    check_database: Callable[[], None],
    wanted: RoundsWanted,
    pools: Pools,
    workers: int,
    lock: RunLock,
    progress: ProgressCallback | None = None,
) -> RunReport:
    """Play ``wanted`` in the ladder folder ``ladder`` holding ``lock``, ``workers``
    matches' worth at a time on ``pools``; ``check_database`` before the first write.

    Raises:
        LadderError: another run holds the ladder, too few active bots, some matches
            could not be played or records were refused, or the database failed (or its
            file was deleted) meanwhile.
        ValueError: a bad rule.
    """
    with lock, _one_line_if_the_database_fails():
        check_database()
        sweep_scratch(ladder)
        unfinished = pending_rounds(engine)
        if wanted.rounds > unfinished:
            schedule_rounds(
                engine,
                wanted.rounds - unfinished,
                wanted.games_per_match,
                wanted.rules,
                wanted.partnerships,
            )
        report = play_pending(ladder, engine, pools, workers, progress, check_database)
        with Session(engine) as session:
            current_fit(session)  # kept for the standings that usually follow a run
        return report


@contextmanager
def _one_line_if_the_database_fails() -> Iterator[None]:
    """A database error anywhere in the run as the one line of ``failed_mid_run`` (the
    importer's own is one already)."""
    try:
        yield
    except DBAPIError as error:
        raise failed_mid_run(error, "during the run") from None
