"""Scheduling writes a round in bulk, and a run hands out and polls only a few matches."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, Future
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event
from sqlmodel import Session, col, select

from pitch_ladder import importer, pending, runner
from pitch_ladder.errors import LadderError
from pitch_ladder.models import Match
from pitch_ladder.ownership import deal_secret
from pitch_ladder.runner import play_pending
from pitch_ladder.schedule import match_folder, match_settings, round_robin
from pitch_ladder.schedule_writer import schedule_rounds
from pitch_testkit.ladder import ladder_with

NAMES = ["ann", "bob", "cy", "dee", "eve", "fay"]


def test_a_round_is_written_by_one_bulk_insert_with_each_match_its_own_settings(
    db_url: str, tmp_path: Path
) -> None:
    ladder, versions = ladder_with(db_url, tmp_path, NAMES)
    statements: list[str] = []

    def note(_conn, _cursor, statement: str, *_args: Any) -> None:
        statements.append(statement)

    event.listen(ladder.engine, "before_cursor_execute", note)
    schedule_rounds(ladder.engine, 2, 4, {"hand_cap": 3})
    event.remove(ladder.engine, "before_cursor_execute", note)
    pairs = round_robin(NAMES)
    assert len(statements) < 10, statements  # 30 matches: a few statements, not one each
    with Session(ladder.engine) as session:
        secret = deal_secret(session)
        rows = session.exec(select(Match).order_by(col(Match.id))).all()
    expected = [(number, a, b) for number in (1, 2) for a, b in pairs]
    assert len(rows) == len(expected)
    for row, (number, a, b) in zip(rows, expected, strict=True):  # ids in round-robin order
        assert (row.round, row.a_version_id, row.b_version_id) == (number, versions[a], versions[b])
        assert row.settings == match_settings(secret, number, a, b, 4, {"hand_cap": 3})
        assert row.seed == row.settings["seed"]
        assert (row.folder, row.games_planned, row.status) == (
            match_folder(number, a, b),
            4,
            "pending",
        )
    with pytest.raises(ValueError):
        schedule_rounds(ladder.engine, 1, 4, {"no_such_rule": 1})
    ladder.close()


class _OneAtATime(Executor):
    """Runs the matches handed to it one after the other, in a thread, without playing
    them: it only notes which match it is on, and how many it held at once."""

    def __init__(self) -> None:
        self.queue: list[tuple[Future[list[str]], str]] = []
        self.started: list[str] = []
        self.held = self.most = 0
        self.lock = threading.Lock()
        self.worker = threading.Thread(target=self._work, daemon=True)
        self.closed = False
        self.worker.start()

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[list[str]] = Future()
        with self.lock:
            self.queue.append((future, args[3]))  # the match folder
            self.held += 1
            self.most = max(self.most, self.held)
        return future

    def _work(self) -> None:
        while not self.closed:
            with self.lock:
                job = self.queue.pop(0) if self.queue else None
            if job is None:
                time.sleep(0.01)
                continue
            future, folder = job
            self.started.append(Path(folder).name)  # first: the runner polls a running future
            future.set_running_or_notify_cancel()
            time.sleep(0.05)
            with self.lock:
                self.held -= 1
            future.set_result([])


def test_a_run_hands_out_a_few_matches_at_a_time_and_polls_only_the_running_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ladder, _ = ladder_with(f"sqlite:///{tmp_path / 'ladder.db'}", tmp_path, NAMES)
    schedule_rounds(ladder.engine, 1, 2, {})
    monkeypatch.setattr(pending.PendingMatches, "CHUNK", 4)  # several chunks
    executor = _OneAtATime()
    polled: list[tuple[str, bool]] = []
    original = importer.Importer.new_records

    def new_records(self: importer.Importer, match: pending.PendingMatch) -> list[Any]:
        name = Path(match.folder).name
        polled.append((name, name in executor.started))
        return original(self, match)

    monkeypatch.setattr(importer.Importer, "new_records", new_records)
    with pytest.raises(LadderError, match="0 of 2 games stored"):  # nothing was played
        play_pending(ladder.folder, ladder.engine, lambda _size: nullcontext(executor), 1)
    executor.closed = True
    with Session(ladder.engine) as session:
        order = [
            Path(folder).name
            for folder in session.exec(
                select(Match.folder).order_by(col(Match.round), col(Match.id))
            )
        ]
    assert executor.started == order  # every match, in play order, chunk after chunk
    assert executor.most <= runner.window(1)  # never the whole schedule at once
    assert polled and all(started for _, started in polled)  # never a match still queued
    ladder.close()
