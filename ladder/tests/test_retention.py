"""The ladder keeps its bots' logs for a while and within a size: old match logs and old
refused submissions' smoke tests go, then the oldest while over the total; a match being
played keeps its logs."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest
from sqlmodel import Session

from pitch_ladder.ladder import Ladder
from pitch_ladder.models import Match
from pitch_ladder.retention import DAY_S, RetentionSettings, Sweeper, sweep
from pitch_testkit.ladder import ladder_with

NOW = time.time()


@pytest.fixture
def ladder(tmp_path: Path):
    ladder, _ = ladder_with(f"sqlite:///{tmp_path / 'ladder.db'}", tmp_path, ["a"])
    with ladder:
        yield ladder


def _file(path: Path, size: int, days_old: float) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"x" * size)
    when = NOW - days_old * DAY_S
    os.utime(path, (when, when))
    return path


def _match(ladder: Ladder, name: str, status: str) -> Path:
    with Session(ladder.engine) as session:
        session.add(
            Match.model_validate(
                {
                    "round": 1,
                    "a_version_id": 1,
                    "b_version_id": 1,
                    "seed": 1,
                    "games_planned": 2,
                    "settings": {},
                    "folder": f"matches/{name}",
                    "status": status,
                }
            )
        )
        session.commit()
    return ladder.folder / "matches" / name


def test_old_match_logs_and_old_refused_smoke_tests_go_and_the_rest_stays(ladder: Ladder):
    finished = _match(ladder, "1-a-vs-b", "finished")
    playing = _match(ladder, "2-a-vs-b", "pending")
    old = _file(finished / "logs" / "worker-0" / "A1-a.log", 100, days_old=100)
    fresh = _file(finished / "logs" / "worker-0" / "B1-b.log", 100, days_old=1)
    record = _file(finished / "games" / "pair-00000-a.json", 100, days_old=100)
    being_played = _file(playing / "logs" / "worker-0" / "A1-a.log", 100, days_old=100)
    refused_old = _file(ladder.folder / "smoke" / "submission-1" / "conformance.log", 50, 40)
    refused_new = _file(ladder.folder / "smoke" / "submission-2" / "conformance.log", 50, 2)
    swept = sweep(ladder, RetentionSettings(match_log_days=90, refused_log_days=30), NOW)
    assert not old.exists() and not refused_old.parent.exists()
    assert fresh.exists() and refused_new.exists() and being_played.exists()
    assert record.exists(), "records are never the retention's"
    assert (swept.files, swept.bytes) == (2, 150)


def test_an_old_logs_index_goes_with_it(ladder: Ladder):
    finished = _match(ladder, "1-a-vs-b", "finished")
    index = _file(finished / "logs" / "worker-0" / "A1-a.log.index", 70, days_old=100)
    kept = _file(finished / "logs" / "worker-0" / "B1-b.log.index", 70, days_old=1)
    swept = sweep(ladder, RetentionSettings(match_log_days=90), NOW)
    assert not index.exists() and kept.exists()
    assert (swept.files, swept.bytes) == (1, 70)


def test_over_the_total_the_oldest_logs_go_first(ladder: Ladder):
    finished = _match(ladder, "1-a-vs-b", "finished")
    logs = [
        _file(finished / "logs" / "worker-0" / f"A{n}-a.log", 1000, days_old=10 - n)
        for n in range(1, 5)
    ]
    smoke = _file(ladder.folder / "smoke" / "submission-7" / "match" / "A1-x.log", 1000, 7.5)
    settings = RetentionSettings(match_log_days=0, refused_log_days=0, max_log_bytes=2500)
    swept = sweep(ladder, settings, NOW)
    assert [log.exists() for log in logs] == [False, False, True, True]
    assert not smoke.exists()  # 7.5 days old: between the first and second match logs
    assert swept.kept_bytes == 2000
    assert sweep(ladder, RetentionSettings(0, 0, 0), NOW).files == 0, "0: kept for good"


def test_the_server_sweeps_at_start_and_then_periodically(ladder: Ladder):
    finished = _match(ladder, "1-a-vs-b", "finished")
    first = _file(finished / "logs" / "worker-0" / "A1-a.log", 10, days_old=3)
    stop = threading.Event()
    settings = RetentionSettings(match_log_days=2, sweep_minutes=0.5 / 60)
    sweeper = Sweeper(ladder, settings, stop).start()
    try:
        deadline = time.time() + 10
        while first.exists() and time.time() < deadline:
            time.sleep(0.05)
        assert not first.exists(), "swept at start"
        later = _file(finished / "logs" / "worker-1" / "A1-a.log", 10, days_old=3)
        deadline = time.time() + 10
        while later.exists() and time.time() < deadline:
            time.sleep(0.05)
        assert not later.exists(), "and again a while later"
    finally:
        stop.set()
        sweeper.thread.join(5)
    assert not sweeper.thread.is_alive()


def test_retention_settings_refuse_negative_values():
    with pytest.raises(ValueError, match="max_log_bytes must not be negative"):
        RetentionSettings(max_log_bytes=-1)
