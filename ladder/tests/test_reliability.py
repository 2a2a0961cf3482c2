"""A ladder survives kill -9 at any moment and refuses a second concurrent run."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text
from sqlmodel import Session, func, select

from pitch_ladder.database import database_url
from pitch_ladder.errors import LadderError
from pitch_ladder.ladder import Ladder
from pitch_ladder.lock import LOCK_FILE, RunLock
from pitch_ladder.models import Game
from pitch_ladder.pending import PendingMatches
from pitch_ladder.schedule_writer import schedule_rounds
from pitch_referee.match import MatchFolder
from pitch_sdk.record import write_record
from pitch_testkit.ladder import (
    POSTGRES,
    assert_ended_by_the_database,
    comparable_ladder,
    fresh_database,
    honest_record,
    ladder_outcome,
    pitch,
    postgres_failing,
    run_until_the_database_fails,
)

RUN = ["ladder", "run", "--rounds", "2", "--games-per-match", "12", "--workers", "2"]
"""Two rounds of one 12-game match (greedy vs random), two matches at once: 24 games, enough
that a run is surely still going when the test kills it after a few."""
GAMES = 24


def _records(folder: Path) -> int:
    return len(list(folder.glob("matches/*/games/*.json")))


def _start_run(where: list[str | Path]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "pitch_cli", *RUN, *map(str, where)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_for_lock(process: subprocess.Popen[str], folder: Path) -> None:
    """Until the run holds the ladder's run lock (its pid is in the lock file)."""
    lock, deadline = folder / LOCK_FILE, time.monotonic() + 30
    while not lock.exists() or lock.read_text().strip() != str(process.pid):
        assert time.monotonic() < deadline and process.poll() is None, "the run never started"
        time.sleep(0.01)


def _kill_when(process: subprocess.Popen[str], folder: Path, records: int) -> None:
    """kill -9 the run once it holds the lock and ``records`` more games are on disk.

    Then check that nothing writes into the ladder any more.
    """
    records += _records(folder)
    _wait_for_lock(process, folder)
    deadline = time.monotonic() + 60
    while _records(folder) < records and process.poll() is None:
        assert time.monotonic() < deadline, "the run made no progress"
        time.sleep(0.02)
    process.kill()
    process.wait()
    on_disk = _records(folder)
    assert on_disk < GAMES, "the run finished before it could be killed"
    time.sleep(1.0)
    assert _records(folder) == on_disk, "match workers outlived the killed run"


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Any], dict[str, Any]]:
    folder = tmp_path_factory.mktemp("uninterrupted") / "ladder"
    where = comparable_ladder(folder)
    finished = pitch(*RUN, *where)
    assert finished.returncode == 0, finished.stderr
    return ladder_outcome(folder)


@pytest.mark.slow
@pytest.mark.skipif(not POSTGRES, reason="PITCH_TEST_POSTGRES_URL is not set")
def test_a_database_failing_mid_run_stops_its_matches_in_one_line_and_loses_nothing(
    tmp_path: Path, uninterrupted: tuple[list[Any], dict[str, Any]]
) -> None:
    """The run ends at once, its matches stopped (not played on to their end first), and
    the next run finishes them as if nothing had happened."""
    with fresh_database("postgresql", tmp_path) as url:
        folder = tmp_path / "ladder"
        comparable_ladder(folder, url)
        ended = run_until_the_database_fails(RUN, folder, url, games=2)
        assert_ended_by_the_database(ended)
        on_disk = _records(folder)
        assert on_disk < GAMES, "the run played its matches to their end before it ended"
        time.sleep(1.0)
        assert _records(folder) == on_disk, "match workers outlived the run"
        finished = pitch(*RUN, "--ladder", folder, "--db", url)
        assert finished.returncode == 0, finished.stderr
        assert ladder_outcome(folder, url) == uninterrupted


@pytest.mark.skipif(not POSTGRES, reason="PITCH_TEST_POSTGRES_URL is not set")
def test_a_database_failing_anywhere_in_a_run_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    """Not only the import of games: the reads of the schedule and the fit fail as one
    ``LadderError`` too (here the first read, before any match is played)."""
    with fresh_database("postgresql", tmp_path) as url:
        folder = tmp_path / "ladder"
        comparable_ladder(folder, url)
        with (
            Ladder.open(folder, f"{url}&application_name=pitch-run-reads") as ladder,
            postgres_failing(url, "pitch-run-reads"),
            pytest.raises(LadderError, match=r"^the database failed during the run") as failed,
        ):
            ladder.run(1, 2, {"hand_cap": 2}, workers=1)
        assert "\n" not in str(failed.value)


@pytest.mark.slow
def test_kill_9_thrice_then_run_again_gives_the_uninterrupted_games_and_ratings(
    db_url: str, tmp_path: Path, uninterrupted: tuple[list[Any], dict[str, Any]]
) -> None:
    folder = tmp_path / "ladder"
    where = comparable_ladder(folder, db_url)
    _kill_when(_start_run(where), folder, records=0)  # while it schedules or starts
    _kill_when(_start_run(where), folder, records=3)
    _kill_when(_start_run(where), folder, records=6)
    finished = pitch(*RUN, *where)
    assert finished.returncode == 0, finished.stderr
    assert "finishing 2 matches of an interrupted run" in finished.stdout
    games, lines = ladder_outcome(folder, db_url)
    assert len(games) == GAMES
    assert (games, lines) == uninterrupted


