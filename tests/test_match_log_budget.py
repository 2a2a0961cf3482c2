"""A bot's logs in a match keep its log budget, all its seats, workers and restarts
together: a flooding bot keeps that much, no more."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from pitch_referee.match import Entrant, MatchSettings, run_match
from pitch_referee.process import CappedLog, _copy_capped

ROOT = Path(__file__).resolve().parents[1]
RANDOM = ROOT / "sample_bots" / "random"

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
    sizes = [path.stat().st_size for path in files]
    assert sum(sizes) <= budget + len(files) * NOTICE, sizes
    assert all(size >= budget // 8 for size in sizes), "each file kept its share"
    assert "log truncated" in files[0].read_text()
    honest = sum(p.stat().st_size for p in (tmp_path / "m" / "logs").glob("*/*-random.log"))
    assert honest < budget, "the random bot's logs are its own budget's"


def test_a_log_file_keeps_its_cap_across_the_processes_that_write_it(tmp_path: Path) -> None:
    log = tmp_path / "A1-flood.log"

    async def one_process(output: bytes) -> None:
        stream = asyncio.StreamReader()
        stream.feed_data(output)
        stream.feed_eof()
        await _copy_capped(stream, CappedLog(log, 1000))

    for _ in range(3):  # a bot restarted after each fault appends to its seat's file
        asyncio.run(one_process(b"y" * 700))
    text = log.read_text()
    assert text.startswith("y" * 1000 + "\n[pitch referee: log truncated")
    assert text.count("truncated") == 1 and len(text) <= 1000 + NOTICE


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
