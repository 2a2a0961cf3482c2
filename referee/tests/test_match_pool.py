"""The match's side of its workers: a worker that ends is done or dead by what it said."""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest

from pitch_referee.match import pool


def test_a_worker_whose_last_word_comes_just_after_a_wait_timed_out_is_done_not_dead(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The match waits half a second at a time; a thread that says "done" and ends
    between a wait's timeout and the look at whether it lives has said its word."""
    ours, theirs = multiprocessing.Pipe()
    runner = threading.Thread(target=theirs.send, args=(("done", None),))
    runner.start()
    runner.join()  # said, and ended
    monkeypatch.setattr(
        pool, "_start_worker", lambda job, number, count, announce: pool._Worker(0, ours, runner)
    )
    real_wait = multiprocessing.connection.wait
    waits = 0

    def wait(connections: list, timeout: float | None = None) -> list:
        nonlocal waits
        waits += 1  # the first wait times out, as if the word came just after it
        return [] if waits == 1 else real_wait(connections, timeout)

    monkeypatch.setattr(multiprocessing.connection, "wait", wait)
    job = SimpleNamespace(settings=SimpleNamespace(concurrency=1), root=tmp_path)
    assert list(pool.run_workers(job, [["a pair"]], print)) == []  # type: ignore[arg-type]