@pytest.mark.slow
def test_a_second_run_on_the_same_ladder_refuses_naming_the_first(tmp_path: Path) -> None:
    folder = tmp_path / "ladder"
    where = comparable_ladder(folder)
    long_run = [*RUN[:2], "--rounds", "500", *RUN[4:]]  # still running when the second starts
    first = subprocess.Popen(
        [sys.executable, "-m", "pitch_cli", *long_run, *map(str, where)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _wait_for_lock(first, folder)
        second = pitch(*RUN, *where)
        assert first.poll() is None, "the first run ended before the second was refused"
    finally:
        first.kill()
        first.wait()
    assert second.returncode == 1, second.stdout + second.stderr
    assert f"another `pitch ladder run` (pid {first.pid}) is running" in second.stderr
    assert "--wait" in second.stderr and "Traceback" not in second.stderr
    games, _ = ladder_outcome(folder)  # every stored game has its two rating updates
    assert len(games) <= _records(folder)


def test_the_run_lock_refuses_or_waits_and_names_its_holder(tmp_path: Path) -> None:
    with RunLock(tmp_path):
        assert (tmp_path / LOCK_FILE).read_text() == f"{os.getpid()}\n"
        with pytest.raises(LadderError, match=f"pid {os.getpid()}"), RunLock(tmp_path):
            pass
    holder = RunLock(tmp_path).__enter__()
    release = threading.Timer(0.3, holder.__exit__, (None, None, None))
    release.start()
    waited: list[int | None] = []
    with RunLock(tmp_path, wait=True, on_wait=waited.append):
        assert waited == [os.getpid()]
    release.join()


def test_the_run_lock_dies_with_a_killed_holder(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(f"""
                import time
                from pathlib import Path
                from pitch_ladder.lock import RunLock
                with RunLock(Path({str(tmp_path)!r})):
                    print("locked", flush=True)
                    time.sleep(60)
            """),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
    with pytest.raises(LadderError, match=f"pid {holder.pid}"), RunLock(tmp_path):
        pass
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait()
    with RunLock(tmp_path):
        pass


BULK = 400
"""Games of the one match whose records are planted before a run: its importer's first
poll stores them all, in one bulk write long enough to be caught in the act."""


def _planted(folder: Path, db: str | None) -> None:
    """A ladder with a round of one match of ``BULK`` games scheduled, every game's record
    already in the match folder, as a run killed before its import leaves them."""
    where = comparable_ladder(folder, db)
    assert where
    with Ladder.open(folder, db) as ladder:
        schedule_rounds(ladder.engine, 1, BULK, {"hand_cap": 2})
        for match in PendingMatches(ladder.engine):
            match_folder = MatchFolder(folder / match.folder)
            match_folder.games_dir.mkdir(parents=True)
            for spec in match.specs.values():
                write_record(honest_record(match, spec), match_folder.record_path(spec))


IMPORT = ["ladder", "run", "--rounds", "1", "--workers", "1"]


@contextmanager
def _writing(db: str | None, folder: Path) -> Iterator[Callable[[], bool]]:
    """Whether another process is writing the ladder's games now: it holds the write lock
    of SQLite's file, or PostgreSQL's row-exclusive lock on this ladder's ``game`` table."""
    url = database_url(folder, db)
    if url.startswith("sqlite"):
        probe = sqlite3.connect(url.removeprefix("sqlite:///"), timeout=0, isolation_level=None)

        def locked() -> bool:
            try:
                probe.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError:
                return True  # "database is locked": a write transaction is open
            probe.execute("ROLLBACK")
            return False

        try:
            yield locked
        finally:
            probe.close()
        return
    engine = create_engine(url)
    query = text(
        "SELECT count(*) FROM pg_locks WHERE relation = 'game'::regclass AND granted "
        "AND mode = 'RowExclusiveLock' AND pid <> pg_backend_pid()"
    )
    with engine.connect() as connection:

        def inserting() -> bool:
            held = connection.execute(query).scalar_one() > 0
            connection.rollback()
            return held

        yield inserting
    engine.dispose()


def _stored(folder: Path, db: str | None) -> int:
    with Ladder.open(folder, db) as ladder, Session(ladder.engine) as session:
        return session.exec(select(func.count()).select_from(Game)).one()


@pytest.mark.slow
def test_kill_9_mid_bulk_write_stores_none_of_the_poll_and_the_next_run_all_of_it_once(
    db_url: str, tmp_path: Path
) -> None:
    reference = tmp_path / "reference"
    _planted(reference, None)
    assert pitch(*IMPORT, "--ladder", reference).returncode == 0
    assert _stored(reference, None) == BULK

    folder = tmp_path / "ladder"
    _planted(folder, db_url)
    where = ["--ladder", folder, "--db", db_url]
    for _ in range(2):  # twice: a second run, killed mid-write too, stores nothing either
        run = subprocess.Popen(
            [sys.executable, "-m", "pitch_cli", *IMPORT, *map(str, where)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        with _writing(db_url, folder) as writing:
            deadline = time.monotonic() + 120
            while not writing():
                assert run.poll() is None, "the run ended before it was caught writing"
                assert time.monotonic() < deadline, "the run never wrote"
            run.send_signal(signal.SIGKILL)
        run.wait()
        assert _stored(folder, db_url) == 0  # the poll's transaction: all of it or nothing
    finished = pitch(*IMPORT, *where)
    assert finished.returncode == 0, finished.stderr
    assert ladder_outcome(folder, db_url) == ladder_outcome(reference)
    assert len(ladder_outcome(folder, db_url)[0]) == BULK
