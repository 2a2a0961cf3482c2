"""``ladder run``: play the pending matches on an executor while the importer stores them.

The schedule is written by ``schedule_writer``, read back a chunk at a time by the pending
pager (``pending``), and each finished game stored by the importer (``importer``). The
runner hands the executor a few more matches than it has workers (``window``); while
they play, it has the importer look every ``POLL_S`` seconds for new records in the
folders of the matches that are running (never all of them). A run killed at any moment
loses nothing that finished: the next run resumes the unfinished matches' folders (games
with a record are not replayed) and imports what is missing.

A match whose worker process dies (a bot that kills it, the out-of-memory killer)
breaks the whole process pool, and every match on it fails with ``BrokenProcessPool``.
The pool cannot say which match did it, so the run plays the suspects again one at a
time, each in a pool of its own, and the rest on a fresh pool: a match that kills its
worker even alone is a problem of this run, and the others finish.

A run that fails (its database, say) stops the matches it is playing before it lets go
of the ladder (``executor.stop_matches``): a local pool's workers are killed, a cluster's
matches have their pairs cancelled. Played on to their end, they kept the process from
exiting for as long, on a cluster for ever. The next run resumes them.

Runs under the caller's run lock (``lock.py``); does not know about the CLI.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import AbstractContextManager
from dataclasses import dataclass
from itertools import chain
from pathlib import Path

from sqlalchemy import Engine

from .errors import LadderError
from .executor import play_match, stop_matches
from .importer import Importer
from .pending import MatchResult, PendingMatch, PendingMatches, Totals
from .vouched import vouched_records

POLL_S = 0.5
"""How often a run looks for finished games while matches play."""


@dataclass(frozen=True)
class RunProgress:
    games_done: int
    games_planned: int
    matches_done: int
    matches_planned: int
    resumed: int
    """Matches left unfinished by an earlier run, finished by this one."""
    finished: tuple[MatchResult, ...] = ()
    """Matches finished since the previous report."""
    problems: tuple[str, ...] = ()
    """Problems met since the previous report: refused records, matches not played."""


@dataclass(frozen=True)
class RunReport:
    matches: int
    games: int
    """Games stored by this run."""


ProgressCallback = Callable[[RunProgress], None]
Pools = Callable[[int], AbstractContextManager[Executor]]
"""A fresh executor with so many workers: a process pool that lost a worker is unusable."""


def play_pending(
    ladder: Path,
    engine: Engine,
    pools: Pools,
    workers: int,
    progress: ProgressCallback | None = None,
    check_database: Callable[[], None] = lambda: None,
) -> RunReport:
    """Play every pending match on pools of ``workers``, storing games as they finish.

    The executor is handed at most ``window(workers)`` matches at a time, the next ones
    as these end, so that the run reads the pending matches a chunk at a time and polls
    only the folders of matches that are running. After a pool breaks, the suspects are
    the first ``workers + 1`` unfinished matches handed to it: a process pool hands out
    its jobs in order, one more than it has workers, so the match that killed a worker is
    among them. ``check_database`` is called before each write (``database.watch``).

    Raises:
        LadderError: some matches could not be played, or some records were refused (the
            other games are stored); running again retries them. Or the database went
            away (``check_database``).
    """
    pending = PendingMatches(engine)
    totals = pending.totals(ladder)
    run = _Run(ladder, engine, _Reporter(progress, totals), check_database)
    run.reporter.send()
    todo: Iterator[PendingMatch] = iter(pending)
    while True:
        with pools(workers) as executor:
            broken = run.play(todo, executor, window(workers))
        if not broken:
            break
        suspects, rest = broken[: workers + 1], broken[workers + 1 :]
        for match in suspects:
            with pools(1) as alone:
                if run.play(iter([match]), alone, 1):
                    run.problem(
                        f"{match.folder} ({match.team('a')} vs {match.team('b')}): its worker "
                        "process died even with the match playing alone, so one of its bots kills "
                        "processes (or uses all the memory); its finished games are stored"
                    )
        todo = chain(rest, todo)
    if run.problems:
        count = len(run.problems)
        more = f" (and {count - 1} more)" if count > 1 else ""
        raise LadderError(
            f"{count} problem(s) in this run: {run.problems[0]}{more}; the other games are "
            "stored: run again to finish the matches"
        )
    return RunReport(totals.matches, run.stored)


def window(workers: int) -> int:
    """How many matches the executor holds at once: each worker's, one queued for each
    worker (a process pool's own queue), and one more; the rest wait in the database."""
    return 2 * workers + 1


class _Reporter:
    def __init__(self, callback: ProgressCallback | None, totals: Totals) -> None:
        self.callback = callback
        self.totals = totals
        self.games = totals.games_stored
        self.finished = 0

    def send(
        self,
        finished: tuple[MatchResult, ...] = (),
        problems: tuple[str, ...] = (),
        stored: int = 0,
    ) -> None:
        self.finished += len(finished)
        self.games += stored
        if self.callback:
            self.callback(
                RunProgress(
                    games_done=self.games,
                    games_planned=self.totals.games_planned,
                    matches_done=self.finished,
                    matches_planned=self.totals.matches,
                    resumed=self.totals.resumed,
                    finished=finished,
                    problems=problems,
                )
            )


class _Run:
    """One ``play_pending``: plays matches on executors, stores their games, keeps problems."""

    def __init__(
        self,
        ladder: Path,
        engine: Engine,
        reporter: _Reporter,
        check_database: Callable[[], None],
    ) -> None:
        self.ladder = ladder
        self.importer = Importer(ladder, engine, self.problem)
        self.reporter = reporter
        self.check_database = check_database
        self.stored = 0
        self.problems: list[str] = []

    def problem(self, text: str) -> None:
        self.problems.append(text)
        self.reporter.send(problems=(text,))

    def play(
        self, matches: Iterator[PendingMatch], executor: Executor, at_once: int
    ) -> list[PendingMatch]:
        """Play ``matches`` on ``executor``, ``at_once`` at a time; return those cut off by
        a broken pool, in the order they were handed to it (the rest of ``matches`` is
        left in the iterator).

        Raises:
            LadderError: the executor refuses jobs (a caller's executor that broke).
        """
        self.importer.vouched = vouched_records(executor)
        futures: dict[Future[list[str]], PendingMatch] = {}
        order: dict[int, int] = {}  # id(match): when it was handed over
        broken: list[PendingMatch] = []

        def hand_over() -> None:
            while len(futures) < at_once and not broken:
                match = next(matches, None)
                if match is None:
                    return
                order[id(match)] = len(order)
                try:
                    futures[self._submit(executor, match)] = match
                except BrokenProcessPool:
                    broken.append(match)

        try:
            hand_over()
            while futures:
                done, _ = wait(futures, timeout=POLL_S, return_when=FIRST_COMPLETED)
                ended, completed = [futures.pop(future) for future in done], []
                for future, match in zip(done, ended, strict=True):
                    error = future.exception()
                    if isinstance(error, BrokenProcessPool):
                        broken.append(match)
                    elif error is not None:
                        self.problem(str(error))
                    else:
                        match.played = future.result()
                        completed.append(match)
                running = [match for future, match in futures.items() if future.running()]
                self._store([*running, *ended], completed)
                hand_over()
        except BaseException:
            stop_matches(executor, list(futures))  # the executor may be the caller's: only ours
            raise
        return sorted(broken, key=lambda match: order[id(match)])

    def _submit(self, executor: Executor, match: PendingMatch) -> Future[list[str]]:
        try:
            a_partner, b_partner = (
                None if partner is None else str(self.ladder / partner.folder)
                for partner in (match.a_partner, match.b_partner)
            )
            return executor.submit(
                play_match,
                str(self.ladder / match.a_folder),
                str(self.ladder / match.b_folder),
                match.settings,
                str(self.ladder / match.folder),
                partners=(a_partner, b_partner),
            )
        except BrokenProcessPool:
            raise
        except RuntimeError as error:  # shut down, or a caller's executor broken before
            raise LadderError(f"the executor refused the match {match.folder}: {error}") from None

    def _store(self, matches: list[PendingMatch], completed: list[PendingMatch]) -> None:
        """One poll of the importer; its games and finished matches reported, then its
        problems."""
        self.check_database()
        stored = self.importer.store(matches, completed)
        if not stored.games and not stored.finished and not stored.problems:
            return
        self.stored += stored.games
        self.reporter.send(stored.finished, stored=stored.games)
        for text in stored.problems:
            self.problem(text)
