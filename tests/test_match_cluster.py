"""`pitch match --cluster`: the local match's games, played as deal pairs on a Dask
cluster; and `pitch match` without it never imports Dask."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from pitch_cli import app
from pitch_sdk import reference
from pitch_sdk.record import load_record
from pitch_testkit.bot_copies import renamed_sample

GREEDY, RANDOM = reference.folder("greedy"), reference.folder("random")
MATCH = ["match", str(GREEDY), str(RANDOM), "--games", "8", "--seed", "11"]


@contextmanager
def _local_cluster() -> Iterator[str]:
    """A local cluster of two worker processes: its scheduler's address."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as local:
        yield local.scheduler_address


@pytest.fixture(scope="module")
def cluster_address() -> Iterator[str]:
    with _local_cluster() as address:
        yield address


@pytest.fixture
def cluster_to_kill() -> Iterator[str]:
    """A cluster of its own for a test whose bot kills the workers: the nanny does not
    always bring them back, and the module's cluster was left with one or none."""
    with _local_cluster() as address:
        yield address


def _pitch(*args: str | Path) -> str:
    result = CliRunner().invoke(app, [str(arg) for arg in args])
    assert result.exit_code == 0, f"{result.output}{result.exception!r}"
    return result.output


def _games(folder: Path) -> dict[str, Any]:
    """The match's records without what differs between two plays of a game (times, logs)."""
    games = {}
    for path in sorted((folder / "games").glob("*.json.gz")):
        record = load_record(path)
        for player in record.players:
            log = player.log  # relative to the match folder, as a local worker writes it
            assert log is not None and log.startswith("logs/worker-"), log
            assert (folder / log).is_file(), log
        players = tuple(replace(player, log=None, cpu_ms=None) for player in record.players)
        hands = tuple(
            replace(hand, decisions=tuple(replace(d, ms=None) for d in hand.decisions))
            for hand in record.hands
        )
        games[path.name] = replace(record, players=players, hands=hands)
    return games


@pytest.mark.slow
@pytest.mark.parametrize("pairs_a_task", [None, 3])
def test_a_match_on_a_cluster_plays_the_local_matchs_games(
    cluster_address: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pairs_a_task: int | None
) -> None:
    """A pair a task (the match's 4 pairs on 2 workers), and tasks of 3 pairs."""
    from pitch_ladder.cluster import owner

    tasks: list[int] = []
    chunks = owner._chunks

    def counted(pairs: list[Any], size: int) -> list[Any]:
        made = chunks(pairs, pairs_a_task or size)
        tasks.extend(len(chunk) for chunk in made)
        return made

    monkeypatch.setattr(owner, "_chunks", counted)
    _pitch(*MATCH, "--out", tmp_path / "local", "--concurrency", "2")
    shown = _pitch(*MATCH, "--out", tmp_path / "cluster", "--cluster", cluster_address)
    assert f"playing on the cluster at {cluster_address}" in shown
    assert tasks == ([3, 1] if pairs_a_task else [1, 1, 1, 1])
    local, on_cluster = _games(tmp_path / "local"), _games(tmp_path / "cluster")
    assert len(local) == 8 and on_cluster == local
    outcomes = (tmp_path / "cluster" / "outcomes.jsonl").read_text().splitlines()
    assert len(outcomes) == 8


def test_bots_started_by_hand_cannot_play_on_a_cluster() -> None:
    result = CliRunner().invoke(
        app, [*MATCH, "--attach", str(GREEDY), "--cluster", "tcp://127.0.0.1:9"]
    )
    assert result.exit_code != 0
    assert "bots started by hand cannot play on a cluster" in str(result.exception)


def test_a_match_without_cluster_never_imports_dask() -> None:
    listing = "import sys; import pitch_cli.match, pitch_cli.ladder; print(' '.join(sys.modules))"
    done = subprocess.run(
        [sys.executable, "-c", listing], capture_output=True, text=True, check=True
    )
    loaded = {name.split(".")[0] for name in done.stdout.split()}
    assert not loaded & {"dask", "distributed"}


KILLER = "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)  # the referee: a worker\n"
"""Unsandboxed (a sandboxed bot cannot see its referee); both sides kill, so that no
other bot is left behind by the workers it kills."""


def _killer(folder: Path) -> Path:
    killer = folder / "killer"
    killer.mkdir()
    (killer / "bot.toml").write_text(
        'name = "killer"\nversion = "0"\ncommand = ["python", "bot.py"]\n'
    )
    (killer / "bot.py").write_text(KILLER)
    return killer


