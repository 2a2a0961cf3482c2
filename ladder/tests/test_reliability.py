"""A ladder survives kill -9 at any moment and refuses a second concurrent run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from pitch_ladder.errors import LadderError
from pitch_ladder.lock import LOCK_FILE, RunLock
from pitch_testkit.ladder import comparable_ladder, ladder_outcome, pitch

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
