"""The cluster's task: one deal pair, played on a worker, handed back as plain data.

A task is a deal pair, never a whole match, so that one slow match does not hold one
worker while others idle. The worker plays the pair as a local match worker would
(``match.play_here``: the same referee, the sandbox where the owner's settings say so)
into a scratch match folder, and returns the finished records (plain dicts), their
outcomes and the bots' logs; the owner writes them into the real match folder.
The task touches nothing of the owner's but, on a machine that sees the owner's match
folder (a local cluster, a shared file system), the live journals of its games.

Imports Dask: only cluster code imports this module.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from distributed import get_worker

from pitch_referee.errors import BotError
from pitch_referee.live import JournalPublisher
from pitch_referee.match import (
    Entrant,
    GameOutcome,
    GameSpec,
    Job,
    MatchError,
    MatchFolder,
    MatchSettings,
    play_here,
)
from pitch_sdk.record import RecordError, load_record

from .bots import BotRef, fetch_bot


@dataclass(frozen=True)
class PlayedPair:
    """What a task hands back: everything the owner writes, nothing it must re-read."""

    outcomes: list[GameOutcome]
    records: list[dict[str, Any]]
    """Each outcome's game record, in the same order."""
    logs: dict[str, bytes] = field(default_factory=dict)
    """The bots' logs of this pair, by file name (``A1-<bot>.log``...)."""
    worker: str = ""
    """The Dask worker's address."""
    fetched: tuple[str, ...] = ()
    """The content hashes of the bot versions this task had to fetch."""


def play_pair(
    a: BotRef,
    b: BotRef,
    settings: MatchSettings,
    sandboxed: bool,
    live: JournalPublisher,
    pair: list[GameSpec],
) -> PlayedPair:
    """Play the games of one deal pair on this worker.

    Args:
        sandboxed: the owner's resolution of ``settings.sandbox``: every game of a match
            runs its bots the same way, wherever it is played.
        live: the owner's journals of the match: used where this machine sees the match
            folder, else the journals go to the scratch folder (and nobody watches).

    Raises:
        RuntimeError: the pair could not be played (the message says why). Only built-in
            exceptions leave a task, so that any client can read them.
    """
    worker = get_worker()
    scratch = Path(tempfile.mkdtemp(prefix="pair-", dir=worker.local_directory))
    folder = MatchFolder(scratch)
    try:
        folder.games_dir.mkdir()
        (a_bot, a_fetched), (b_bot, b_fetched) = fetch_bot(a), fetch_bot(b)
        publisher = (
            live
            if live.live_dir.parent.is_dir()
            else JournalPublisher.for_match(scratch, live.max_silence_s)
        )
        job = Job(
            Entrant(a_bot.name, a_bot),
            Entrant(b_bot.name, b_bot),
            settings,
            scratch,
            sandboxed,
            publisher,
        )
        outcomes = play_here(job, [pair], _quiet)
        compress = settings.compress_records
        records = [load_record(folder.record_path(o.spec, compress)) for o in outcomes]
        logs = {path.name: path.read_bytes() for path in folder.worker_logs(0).glob("*.log")}
    except (BotError, MatchError, OSError, RecordError) as error:
        raise RuntimeError(f"pair {pair[0].pair} on {worker.address}: {error}") from None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    fetched = tuple(ref.digest for ref, now in ((a, a_fetched), (b, b_fetched)) if now)
    return PlayedPair(outcomes, records, logs, worker.address, fetched)


def _quiet(_message: str) -> None:
    """Cluster bots are never started by hand: nothing to announce."""
