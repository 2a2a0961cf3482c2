"""Games analysed in the background, a few at a time, each once however many ask.

A game's analysis solves every card of every trick double-dummy: seconds for a long game,
all of it CPU. It runs in a process of its own (at a lower CPU priority, dying with the
server), so that the server's event loop and threads never wait for it, and the page
polls its progress. At most ``workers`` analyses run at once and ``queued`` wait for a
worker; one more is refused (``AnalysisBusy``: a 503 with Retry-After), since the server
faces strangers. A game asked for while it is queued or running joins that analysis.

Each worker is a long-lived thread that starts the analysis's process and reads its
progress from a pipe: a process dies with the thread that started it
(``PR_SET_PDEATHSIG``), so a request's thread, which may end first, never starts one.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import queue
import signal
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, Literal

from pitch_sdk.gamerecord import GameRecord

from .analysis_store import AnalysisStore
from .game_analysis import Progress, analyse

log = logging.getLogger("pitch_web.analysis")
NICE = 10
"""How much lower an analysis's CPU priority is than the server's."""
RETRY_AFTER_S = 15
"""Retry-After when every place in the queue is taken."""

Analyse = Callable[[GameRecord, Mapping[tuple[int, int], int], Progress], dict[str, Any]]
State = Literal["queued", "running", "failed"]


class AnalysisBusy(Exception):
    """Every worker is busy and every place in the queue taken: come back later."""


@dataclass
class Job:
    """One game's analysis under way (or failed): ``done`` of ``total`` hands."""

    key: str
    version: object
    state: State = "queued"
    done: int = 0
    total: int = 0
    error: str | None = None

    def progress(self) -> dict[str, Any]:
        """The job as the API shows it."""
        if self.state == "failed":
            return {"state": "failed", "detail": self.error}
        return {"state": self.state, "done": self.done, "total": self.total}


_Work = tuple[Job, GameRecord, dict[tuple[int, int], int]]
"""A queued analysis: its job, the record and ``decision_steps`` of its timeline."""


class AnalysisJobs:
    """``workers`` analyses at once, ``queued`` more waiting, their results kept in ``store``.

    ``analyse`` is the work (a module-level function: it is sent to the process by name).
    """

    def __init__(
        self,
        store: AnalysisStore,
        workers: int = 1,
        queued: int = 4,
        *,
        analyse: Analyse = analyse,
        nice: int = NICE,
    ) -> None:
        if workers < 1 or queued < 0:
            raise ValueError("analyses need a worker and a queue of 0 or more")
        self.store = store
        self.workers = workers
        self.queued = queued
        self.analyse = analyse
        self.nice = nice
        self._lock = threading.Lock()
        self._jobs: dict[str, Job] = {}
        self._waiting: queue.Queue[_Work | None] = queue.Queue()
        self._threads: list[threading.Thread] = []
        self._processes: set[BaseProcess] = set()
        self._closed = False

    def job(self, key: str, version: object) -> Job | None:
        """The analysis of ``key`` at ``version`` under way or failed, if any."""
        with self._lock:
            job = self._jobs.get(key)
            return job if job is not None and job.version == version else None

    def start(
        self,
        key: str,
        version: object,
        record: GameRecord,
        steps: dict[tuple[int, int], int],
    ) -> Job:
        """Analyse game ``key`` (``steps``: ``decision_steps`` of its timeline), or join
        the analysis of it already queued or running.

        Raises:
            AnalysisBusy: the queue is full.
        """
        with self._lock:
            if self._closed:
                raise AnalysisBusy("the server is stopping")
            job = self._jobs.get(key)
            if job is not None and job.version == version and job.state != "failed":
                return job
            under_way = sum(1 for other in self._jobs.values() if other.state != "failed")
            if under_way >= self.workers + self.queued:
                raise AnalysisBusy(
                    f"the server is busy: {under_way} games are being analysed or waiting; "
                    "ask again later"
                )
            job = self._jobs[key] = Job(key, version, total=len(record.hands))
            self._waiting.put((job, record, steps))
            while len(self._threads) < self.workers:
                thread = threading.Thread(target=self._work, name="analysis", daemon=True)
                self._threads.append(thread)
                thread.start()
        return job

    def close(self) -> None:
        """Drop the waiting analyses and kill the running ones."""
        with self._lock:
            self._closed = True
            processes = list(self._processes)
        for _ in self._threads:
            self._waiting.put(None)
        for process in processes:
            process.kill()
        for thread in self._threads:
            thread.join(10)

    # --- the workers ------------------------------------------------------------------------

    def _work(self) -> None:
        while (item := self._waiting.get()) is not None:
            job, record, steps = item
            with self._lock:
                if self._closed:
                    return
                job.state = "running"
            try:
                analysis = self._run(job, record, steps)
                with self._lock:
                    superseded = self._jobs.get(job.key) is not job  # its record changed
                if not superseded:
                    self.store.put(job.key, job.version, analysis)
            except AnalysisFailed as error:
                self._failed(job, str(error))
            except OSError as error:
                log.warning("an analysis could not be kept: %s", error)
                self._failed(job, f"the analysis could not be kept: {error.strerror}")
            except Exception as error:  # the worker lives on for the next game
                log.exception("analysing game %s failed", job.key)
                self._failed(job, f"the analysis failed: {type(error).__name__}")
            else:
                with self._lock:  # kept: the store answers from now on
                    if self._jobs.get(job.key) is job:
                        del self._jobs[job.key]

    def _failed(self, job: Job, message: str) -> None:
        with self._lock:
            job.state, job.error = "failed", message

    def _run(
        self, job: Job, record: GameRecord, steps: dict[tuple[int, int], int]
    ) -> dict[str, Any]:
        """The analysis, in a process of its own; its progress into ``job``."""
        context = multiprocessing.get_context("spawn")
        receive, send = context.Pipe(duplex=False)
        process = context.Process(
            target=_in_process,
            args=(send, os.getpid(), self.nice, self.analyse, record, steps),
            name="analysis",
            daemon=True,
        )
        with self._lock:
            if self._closed:
                raise AnalysisFailed("the server is stopping")
            process.start()
            self._processes.add(process)
        send.close()
        try:
            while True:
                try:
                    message = receive.recv()
                except EOFError:
                    raise AnalysisFailed("the analysis stopped: its process ended") from None
                if message[0] == "progress":
                    with self._lock:
                        job.done, job.total = message[1], message[2]
                elif message[0] == "done":
                    return message[1]
                else:
                    raise AnalysisFailed(message[1])
        finally:
            receive.close()
            process.join(10)
            if process.is_alive():
                process.kill()
                process.join()
            with self._lock:
                self._processes.discard(process)


class AnalysisFailed(Exception):
    """The analysis's process failed or ended without an answer."""


def _in_process(
    send: Connection,
    parent: int,
    nice: int,
    work: Analyse,
    record: GameRecord,
    steps: dict[tuple[int, int], int],
) -> None:
    """An analysis's process: lower priority, dies with the server, leaves Ctrl-C to it."""
    from pitch_referee.workers import die_with_parent

    die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.nice(nice)
    try:
        analysis = work(record, steps, lambda done, total: send.send(("progress", done, total)))
    except Exception as error:  # the process's whole answer: any failure is the message
        send.send(("failed", f"the analysis failed: {type(error).__name__}: {error}"))
    else:
        send.send(("done", analysis))
    finally:
        send.close()
