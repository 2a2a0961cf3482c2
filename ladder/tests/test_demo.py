"""``pitch demo``: the README's first command runs a ladder end to end."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from pitch_sdk.record import load_record
from pitch_sdk.replay import check
from pitch_testkit.ladder import cli


@pytest.mark.slow
def test_demo_runs_a_round_robin_and_says_how_to_replay_a_game(tmp_path: Path) -> None:
    folder = tmp_path / "demo"
    output = cli("demo", "--ladder", folder, "--games-per-match", "2")
    assert output.count("smoke test") == 4
    assert output.count("round 1: ") == 6  # four bots: six matches
    for bot in ("greedy", "greedy-2", "random", "random-2"):
        assert re.search(rf"\d\s+{bot}\s+1\.0 \(", output), output
    # Ranked by the fit (shown before the Elo): ranks follow it, and equal ratings share one.
    assert re.search(r"#\s+bot\s+version\s+ML \(95%\)\s+Elo\s", output), output
    rows = re.findall(r"\n\s*(\d+)\s+(\S+)\s+1\.0 \(\w+\)\s+([\d.]+) \[", output)
    assert len(rows) == 4, output
    for (rank, _, fit), (next_rank, _, next_fit) in itertools.pairwise(rows):
        assert float(fit) >= float(next_fit)
        assert (rank == next_rank) <= (fit == next_fit), output
    assert "not comparable" not in output  # a round robin connects every bot
    record = re.search(r"uv run pitch replay (\S+)", output)
    assert record is not None and check(load_record(Path(record[1]))).ok
    assert re.search(rf"uv run pitch ladder show \d+ --ladder {folder}\n", output), output
