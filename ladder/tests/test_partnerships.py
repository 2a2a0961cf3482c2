"""The mixed-partnership format on the ladder: quartets that cover every pair, team
matches played by real bots and checked like any match, Elo kept to same-bot games, and
the team model's ratings beside it, true to simulated bots of known strength."""

from __future__ import annotations

import math
import random
from itertools import combinations
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlmodel import Session, col, func, select

from pitch_ladder.ladder import Ladder
from pitch_ladder.models import Game, GameRecord, Match, RatingHistory
from pitch_ladder.partnerships import forget_team_ratings
from pitch_ladder.schedule import partnership_round, quartets
from pitch_ladder.verify import refusal
from pitch_referee.match import MatchSettings, schedule
from pitch_referee.team_ratings import rate_games
from pitch_sdk.gamerecord import GameRecord as SdkGameRecord
from pitch_testkit.ladder import (
    GREEDY,
    QUICK,
    RANDOM,
    add_match,
    add_team_match,
    cli,
    cli_refusal,
    ladder_with,
    store_game,
)


@given(st.integers(min_value=4, max_value=16))
def test_quartets_put_every_two_bots_together_at_least_once(count: int) -> None:
    names = [f"bot{n:02d}" for n in range(count)]
    groups = quartets(names)
    together = {pair for group in groups for pair in combinations(group, 2)}
    assert together == set(combinations(names, 2))
    assert all(len(set(group)) == 4 and list(group) == sorted(group) for group in groups)
    assert quartets(list(reversed(names))) == groups  # a function of the names alone


def test_fewer_than_four_bots_make_no_quartet() -> None:
    assert quartets(["a", "b", "c"]) == []


def test_a_quartet_plays_in_its_three_partnerships_so_each_bot_partners_each_other() -> None:
    lineups = partnership_round(["d", "c", "b", "a"])
    assert lineups == [("a", "b", "c", "d"), ("a", "c", "b", "d"), ("a", "d", "b", "c")]


@pytest.mark.slow
def test_a_run_with_partnerships_plays_team_matches_and_rates_them_apart(
    db_url: str, tmp_path: Path
) -> None:
    folder = tmp_path / "ladder"
    where = ["--ladder", folder, "--db", db_url]
    cli("ladder", "init", *where)
    for bot, name in ((GREEDY, "greedy"), (RANDOM, "random"), (GREEDY, "ace"), (RANDOM, "dud")):
        cli("ladder", "submit", bot, "--name", name, *where)
    run = cli("ladder", "run", *QUICK, "--partnerships", "--workers", "2", *where)
    assert "9 matches, 18 new games stored" in run  # 6 pairs and 3 team matches
    assert "ace+dud vs greedy+random" in run

    table = cli("ladder", "standings", *where)
    assert "team (95%)" in table and table.count(" 6g") == 4  # each bot in 6 team games
    games = cli("ladder", "games", *where)
    assert "+" in games  # team games are listed by their teams
    aces = cli("ladder", "games", "--bot", "ace", *where)
    assert aces.count("pair-0000") == 12  # 6 same-bot, 6 in team matches (3 as a partner)

    with Ladder.open(folder, db_url) as ladder, Session(ladder.engine) as session:
        team_games = session.exec(
            select(Game).where(col(Game.a_partner_version_id).is_not(None))
        ).all()
        assert len(team_games) == 6
        history = session.exec(select(func.count()).select_from(RatingHistory)).one()
        assert history == 2 * 12  # Elo rates the 12 same-bot games only
        standings = {line.bot: line for line in ladder.standings()}
        assert all(line.games == 6 for line in standings.values())  # 3 pairs x 2 games
        expected = rate_games(
            ((g.a_version_id, g.a_partner_version_id), (g.b_version_id, g.b_partner_version_id),
             g.a_score)
            for g in sorted(team_games, key=lambda g: (g.round, g.match_id, g.game_id))
        )  # fmt: skip
        by_version = {line.bot: _version_of(session, line.bot) for line in standings.values()}
        for bot, line in standings.items():
            assert line.team == expected[by_version[bot]]

        stored = team_games[0]
        match = session.get_one(Match, stored.match_id)
        stored_record = session.exec(
            select(GameRecord.record).where(GameRecord.game_id == stored.id)
        ).one()
        spec = next(s for s in schedule(MatchSettings.from_json(match.settings)) if
                    s.game_id == stored.game_id)  # fmt: skip
        record = SdkGameRecord.from_json(stored_record)
        names = [player.name for player in record.players]
        team_a = (names[spec.a_team], names[spec.a_team + 2])
        team_b = (names[1 - spec.a_team], names[3 - spec.a_team])
        assert (
            refusal(record, spec, MatchSettings.from_json(match.settings), (*team_a, *team_b))
            is None
        )
        swapped = (team_a[0], team_b[1], team_b[0], team_a[1])  # the partners exchanged
        reason = refusal(record, spec, MatchSettings.from_json(match.settings), swapped)
        assert reason is not None and "players" in reason