def _kill_match(killer: Path, games: int, out: Path, address: str) -> str:
    """``pitch match`` of the killer against itself: its error, with the line to resume."""
    result = CliRunner().invoke(
        app,
        ["match", str(killer), str(killer), "--games", str(games), "--sandbox", "off",
         "--out", str(out), "--cluster", address],
    )  # fmt: skip
    assert result.exit_code != 0
    message = str(result.exception)
    assert f"pitch match --resume {out}" in message
    return message


@pytest.mark.slow
def test_a_pair_that_kills_every_worker_it_runs_on_stops_the_match_naming_it(
    cluster_to_kill: str, tmp_path: Path
) -> None:
    message = _kill_match(_killer(tmp_path), 2, tmp_path / "m", cluster_to_kill)
    assert message.startswith("pair 0 killed every cluster worker that played it"), message


@pytest.mark.slow
def test_a_task_of_several_pairs_that_kills_its_workers_is_split_to_name_the_pair(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The match's two pairs in one task; the scheduler gives a task up after one worker
    it killed (allowed-failures 0), then each pair alone: one of them is named."""
    dask = pytest.importorskip("dask")
    from pitch_ladder.cluster import owner

    monkeypatch.setattr(owner, "pairs_a_task", lambda pairs, *_sharing: pairs)
    with (
        dask.config.set({"distributed.scheduler.allowed-failures": 0}),
        _local_cluster() as address,
    ):
        message = _kill_match(_killer(tmp_path), 4, tmp_path / "m", address)
    assert re.match(r"pair [01] killed every cluster worker that played it", message), message


@pytest.mark.slow
def test_pitch_cluster_local_prints_its_address_plays_and_stops_on_sigterm(
    tmp_path: Path,
) -> None:
    pytest.importorskip("distributed")
    cluster = subprocess.Popen(
        [sys.executable, "-m", "pitch_cli", "cluster", "local", "--workers", "1", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert cluster.stdout is not None
        first = cluster.stdout.readline()
        assert first.startswith("scheduler at tcp://"), first
        address = first.split()[2]
        quick = ["--games", "2", "--seed", "3", "--rule", "hand_cap=2"]
        shown = _pitch(
            "match", GREEDY, RANDOM, *quick, "--out", tmp_path / "m", "--cluster", address
        )
        assert "2 of 2 games (finished)" in shown
        cluster.send_signal(signal.SIGTERM)
        out, _ = cluster.communicate(timeout=60)
    finally:
        cluster.kill()
    assert cluster.returncode == 0
    assert "stopping the cluster" in out


@pytest.mark.slow
def test_a_mixed_partnership_match_on_a_cluster_plays_the_local_games(
    cluster_address: str, tmp_path: Path
) -> None:
    kinds = (("greedy", "alpha"), ("random", "beta"), ("greedy", "gamma"), ("random", "delta"))
    bots = [renamed_sample(kind, name, tmp_path / "bots").manifest.folder for kind, name in kinds]
    mixed = ["match", *bots, "--games", "2", "--seed", "4", "--rule", "hand_cap=3"]
    _pitch(*mixed, "--out", tmp_path / "local")
    _pitch(*mixed, "--out", tmp_path / "cluster", "--cluster", cluster_address)
    for team_match in ("alpha+beta-vs-gamma+delta", "alpha+delta-vs-beta+gamma"):
        local = _games(tmp_path / "local" / team_match)
        assert len(local) == 2 and _games(tmp_path / "cluster" / team_match) == local


@pytest.mark.slow
def test_on_a_cluster_no_bot_process_plays_both_games_of_a_deal(
    cluster_address: str, tmp_path: Path
) -> None:
    from pitch_testkit.fair_deals import memory_bot, predictions
    from pitch_testkit.sandbox import sandbox_or_skip

    sandbox_or_skip()
    bot, out = memory_bot(tmp_path / "bots"), tmp_path / "cluster"
    _pitch("match", bot, RANDOM, "--games", "4", "--seed", "20", "--rule", "hand_cap=3",
           "--sandbox", "on", "--out", out, "--cluster", cluster_address)  # fmt: skip
    found = predictions(out)
    assert found.made >= 4 and (found.from_memory, found.hits) == (0, 0), found
    logs = {path.name for path in (out / "logs").rglob("*.log")}
    assert {"A1-a-memory.log", "A1-b-memory.log"} <= logs
