"""A bot's logs in a match keep its log budget, all its seats, workers and restarts
together: a flooding bot keeps that much, no more."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from pitch_referee.logindex import LogTag, index_path
from pitch_referee.match import Entrant, MatchSettings, run_match
from pitch_referee.process import RECENT_OUTPUT_BYTES, BotOutput, CappedLog
from pitch_sdk import reference

RANDOM = reference.folder("random")

FLOOD = """
import sys
from pitch_sdk.bots import RandomBot
from pitch_sdk.run import run


class Flood(RandomBot):
    def decide(self, view, budget=None):
        sys.stderr.write("x" * 100_000 + "\\n")
        return super().decide(view)


raise SystemExit(run(Flood()))
"""
NOTICE = 120
"""Room for the line a capped log ends with."""


def _flood(folder: Path) -> Entrant:
    folder.mkdir()
    (folder / "bot.toml").write_text('name = "flood"\nversion = "0"\ncommand = "python bot.py"\n')
    (folder / "bot.py").write_text(FLOOD)
    return Entrant.from_folder(folder)


@pytest.mark.slow
def test_a_flooding_bot_keeps_its_log_budget_over_its_seats_and_workers(tmp_path: Path) -> None:
    budget = 64 * 1024
    settings = MatchSettings(
        games=4, seed=5, rules={"hand_cap": 2}, concurrency=2, log_budget_bytes=budget
    )
    run_match(
        _flood(tmp_path / "flood"),
        Entrant.from_folder(RANDOM),
        settings,
        tmp_path / "m",
        announce=lambda _: None,
    )
    files = sorted((tmp_path / "m" / "logs").glob("worker-*/*-flood.log"))
    # Two seats, each with a process per game letter, in each of two workers: at most eight
    # files, each keeping an eighth (a worker starts only the letters it plays).
    assert 2 <= len(files) <= 8, files
    sizes = [path.stat().st_size + _size(index_path(path)) for path in files]  # with its index
    assert sum(sizes) <= budget + len(files) * NOTICE, sizes
    assert all(size >= budget // 8 for size in sizes), "each file kept its share"
    assert "log truncated" in files[0].read_text()
    honest = sum(p.stat().st_size for p in (tmp_path / "m" / "logs").glob("*/*-random.log"))
    assert honest < budget, "the random bot's logs are its own budget's"


def _size(path: Path) -> int:
    return path.stat().st_size if path.exists() else 0


async def _through_a_pipe(
    output: bytes, log: CappedLog, tag: Callable[[], LogTag | None], recent: bytearray
) -> None:
    """What a process writes, then closes, read by the referee's ``BotOutput`` to the end."""
    read, write = os.pipe()
    os.set_blocking(read, False)
    reader = BotOutput(read, log, tag, recent)

    def write_all() -> None:
        with os.fdopen(write, "wb") as pipe:  # blocks while the pipe is full
            pipe.write(output)

    await asyncio.to_thread(write_all)
    await reader.wait_closed(10)
    assert reader.fd is None, "the reader saw the pipe's end"


def test_a_log_file_and_its_index_keep_their_cap_across_the_processes_that_write_them(
    tmp_path: Path,
) -> None:
    log = tmp_path / "A1-flood.log"

    def one_process(output: bytes, game: str) -> None:
        tag = LogTag(game, 1, 0, asked=True)
        asyncio.run(_through_a_pipe(output, CappedLog(log, 1000), lambda: tag, bytearray()))

    for game in ("g0", "g1", "g2"):  # a bot restarted after each fault appends to its file
        one_process(b"y" * 699 + b"\n", game)
    text = log.read_text()
    index = index_path(log).read_text()
    assert text.startswith("y" * 699 + "\n" + "y" * 100)
    assert text.count("truncated") == 1 and index.count("\n") == 2
    assert len(text) + len(index) <= 1000 + NOTICE


def test_a_process_keeps_the_end_of_its_output_in_memory_past_its_logs_cap(tmp_path: Path) -> None:
    recent = bytearray()
    output = b"y" * (RECENT_OUTPUT_BYTES + 100_000) + b"\nValueError: last words\n"
    log = CappedLog(tmp_path / "A1-flood.log", 1000)
    asyncio.run(_through_a_pipe(output, log, lambda: None, recent))
    assert len(recent) == RECENT_OUTPUT_BYTES
    assert recent.endswith(b"\nValueError: last words\n")


def test_a_process_kept_for_a_later_match_writes_within_that_matchs_cap(tmp_path: Path) -> None:
    first, second = tmp_path / "m1" / "A1-a-flood.log", tmp_path / "m2" / "B2-b-flood.log"
    log = CappedLog(first, 1000)
    log.write(b"x" * 600)
    log.move(second, 500)  # lent to the next match, with that match's share of the budget
    log.write(b"y" * 800)
    log.file.close()
    assert first.read_bytes() == b"x" * 600
    text = second.read_text()
    assert text.startswith("y" * 500 + "\n[pitch referee: log truncated at 500 bytes")


def test_a_log_that_cannot_be_written_drops_the_output_and_still_reads_the_pipe_to_its_end(
    tmp_path: Path,
) -> None:
    """A full disk (``/dev/full``) fails the log's writes; the bot, whose pipe is still
    read, never blocks on it, and the referee keeps its last words for a crash note."""
    recent = bytearray()
    output = b"z" * 300_000 + b"\nValueError: last words\n"  # more than a pipe holds
    asyncio.run(_through_a_pipe(output, CappedLog(Path("/dev/full"), 10**6), lambda: None, recent))
    assert recent.endswith(b"\nValueError: last words\n")
