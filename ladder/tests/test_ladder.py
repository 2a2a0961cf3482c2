"""The whole ladder through the CLI, on SQLite and on PostgreSQL: init, submit, run, read."""

from __future__ import annotations

import pickle
import tomllib
from collections.abc import Callable
from concurrent.futures import Executor, Future
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlmodel import Session, func, select

from pitch_ladder.errors import LadderError
from pitch_ladder.ladder import Ladder
from pitch_ladder.models import Game, RatingHistory
from pitch_ladder.ratings import bradley_terry, elo_from_games
from pitch_ladder.rounds import RoundsWanted
from pitch_testkit.ladder import GREEDY, QUICK, RANDOM, cli


@pytest.mark.slow
def test_init_submit_run_standings_games_show_retire(db_url: str, tmp_path: Path) -> None:
    folder = tmp_path / "ladder"
    where = ["--ladder", folder, "--db", db_url]
    assert "ladder ready in" in cli("ladder", "init", *where)
    assert "submitted random 1.0" in cli("ladder", "submit", RANDOM, *where)
    assert "submitted greedy 1.0" in cli("ladder", "submit", GREEDY, *where)
    assert "submitted random-2 1.0" in cli("ladder", "submit", RANDOM, "--name", "random-2", *where)
    again = cli("ladder", "submit", GREEDY, *where)
    assert "identical content already submitted" in again and "nothing stored" in again
    copy = tomllib.loads(next((folder / "bots" / "random-2").glob("*/bot.toml")).read_text())
    assert copy["name"] == "random-2"  # records and logs say which bot played

    listing = cli("ladder", "bots", *where)
    assert all(name in listing for name in ("greedy", "random", "random-2"))

    run = cli("ladder", "run", *QUICK, "--workers", "2", *where)
    assert "3 matches, 6 new games stored" in run
    assert "round 1: greedy vs random" in run

    table = cli("ladder", "standings", *where)
    assert all(name in table for name in ("greedy", "random-2", "Elo", "ML (95%)", "W-L-D"))
    games = cli("ladder", "games", *where)
    assert games.count("pair-0000") == 6
    assert cli("ladder", "games", "--bot", "greedy", *where).count("pair-0000") == 4

    with Ladder.open(folder, db_url) as ladder:
        first = ladder.games()[0]
        shown = cli("ladder", "show", str(first.id), *where)
        assert "Hand 1" in shown and f"record: {first.record_path}" in shown
        assert first.record_path.is_file()
        _check_ratings(ladder)

    assert "retired random-2" in cli("ladder", "retire", "random-2", *where)
    assert "1 matches, 2 new games stored" in cli("ladder", "run", *QUICK, *where)
    assert "random-2" not in cli("ladder", "standings", *where)
    assert "random-2" in cli("ladder", "standings", "--all", *where)
    with Ladder.open(folder, db_url) as ladder:
        assert [info.round for info in ladder.games()] == [2] * 2 + [1] * 6  # newest first
        _check_ratings(ladder)


def _check_ratings(ladder: Ladder) -> None:
    """Standings agree with a replay of the stored games in the documented order."""
    listed = sorted(ladder.games(), key=lambda info: (info.round, info.match_id, info.game_id))
    games = [(info.a, info.b, info.a_score) for info in listed]
    elo, fit = elo_from_games(games), bradley_terry(games)
    for line in ladder.standings(include_retired=True):
        assert line.elo == elo[line.bot]
        assert line.fit is not None and line.fit.rating == pytest.approx(fit[line.bot].rating)
    with Session(ladder.engine) as session:
        assert session.exec(select(func.count()).select_from(RatingHistory)).one() == 2 * len(games)
        assert session.exec(select(func.count()).select_from(Game)).one() == len(games)


class _RemoteLike(Executor):
    """Runs each job in this process after a pickle round trip, as a remote executor would."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        fn, args, kwargs = pickle.loads(pickle.dumps((fn, args, kwargs)))
        future: Future[Any] = Future()
        future.set_result(pickle.loads(pickle.dumps(fn(*args, **kwargs))))
        return future


@pytest.mark.slow
def test_matches_run_on_any_executor_taking_plain_picklable_jobs(tmp_path: Path) -> None:
    with Ladder.init(tmp_path / "ladder") as ladder:
        ladder.submit(GREEDY)
        ladder.submit(RANDOM)
        report = ladder.run(games_per_match=2, rules={"hand_cap": 2}, executor=_RemoteLike())
        assert (report.matches, report.games) == (1, 2)
        assert [line.games for line in ladder.standings()] == [2, 2]


@given(rounds=st.integers(-3, 3), games=st.integers(-3, 3))
def test_a_run_wants_at_least_one_round_of_matches_of_at_least_one_game(rounds, games):
    if rounds >= 1 and games >= 1:
        assert RoundsWanted(rounds, games, {}, False).rounds == rounds
    else:
        flag = "--rounds" if rounds < 1 else "--games-per-match"
        with pytest.raises(LadderError, match=f"{flag} must be at least 1"):
            RoundsWanted(rounds, games, {}, False)
