"""Playing a match: a new one (``run_match``) or the rest of one (``resume_match``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from ..live import JournalPublisher, sweep
from .folder import MatchFolder
from .outcomes import OutcomeLog
from .pool import Job, WorkerError, Workers, run_workers
from .schedule import GameSpec
from .settings import Entrant, MatchError, MatchSettings
from .summary import (
    LoadedMatch,
    MatchProgress,
    MatchStatus,
    MatchSummary,
    Playability,
    Tally,
    summarize,
    summary_of,
)

ProgressCallback = Callable[[MatchProgress], None]


class MatchInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped the match: its workers are stopped, its finished games kept, and
    its summary says ``interrupted`` (``summary``); resuming plays the rest."""

    def __init__(self, summary: MatchSummary) -> None:
        super().__init__(f"interrupted after {summary.games_played} games")
        self.summary = summary


def run_match(
    a: Entrant,
    b: Entrant,
    settings: MatchSettings,
    root: Path,
    progress: ProgressCallback | None = None,
    announce: Callable[[str], None] = print,
    *,
    stop_if_unplayable: bool = False,
    workers: Workers = run_workers,
    partners: tuple[Entrant | None, Entrant | None] = (None, None),
) -> MatchSummary:
    """Play a new match into ``root`` (which must not hold one) and return its summary.

    Settings without a seed get a fresh one, written into ``match.json``. With
    ``stop_if_unplayable``, the match stops (``MatchStatus.CANNOT_PLAY``) as soon as
    its games show that a bot cannot play at all (``summary.cannot_play``) instead of
    playing every remaining game as a forfeit. ``workers`` play the deal pairs: this
    machine's, or a cluster's (``pitch_ladder.cluster``). ``partners``: who partners bot
    A and bot B in their teams (``None``, the default: the bot itself); the results of
    "bot A" are then its team's.

    Raises:
        MatchError: ``root`` already holds a match, or the match cannot go on (a
            ``WorkerError`` when a worker failed: the finished games are kept).
        MatchInterrupted: Ctrl-C (a ``KeyboardInterrupt``); the match can be resumed.
    """
    folder = MatchFolder(root)
    if folder.exists():
        raise MatchError(f"{root} already holds a match")
    settings = settings.seeded()
    if any(entrant is not None and entrant.by_hand for entrant in (a, b, *partners)):
        settings = replace(settings, concurrency=1)  # bots by hand join one referee
    folder.write_header(a, b, settings, partners)
    return _play_remaining(root, progress, announce, stop_if_unplayable, workers)


def resume_match(
    root: Path,
    progress: ProgressCallback | None = None,
    announce: Callable[[str], None] = print,
    *,
    stop_if_unplayable: bool = False,
    workers: Workers = run_workers,
) -> MatchSummary:
    """Finish an interrupted match: play only the games that have no record yet.

    ``stop_if_unplayable`` as for ``run_match``, judged on the games this call plays
    (a bot fixed since the games it lost still gets its chance); ``workers`` as for
    ``run_match``.
    """
    MatchFolder(root).read_header()
    return _play_remaining(root, progress, announce, stop_if_unplayable, workers)


def _play_remaining(
    root: Path,
    progress: ProgressCallback | None,
    announce: Callable[[str], None],
    stop_if_unplayable: bool,
    workers: Workers,
) -> MatchSummary:
    loaded = LoadedMatch.load(root)
    counts = Tally(loaded.settings.duplicate)
    for outcome in loaded.outcomes.values():
        counts.add(outcome)
    state = counts.progress(loaded.settings, len(loaded.specs))
    if progress:
        progress(state)
    if state.sprt and state.sprt.decision:
        return summary_of(loaded, MatchStatus.STOPPED_BY_SPRT)
    by_pair: dict[int, list[GameSpec]] = {}  # in schedule order
    for spec in loaded.specs:
        if spec not in loaded.outcomes:
            by_pair.setdefault(spec.pair, []).append(spec)
    pairs = list(by_pair.values())
    del by_pair
    try:
        summary_of(loaded, MatchStatus.RUNNING)
        settings = loaded.settings
        publisher = JournalPublisher.for_match(root, _max_silence_s(settings))
        sandboxed = settings.sandboxed(announce)
        partners = (loaded.a_partner, loaded.b_partner)
        job = Job(loaded.a, loaded.b, settings, root, sandboxed, publisher, *partners)
        planned = len(loaded.specs)
        del loaded  # not kept while playing: the summary at the end reads the folder again
        status, unplayable = _play(
            job, planned, counts, pairs, progress, announce, stop_if_unplayable, workers
        )
        del pairs  # nor the games they hold, beside those of the summary at the end
    except KeyboardInterrupt:
        raise MatchInterrupted(summarize(root, MatchStatus.INTERRUPTED)) from None
    except WorkerError:
        summarize(root, MatchStatus.INTERRUPTED)
        raise
    finally:
        sweep(root)  # the journals of games whose worker died, which no one will finish
    return summarize(root, status, unplayable)


LIVE_SILENCE_MARGIN_S = 60.0
"""Beyond one decision's whole budget, how long a game may go quiet (starting a bot
again, a loaded machine) before a journal seen from another host counts as abandoned."""


def _max_silence_s(settings: MatchSettings) -> float:
    return (settings.time_limit_ms + settings.time_reserve_ms) / 1000 + LIVE_SILENCE_MARGIN_S


def _play(
    job: Job,
    planned: int,
    counts: Tally,
    pairs: list[list[GameSpec]],
    progress: ProgressCallback | None,
    announce: Callable[[str], None],
    stop_if_unplayable: bool,
    workers: Workers,
) -> tuple[MatchStatus, tuple[str, ...]]:
    """Play ``pairs`` on ``workers`` until the end or a reason to stop; returns why it stopped.

    Each game is added to ``counts`` and logged (``OutcomeLog``) as it finishes, and
    then forgotten: what this holds does not grow with the games played.
    """
    settings = job.settings
    status: MatchStatus = MatchStatus.FINISHED
    unplayable: tuple[str, ...] = ()
    played = Playability()  # judged on this run's games only
    with OutcomeLog(MatchFolder(job.root), settings.compress_records).opened() as log:
        for outcome in workers(job, pairs, announce):
            log.append(outcome)
            counts.add(outcome)
            played.add(outcome)
            state = counts.progress(settings, planned)
            if progress:
                progress(state)
            if state.sprt and state.sprt.decision:
                status = MatchStatus.STOPPED_BY_SPRT
                break
            if stop_if_unplayable and (unplayable := played.cannot_play()):
                status = MatchStatus.CANNOT_PLAY
                break
    if status is MatchStatus.FINISHED and settings.sprt:
        status = MatchStatus.SPRT_UNDECIDED
    return status, unplayable
