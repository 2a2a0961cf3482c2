"""Ratings from stored games against hand-computed values, whatever order games arrive in."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from sqlmodel import Session, select

from pitch_ladder.ladder import Ladder
from pitch_ladder.models import Bot, BotVersion, Game, Match, RatingHistory, now
from pitch_ladder.ratings import bradley_terry, elo_from_games
from pitch_ladder.runner import schedule_rounds
from pitch_ladder.schedule import match_folder, match_seed, round_robin
from pitch_ladder.standings import rerate
from pitch_referee.stats import Z_95

BETA = math.log(10) / 400


def _ladder_with(db_url: str, tmp_path: Path, bots: list[str]) -> tuple[Ladder, dict[str, int]]:
    """A ladder whose bots each have one version (no files: only the ratings are read)."""
    ladder = Ladder.init(tmp_path / "ladder", db_url)
    versions = {}
    with Session(ladder.engine) as session:
        for name in bots:
            bot = Bot.model_validate({"name": name})
            session.add(bot)
            session.flush()
            version = BotVersion.model_validate(
                {
                    "bot_id": bot.id,
                    "content_hash": f"{name:0<64}",
                    "folder": f"bots/{name}/x",
                    "manifest_name": name,
                    "manifest_version": "1",
                    "command": ["python", "bot.py"],
                }
            )
            session.add(version)
            session.flush()
            versions[name] = version.id
        session.commit()
    return ladder, versions


def _match(session: Session, round_number: int, a: int, b: int) -> int:
    match = Match.model_validate(
        {
            "round": round_number,
            "a_version_id": a,
            "b_version_id": b,
            "seed": 1,
            "games_planned": 2,
            "settings": {},
            "folder": f"matches/{round_number}",
        }
    )
    session.add(match)
    session.flush()
    assert match.id is not None
    return match.id


def _store(session: Session, match_id: int, game_id: str, a_score: float) -> None:
    game = Game.model_validate(
        {
            "match_id": match_id,
            "game_id": game_id,
            "a_team": 0,
            "a_score": a_score,
            "b_score": 1 - a_score,
            "a_points": 0,
            "b_points": 0,
            "faults": 0,
            "termination": "target",
            "record_path": "x.json",
            "record": {},
            "finished_at": now(),
        }
    )
    session.add(game)
    session.flush()
    rerate(session, {game.id})
    session.commit()


def test_schedule_is_a_pure_function_of_the_secret_round_and_names() -> None:
    assert round_robin(["b", "c", "a"]) == [("a", "b"), ("a", "c"), ("b", "c")]
    seed = match_seed("k", 3, "a", "b")
    assert seed == match_seed("k", 3, "a", "b")
    assert seed not in (match_seed("k", 4, "a", "b"), match_seed("j", 3, "a", "b"))
    assert 0 <= seed < 2**63  # fits a signed 64-bit SQL integer
    assert match_folder(12, "a", "b") == "matches/0012-a-vs-b"


def _scheduled_seeds(ladder: Ladder) -> dict[str, int]:
    """Schedule one round; the seed of each match, by folder."""
    schedule_rounds(ladder.engine, 1, 2, {})
    with Session(ladder.engine) as session:
        return {match.folder: match.seed for match in session.exec(select(Match))}


def test_each_ladder_deals_from_its_own_secret_the_same_seeds_on_rescheduling(
    db_url: str, tmp_path: Path
) -> None:
    names = ["alpha", "beta", "gamma"]
    ladder, _ = _ladder_with(db_url, tmp_path / "one", names)
    other, _ = _ladder_with(f"sqlite:///{tmp_path / 'other.db'}", tmp_path / "other", names)
    seeds, others = _scheduled_seeds(ladder), _scheduled_seeds(other)
    assert len(seeds) == 3 and seeds.keys() == others.keys()
    assert all(seeds[folder] != others[folder] for folder in seeds)  # public names, secret seeds
    assert max(seeds.values()) >= 2**31  # stored whole, beyond a 32-bit column
    with Session(ladder.engine) as session:
        for match in session.exec(select(Match)):
            session.delete(match)
        session.commit()
    ladder.close()
    reopened = Ladder.open(tmp_path / "one" / "ladder", db_url)
    assert _scheduled_seeds(reopened) == seeds
    reopened.close()
    other.close()


def test_elo_and_fit_of_a_win_each_way_match_the_hand_computation(
    db_url: str, tmp_path: Path
) -> None:
    ladder, v = _ladder_with(db_url, tmp_path, ["alpha", "beta"])
    with Session(ladder.engine) as session:
        match = _match(session, 1, v["alpha"], v["beta"])
        _store(session, match, "pair-00000-a", 1.0)
        _store(session, match, "pair-00000-b", 0.0)
    lines = {line.bot: line for line in ladder.standings()}
    # Game 1, equals: alpha +16 * 0.5 = 1508, beta 1492.
    # Game 2: beta expects 1 / (1 + 10 ** (16 / 400)) = 1 / 2.0964782 = 0.4769904 and wins:
    # beta 1492 + 16 * 0.5230096 = 1500.368153, alpha 1508 - 8.368153 = 1499.631847.
    assert lines["beta"].elo == pytest.approx(1500.368153, abs=1e-6)
    assert lines["alpha"].elo == pytest.approx(1499.631847, abs=1e-6)
    assert [lines["beta"].rank, lines["alpha"].rank] == [1, 2]
    # Fit: 1-1 is symmetric, so both are at 1500. Each has 2 games plus one virtual draw,
    # all at p = 0.5: information 2.5 * BETA^2 for one free rating under the mean pin.
    half_width = Z_95 / (BETA * math.sqrt(2.5))
    for line in lines.values():
        assert line.fit is not None
        assert line.fit.rating == pytest.approx(1500.0, abs=1e-6)
        assert line.fit.upper - line.fit.rating == pytest.approx(half_width, rel=1e-6)
        assert (line.games, line.wins, line.losses, line.draws, line.score) == (2, 1, 1, 0, 0.5)
    ladder.close()


def test_games_stored_out_of_order_give_the_ratings_of_the_fixed_order(
    db_url: str, tmp_path: Path
) -> None:
    ladder, v = _ladder_with(db_url, tmp_path, ["a", "b", "c"])
    results = {  # (round, pair) -> A's scores of game a and b
        (1, ("a", "b")): (1.0, 0.5),
        (1, ("a", "c")): (0.0, 0.0),
        (1, ("b", "c")): (1.0, 1.0),
        (2, ("a", "b")): (0.5, 0.0),
    }
    with Session(ladder.engine) as session:
        ids = {key: _match(session, key[0], v[key[1][0]], v[key[1][1]]) for key in results}
        arrivals = [  # later matches first, and one pair's games reversed
            (key, side, results[key]["ab".index(side)])
            for key in reversed(results)
            for side in "ba"
        ]
        for key, side, score in arrivals:
            _store(session, ids[key], f"pair-00000-{side}", score)
    expected_games = [(a, b, score) for (_, (a, b)), scores in results.items() for score in scores]
    expected = elo_from_games(expected_games)
    fit = bradley_terry(expected_games)
    lines = ladder.standings()
    assert {line.bot: line.elo for line in lines} == pytest.approx(expected, abs=1e-9)
    assert {line.bot: line.fit.rating for line in lines if line.fit} == pytest.approx(
        {bot: rating.rating for bot, rating in fit.items()}, abs=1e-6
    )
    assert [info.game_id for info in ladder.games()][:2] == ["pair-00000-a", "pair-00000-b"]
    with Session(ladder.engine) as session:
        assert len(session.exec(select(RatingHistory)).all()) == 2 * len(expected_games)
    ladder.close()
