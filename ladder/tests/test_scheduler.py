"""The service's scheduler: steps of chosen matches, a pause switch, the run lock, and
kill -9 in the middle of a step losing and repeating nothing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from sqlmodel import Session, col, func, select

from pitch_ladder.errors import LadderError
from pitch_ladder.ladder import Ladder
from pitch_ladder.models import Game, Match
from pitch_ladder.pairing import PairingSettings
from pitch_ladder.scheduler import Scheduler, SchedulerSettings, set_paused, status
from pitch_testkit.fair_deals import memory_bot, predictions
from pitch_testkit.ladder import (
    GREEDY,
    POSTGRES,
    RANDOM,
    cli,
    comparable_ladder,
    fresh_database,
    ladder_outcome,
    postgres_failing,
)

QUICK = SchedulerSettings(
    pairing=PairingSettings(matches=1, placement=2),
    games_per_match=2,
    rules={"hand_cap": 2},
    idle_s=0.05,
)


def _ladder(tmp_path: Path, *bots: Path) -> Path:
    folder = tmp_path / "ladder"
    comparable_ladder(folder, bots=bots)
    return folder


def _games(ladder: Ladder) -> list[tuple[int, str]]:
    with Session(ladder.engine) as session:
        return list(session.exec(select(Game.match_id, Game.game_id).order_by(col(Game.id))))


@pytest.mark.slow
def test_each_step_writes_one_round_of_chosen_matches_and_stores_their_games(tmp_path):
    folder = _ladder(tmp_path, GREEDY, RANDOM)
    with Ladder.open(folder) as ladder, Scheduler(ladder, QUICK, workers=1) as scheduler:
        first = scheduler.step()
        second = scheduler.step()
        assert first is not None and second is not None
        assert (first.round, second.round) == (1, 2)
        assert first.pairs == second.pairs == (("greedy", "random"),)
        assert first.games == second.games == 2
        assert len(set(_games(ladder))) == 4
        assert [line.games for line in ladder.standings()] == [4, 4]


@pytest.mark.slow
def test_a_step_with_quartets_plays_a_group_of_four_in_its_three_partnerships(tmp_path):
    folder = tmp_path / "ladder"
    cli("ladder", "init", "--ladder", folder)
    for bot, name in ((GREEDY, "greedy"), (RANDOM, "random"), (GREEDY, "ace"), (RANDOM, "dud")):
        cli("ladder", "submit", bot, "--name", name, "--ladder", folder)
    settings = SchedulerSettings(
        pairing=PairingSettings(matches=1, placement=0, quartets=1),
        games_per_match=2,
        rules={"hand_cap": 2},
    )
    with Ladder.open(folder) as ladder, Scheduler(ladder, settings, workers=2) as scheduler:
        step = scheduler.step()
        assert step is not None and len(step.pairs) == 1
        assert step.teams == (
            ("ace", "dud", "greedy", "random"),
            ("ace", "greedy", "dud", "random"),
            ("ace", "random", "dud", "greedy"),
        )
        assert step.games == 8
        with Session(ladder.engine) as session:
            team_games = session.exec(
                select(func.count()).where(col(Game.a_partner_version_id).is_not(None))
            ).one()
        assert team_games == 6
        assert all(line.team is not None for line in ladder.standings())
        # the next step's group is the same four (there are no others), so the partnerships
        # stay even: each pair has partnered in one match of two games
        assert scheduler.next_matches()[1] == [("ace", "dud", "greedy", "random")]


@pytest.mark.slow
def test_a_paused_scheduler_plays_nothing_until_resumed(tmp_path):
    folder = _ladder(tmp_path, GREEDY, RANDOM)
    with Ladder.open(folder) as ladder:
        paused = set_paused(ladder, True, "operator")
        assert paused.paused and paused.changed_by == "operator"
        with Scheduler(ladder, QUICK, workers=1) as scheduler:
            assert scheduler.step() is None
            assert _games(ladder) == []
            assert not set_paused(ladder, False, "operator").paused
            step = scheduler.step()
            assert step is not None and step.games == 2


def test_with_one_active_bot_a_step_has_nothing_to_play(tmp_path):
    folder = _ladder(tmp_path, GREEDY)
    with Ladder.open(folder) as ladder:
        with Scheduler(ladder, QUICK, workers=1) as scheduler:
            assert scheduler.step() is None
        assert status(ladder).pending_matches == 0


def test_a_running_scheduler_holds_the_ladder_against_a_second_run(tmp_path):
    folder = _ladder(tmp_path, GREEDY)
    stop = threading.Event()
    with Ladder.open(folder) as ladder:
        scheduler = Scheduler(ladder, QUICK, workers=1)
        thread = threading.Thread(target=scheduler.run, args=(stop,))
        thread.start()
        try:
            deadline = time.monotonic() + 10
            while not (folder / "run.lock").exists() or not (folder / "run.lock").read_text():
                assert time.monotonic() < deadline
                time.sleep(0.01)
            with pytest.raises(LadderError, match="another"):
                ladder.run(games_per_match=2)
        finally:
            stop.set()
            thread.join(timeout=10)
        assert not thread.is_alive()


_SCHEDULER = textwrap.dedent(
    """
    import sys, threading
    from pathlib import Path
    from pitch_ladder.ladder import Ladder
    from pitch_ladder.pairing import PairingSettings
    from pitch_ladder.scheduler import Scheduler, SchedulerSettings

    settings = SchedulerSettings(
        pairing=PairingSettings(matches=1, placement=0), games_per_match=int(sys.argv[2]),
        rules={"hand_cap": 4}, idle_s=0.05,
    )
    with Ladder.open(Path(sys.argv[1])) as ladder:
        with Scheduler(ladder, settings, workers=1) as scheduler:
            if sys.argv[3] == "once":
                scheduler.step()
            else:
                scheduler.run(threading.Event())
    """
)


def _records(folder: Path) -> int:
    return len(list(folder.glob("matches/*/games/*.json")))


@pytest.mark.slow
@pytest.mark.skipif(not POSTGRES, reason="PITCH_TEST_POSTGRES_URL is not set")
def test_a_step_whose_database_fails_stops_its_matches_in_the_kept_pool(tmp_path: Path) -> None:
    """The step fails, and its matches stop with it: left to play on in the pool the
    scheduler keeps, they would write into folders that the next step resumes too. (The
    step's thread lives on, as the service's scheduler thread does: the pool's workers
    die with the thread that started them.)"""
    settings = SchedulerSettings(
        pairing=PairingSettings(matches=1, placement=0), games_per_match=60, idle_s=0.05
    )
    with fresh_database("postgresql", tmp_path) as url:
        folder = tmp_path / "ladder"
        comparable_ladder(folder, url)
        failed: list[BaseException] = []
        stepped, done = threading.Event(), threading.Event()
        with (
            Ladder.open(folder, f"{url}&application_name=pitch-step") as ladder,
            Scheduler(ladder, settings, workers=2) as scheduler,
        ):

            def step() -> None:
                try:
                    scheduler.step()
                except BaseException as error:
                    failed.append(error)
                stepped.set()
                done.wait()

            stepping = threading.Thread(target=step)
            stepping.start()
            try:
                deadline = time.monotonic() + 120
                while len(_games(ladder)) < 2:
                    assert not stepped.is_set() and time.monotonic() < deadline, "none stored"
                    time.sleep(0.05)
                with postgres_failing(url, "pitch-step"):
                    assert stepped.wait(timeout=30), "the step went on after its database failed"
                assert len(failed) == 1 and isinstance(failed[0], LadderError), failed
                on_disk = _records(folder)
                assert on_disk < 60, "the step played its match to its end"
                time.sleep(2.0)
                assert _records(folder) == on_disk, "its match played on in the kept pool"
            finally:
                done.set()
                stepping.join()


@pytest.mark.slow
def test_a_scheduler_killed_mid_step_finishes_its_round_as_an_uninterrupted_one_does(tmp_path):
    folder = _ladder(tmp_path, GREEDY, RANDOM)
    games = 24  # one round, long enough that the kill lands inside it
    process = subprocess.Popen([sys.executable, "-c", _SCHEDULER, str(folder), str(games), "run"])
    try:
        deadline = time.monotonic() + 120
        while True:  # until some games of the first round are stored, not all
            with Ladder.open(folder) as ladder:
                stored = len(_games(ladder))
            if stored >= 2:
                break
            assert time.monotonic() < deadline and process.poll() is None
            time.sleep(0.05)
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
    with Ladder.open(folder) as ladder:
        before = _games(ladder)
    assert 2 <= len(before) < games, "the kill came after the round: nothing to resume"
    done = subprocess.run(
        [sys.executable, "-c", _SCHEDULER, str(folder), str(games), "once"], timeout=300
    )
    assert done.returncode == 0
    with Ladder.open(folder) as ladder, Session(ladder.engine) as session:
        after = _games(ladder)
        assert after[: len(before)] == before
        assert len(after) == len(set(after))
        first_round = session.exec(
            select(func.count()).select_from(Game).join(Match).where(Match.round == 1)
        ).one()
        assert first_round == games
    uninterrupted = tmp_path / "uninterrupted"
    comparable_ladder(uninterrupted)
    done = subprocess.run(
        [sys.executable, "-c", _SCHEDULER, str(uninterrupted), str(games), "once"], timeout=300
    )
    assert done.returncode == 0
    assert ladder_outcome(folder) == ladder_outcome(uninterrupted), (
        "the same games and the same ratings"
    )


@pytest.mark.slow
def test_a_step_plays_on_its_timing_grid_and_no_process_sees_both_games_of_a_deal(tmp_path):
    folder = _ladder(tmp_path, memory_bot(tmp_path / "bots"), RANDOM)
    settings = SchedulerSettings(
        pairing=PairingSettings(matches=1, placement=1),
        games_per_match=4,
        rules={"hand_cap": 3},
        timing_grid_ms=5,
    )
    with Ladder.open(folder) as ladder, Scheduler(ladder, settings, workers=1) as scheduler:
        assert scheduler.step() is not None
        with Session(ladder.engine) as session:
            (match,) = session.exec(select(Match)).all()
    assert match.settings["timing_grid_ms"] == 5
    found = predictions(folder / "matches")
    assert found.made >= 4 and (found.from_memory, found.hits) == (0, 0), found