def _version_of(session: Session, bot: str) -> int:
    from pitch_ladder.models import Bot, BotVersion

    return session.exec(
        select(BotVersion.id)
        .join(Bot, col(Bot.id) == col(BotVersion.bot_id))
        .where(Bot.name == bot)
    ).one()


def test_partnerships_need_four_active_bots(tmp_path: Path) -> None:
    folder = tmp_path / "ladder"
    cli("ladder", "init", "--ladder", folder)
    for name in ("one", "two", "three"):
        cli("ladder", "submit", RANDOM, "--name", name, "--ladder", folder)
    message = cli_refusal("ladder", "run", *QUICK, "--partnerships", "--ladder", folder)
    assert "needs four active bots, the ladder has 3" in message


TRUE_SKILL = {"s1": 1000.0, "s2": 1150.0, "s3": 1450.0, "s4": 1500.0, "s5": 1800.0}
"""Simulated bots' strengths in Elo points: some close, some far apart."""


def test_the_standings_team_ratings_find_simulated_bots_order_and_gaps(
    db_url: str, tmp_path: Path
) -> None:
    """Team games between bots of known strength, stored as the ladder stores games: the
    standings' team ratings put them in their true order where the truth is clear, and
    every gap between two bots is the true gap within the shown intervals."""
    ladder, versions = ladder_with(db_url, tmp_path, list(TRUE_SKILL))
    rng = random.Random(7)
    with Session(ladder.engine) as session:
        for round_number in range(1, 9):
            for lineup in partnership_round(list(TRUE_SKILL)):
                a, a_partner, b, b_partner = lineup
                gap = (
                    TRUE_SKILL[a] + TRUE_SKILL[a_partner] - TRUE_SKILL[b] - TRUE_SKILL[b_partner]
                ) / 2
                expected = 1 / (1 + 10 ** (-gap / 400))
                scores = [1.0 if rng.random() < expected else 0.0 for _ in range(20)]
                add_team_match(session, round_number, lineup, versions, scores)
        session.commit()
    with ladder:
        lines = {line.bot: line for line in ladder.standings()}
    for low, high in combinations(sorted(TRUE_SKILL, key=TRUE_SKILL.get), 2):
        a, b = lines[low].team, lines[high].team
        assert a is not None and b is not None
        spread = math.hypot(a.sigma, b.sigma)
        true_gap = TRUE_SKILL[high] - TRUE_SKILL[low]
        assert abs((b.mu - a.mu) - true_gap) < 2 * spread, (low, high)
        if true_gap > 2 * spread:
            assert b.mu > a.mu, (low, high)
    assert all(line.games == 0 and line.team for line in lines.values())  # no same-bot games


def test_team_ratings_kept_between_reads_equal_ratings_computed_afresh(
    db_url: str, tmp_path: Path
) -> None:
    """Games stored a round at a time are rated on from the kept ratings, and a round
    stored late (before the last rated game) makes a full rating again: either way the
    standings show what rating every team game at once in the Elo order gives."""
    ladder, versions = ladder_with(db_url, tmp_path, list(TRUE_SKILL))
    rng = random.Random(3)
    with ladder:
        for round_number in (1, 2, 4, 3):  # round 3 comes late
            with Session(ladder.engine) as session:
                for lineup in partnership_round(list(TRUE_SKILL))[:4]:
                    scores = [float(rng.random() < 0.5) for _ in range(4)]
                    add_team_match(session, round_number, lineup, versions, scores)
                session.commit()
            kept = {line.bot: line.team for line in ladder.standings()}
            with Session(ladder.engine) as session:
                forget_team_ratings(session)
                session.commit()
            afresh = {line.bot: line.team for line in ladder.standings()}
            assert kept == afresh, round_number


def test_a_bots_page_counts_team_matches_by_partner_and_same_bot_games_by_opponent(
    db_url: str, tmp_path: Path
) -> None:
    ladder, versions = ladder_with(db_url, tmp_path, ["ace", "bee", "cat", "dog"])
    with Session(ladder.engine) as session:
        add_team_match(session, 1, ("ace", "bee", "cat", "dog"), versions, [1.0, 1.0, 0.5])
        add_team_match(session, 1, ("cat", "ace", "bee", "dog"), versions, [0.0, 1.0])
        add_team_match(session, 1, ("dog", "cat", "ace", "bee"), versions, [1.0])
        store_game(session, add_match(session, 2, versions["ace"], versions["cat"]), "p", 1.0)
        session.commit()
    page = ladder.bot_page("ace")
    assert [(line.opponent, line.games, line.wins) for line in page.opponents] == [("cat", 1, 1)]
    partners = {
        line.partner: (line.games, line.wins, line.losses, line.draws) for line in page.partners
    }
    # beside bee: 3 games as team A (2 won, 1 drawn) and 1 as team B (lost: A won it)
    assert partners == {"bee": (4, 2, 1, 1), "cat": (2, 1, 1, 0)}
    ladder.close()
