"""Ratings from stored games against hand-computed values, whatever order games arrive in."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from sqlmodel import Session, select

from pitch_cli import ladder as ladder_cli
from pitch_ladder.errors import LadderError
from pitch_ladder.game_query import MAX_PAGE, GameQuery
from pitch_ladder.ladder import Ladder
from pitch_ladder.models import BotVersion, Match, RatingHistory
from pitch_ladder.ratings import INITIAL_RATING, bradley_terry, elo_from_games
from pitch_ladder.schedule import match_folder, match_seed, round_robin
from pitch_ladder.schedule_writer import schedule_rounds
from pitch_referee.stats import Z_95
from pitch_testkit.ladder import add_match as _match
from pitch_testkit.ladder import cli, cli_error
from pitch_testkit.ladder import ladder_with as _ladder_with
from pitch_testkit.ladder import store_game as _store

BETA = math.log(10) / 400


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
    assert [lines["beta"].rank, lines["alpha"].rank] == [1, 1]  # ranked by the fit: equals
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
    listed = ladder.games()  # newest first: the last game stored, then the one before
    assert [info.id for info in listed] == sorted((info.id for info in listed), reverse=True)
    assert [(info.round, info.a, info.game_id) for info in listed[:2]] == [
        (1, "a", "pair-00000-a"),
        (1, "a", "pair-00000-b"),
    ]
    with Session(ladder.engine) as session:
        assert len(session.exec(select(RatingHistory)).all()) == 2 * len(expected_games)
    ladder.close()


TWINS = {  # (A, B) -> A's scores in games a and b: zeta and alpha have the same results
    ("zeta", "carol"): (1.0, 1.0),
    ("zeta", "dave"): (1.0, 0.0),
    ("alpha", "carol"): (1.0, 1.0),
    ("alpha", "dave"): (1.0, 0.0),
    ("zeta", "alpha"): (1.0, 0.0),
    ("carol", "dave"): (0.0, 1.0),
}


def _twins_ladder(db_url: str, tmp_path: Path, zeta_first: bool) -> Ladder:
    """The twins' matches in an order where one twin's (Elo) luck comes first."""
    ladder, v = _ladder_with(db_url, tmp_path, ["zeta", "alpha", "carol", "dave"])
    order = list(TWINS) if zeta_first else [*list(TWINS)[2:4], *list(TWINS)[:2], *list(TWINS)[4:]]
    with Session(ladder.engine) as session:
        for a, b in order:
            match = _match(session, 1, v[a], v[b])
            for side, score in zip("ab", TWINS[a, b], strict=True):
                _store(session, match, f"pair-00000-{side}", score)
    return ladder


@pytest.mark.parametrize("zeta_first", [True, False], ids=["zeta-first", "alpha-first"])
def test_two_identical_bots_with_identical_results_rank_as_equals_whatever_the_game_order(
    db_url: str, tmp_path: Path, zeta_first: bool
) -> None:
    ladder = _twins_ladder(db_url, tmp_path, zeta_first)
    lines = ladder.standings()
    ladder.close()
    games = [(a, b, score) for (a, b), scores in TWINS.items() for score in scores]
    fit = bradley_terry(games)  # the order of the games does not enter
    assert [(line.rank, line.bot) for line in lines] == [
        (1, "alpha"),  # a tie is listed by name, whichever twin was submitted first
        (1, "zeta"),
        (3, "dave"),
        (4, "carol"),
    ]
    twins = {line.bot: line for line in lines if line.bot in ("alpha", "zeta")}
    for bot, line in twins.items():
        assert line.fit is not None
        assert line.fit.rating == pytest.approx(fit[bot].rating, abs=1e-9)
        assert (line.games, line.wins, line.losses) == (6, 4, 2)
    alpha, zeta = twins["alpha"].fit, twins["zeta"].fit
    assert alpha is not None and zeta is not None
    assert alpha.rating == pytest.approx(zeta.rating, abs=1e-9)
    # The sequential Elo, which the ranking no longer uses, tells the twins apart by order.
    assert twins["alpha"].elo != pytest.approx(twins["zeta"].elo, abs=0.01)


def test_standings_still_show_the_sequential_elo_beside_the_fit(
    db_url: str, tmp_path: Path
) -> None:
    ladder = _twins_ladder(db_url, tmp_path, zeta_first=True)
    lines = ladder.standings()
    ladder.close()
    table = cli("ladder", "standings", "--ladder", tmp_path / "ladder", "--db", db_url)
    header = re.search(r"#\s+bot\s+version\s+ML \(95%\)\s+Elo\s+games\s+W-L-D\s+score", table)
    assert header, table
    assert "Elo: sequential, from 1500, K=16" in " ".join(table.split())
    for line in lines:
        assert line.fit is not None
        shown = (
            rf"\n\s*{line.rank}\s+{line.bot}\s+1 \({line.bot[:8]:0<8}\)\s+"
            rf"{line.fit.rating:.1f} \[{line.fit.lower:.0f}, {line.fit.upper:.0f}\]\s+"
            rf"{line.elo:.1f}\s+{line.games}\s+{line.wins}-{line.losses}-{line.draws}\s"
        )
        assert re.search(shown, table), (shown, table)
    assert "not comparable" not in table  # one group: nothing to warn about


GROUPS = {  # two groups that never met; one-sided results still connect a pairing
    ("alpha", "beta"): (1.0, 1.0),
    ("beta", "gamma"): (1.0, 1.0),
    ("delta", "epsilon"): (1.0, 0.5),
}


def test_bots_whose_results_do_not_connect_are_ranked_apart_as_not_comparable(
    db_url: str, tmp_path: Path
) -> None:
    names = ["alpha", "beta", "gamma", "delta", "epsilon", "newbie"]
    ladder, v = _ladder_with(db_url, tmp_path, names)
    with Session(ladder.engine) as session:
        for (a, b), scores in GROUPS.items():
            match = _match(session, 1, v[a], v[b])
            for side, score in zip("ab", scores, strict=True):
                _store(session, match, f"pair-00000-{side}", score)
    lines = ladder.standings()
    assert [(line.group, line.rank, line.bot) for line in lines] == [
        (1, 1, "alpha"),
        (1, 2, "beta"),
        (1, 3, "gamma"),
        (2, 1, "delta"),
        (2, 2, "epsilon"),
        (None, None, "newbie"),  # no games yet: in no group, unranked
    ]
    # Each group is fitted on its own games alone, around the same mean.
    for group in (["alpha", "beta", "gamma"], ["delta", "epsilon"]):
        games = [(a, b, x) for (a, b), scores in GROUPS.items() if a in group for x in scores]
        fit = bradley_terry(games)
        ratings = {line.bot: line.fit.rating for line in lines if line.bot in group and line.fit}
        assert ratings == pytest.approx({bot: fit[bot].rating for bot in group}, abs=1e-6)
        assert sum(ratings.values()) / len(group) == pytest.approx(INITIAL_RATING, abs=1e-6)
        assert all(math.isfinite(rating) for rating in ratings.values())

    where = ["--ladder", tmp_path / "ladder", "--db", db_url]
    table = cli("ladder", "standings", *where)
    assert "These bots form 2 groups that never played each other" in table, table
    assert "ratings are not comparable between groups" in " ".join(table.split()), table
    assert re.search(r"group\s+#\s+bot\s+version\s+ML \(95%\)\s+Elo", table), table
    for group, rank, bot in [
        (1, 1, "alpha"),
        (1, 3, "gamma"),
        (2, 1, "delta"),
        ("-", "-", "newbie"),
    ]:
        assert re.search(rf"\n\s*{group}\s+{rank}\s+{bot}\s", table), (bot, table)

    # A retired bot's games still connect the bots it played: beta links alpha and gamma.
    ladder.retire("beta")
    lines = ladder.standings()
    ladder.close()
    assert [(line.group, line.rank, line.bot) for line in lines][:2] == [
        (1, 1, "alpha"),
        (1, 2, "gamma"),
    ]


def test_games_of_a_bot_show_its_result_from_its_side_when_it_was_the_second_bot(
    db_url: str, tmp_path: Path
) -> None:
    ladder, v = _ladder_with(db_url, tmp_path, ["alpha", "beta"])
    with Session(ladder.engine) as session:
        match = _match(session, 1, v["alpha"], v["beta"])  # beta is the match's bot B
        _store(session, match, "pair-00000-b", 0.0, points=(41, 55))
        _store(session, match, "pair-00000-a", 1.0, points=(55, 20))  # the newest: listed first
    numbers = [str(info.id) for info in ladder.games()]
    ladder.close()
    where = ["--ladder", tmp_path / "ladder", "--db", db_url]

    def rows(output: str) -> list[list[str]]:
        return [line.split() for line in output.splitlines() if "pair-0000" in line]

    mine = cli("ladder", "games", "--bot", "beta", *where)
    assert "beta's result" in mine and "points (beta's first)" in mine, mine
    assert rows(mine) == [
        [numbers[0], "1", "alpha", "pair-00000-a", "lost", "20", "to", "55", "target"],
        [numbers[1], "1", "alpha", "pair-00000-b", "won", "55", "to", "41", "target"],
    ]
    theirs = cli("ladder", "games", "--bot", "alpha", *where)
    assert [row[4:8] for row in rows(theirs)] == [
        ["won", "55", "to", "20"],
        ["lost", "41", "to", "55"],
    ]
    neutral = cli("ladder", "games", *where)  # no bot named: who beat whom, winner's points first
    assert rows(neutral) == [
        [numbers[0], "1", "pair-00000-a", "alpha", "beat", "beta", "55", "to", "20", "target"],
        [numbers[1], "1", "pair-00000-b", "beta", "beat", "alpha", "55", "to", "41", "target"],
    ]


def test_a_games_list_longer_than_a_ladder_query_gives_is_read_a_page_at_a_time(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``pitch ladder games --limit N`` lists N games whatever N: beyond ``MAX_PAGE`` (the
    most one query of the ladder gives) it reads the games page after page."""
    ladder, v = _ladder_with(db_url, tmp_path, ["alpha", "beta", "gamma"])
    with Session(ladder.engine) as session:
        first = _match(session, 1, v["alpha"], v["beta"])
        second = _match(session, 1, v["beta"], v["gamma"])
        for n in range(6):
            _store(session, first, f"pair-{n:05d}-a", 1.0)
            _store(session, second, f"pair-{n:05d}-a", 0.0)
    where = ["--ladder", tmp_path / "ladder", "--db", db_url]
    for limit in (MAX_PAGE, MAX_PAGE + 1, 10 * MAX_PAGE):  # the most a query gives, and more
        shown = cli("ladder", "games", "--limit", str(limit), *where)
        assert len([line for line in shown.splitlines() if "pair-0000" in line]) == 12, shown
        assert "older ones" not in shown

    monkeypatch.setattr(ladder_cli, "MAX_PAGE", 5)  # pages of 5 games: 12 games are three
    everything = [info.id for info in ladder.games(GameQuery(limit=100))]
    gammas = [info.id for info in ladder.games(GameQuery(bot="gamma", limit=100))]
    for bot, expected in ((None, everything), ("gamma", gammas)):
        for offset in range(4):
            for limit in range(1, 15):
                query = GameQuery(bot=bot, offset=offset)
                page, more = ladder_cli.newest_games(ladder, query, limit)
                assert [info.id for info in page] == expected[offset : offset + limit]
                assert more == (len(expected) > offset + limit), (bot, offset, limit)
    ladder.close()
    shown = cli("ladder", "games", "--limit", "11", *where)
    assert len([line for line in shown.splitlines() if "pair-0000" in line]) == 11, shown
    assert f"--limit 11 --before {everything[10]}" in " ".join(shown.split()), shown


def test_games_come_a_page_at_a_time_newest_first_with_the_next_page_named(
    db_url: str, tmp_path: Path
) -> None:
    ladder, v = _ladder_with(db_url, tmp_path, ["alpha", "beta", "gamma"])
    with Session(ladder.engine) as session:
        first = _match(session, 1, v["alpha"], v["beta"])
        second = _match(session, 1, v["beta"], v["gamma"])
        for n in range(5):  # the two matches' games alternate
            _store(session, first, f"pair-{n:05d}-a", 1.0)
            _store(session, second, f"pair-{n:05d}-a", 0.0)
        # beta's second version: its games are beta's too, merged with the first's
        version = BotVersion.model_validate(
            {
                "bot_id": session.get_one(BotVersion, v["beta"]).bot_id,
                "content_hash": "f" * 64,
                "folder": "bots/beta/y",
                "manifest_name": "beta",
                "manifest_version": "2",
                "command": ["python", "bot.py"],
            }
        )
        session.add(version)
        session.flush()
        assert version.id is not None
        third = _match(session, 2, v["alpha"], version.id)
        for n in range(3):
            _store(session, third, f"pair-{n:05d}-a", 0.5)
    everything = ladder.games(GameQuery(limit=100))
    numbers = [info.id for info in everything]
    assert len(numbers) == 13 and numbers == sorted(numbers, reverse=True)
    assert [info.id for info in ladder.games()] == numbers  # the default page holds them all
    assert [info.id for info in ladder.games(GameQuery(limit=4))] == numbers[:4]
    assert [info.id for info in ladder.games(GameQuery(limit=4, offset=4))] == numbers[4:8]
    assert [info.id for info in ladder.games(GameQuery(limit=4, before=numbers[3]))] == numbers[4:8]
    assert ladder.games(GameQuery(before=numbers[-1])) == []
    betas = [info.id for info in everything if "beta" in (info.a, info.b)]
    assert (
        len(betas) == 13
        and [info.id for info in ladder.games(GameQuery(bot="beta", limit=100))] == betas
    )
    for limit, offset in [(1, 0), (2, 1), (5, 3), (4, 11)]:
        page = ladder.games(GameQuery(bot="beta", limit=limit, offset=offset))
        assert [info.id for info in page] == betas[offset : offset + limit]
    gammas = [info.id for info in everything if "gamma" in (info.a, info.b)]
    assert [
        info.id for info in ladder.games(GameQuery(bot="gamma", limit=3, before=gammas[1]))
    ] == gammas[2:5]
    with pytest.raises(LadderError, match="--limit"):
        ladder.games(GameQuery(limit=0))
    ladder.close()

    where = ["--ladder", tmp_path / "ladder", "--db", db_url]
    shown = cli("ladder", "games", "--limit", "4", "--bot", "beta", *where)
    assert len([line for line in shown.splitlines() if "pair-0000" in line]) == 4
    assert f"--bot beta --limit 4 --before {betas[3]}" in " ".join(shown.split()), shown
    last = cli("ladder", "games", "--limit", "4", "--before", str(numbers[8]), *where)
    assert len([line for line in last.splitlines() if "pair-0000" in line]) == 4
    assert "older ones" not in last  # the last page says nothing more
    assert "no older games" in cli("ladder", "games", "--before", str(numbers[-1]), *where)
    drawn = cli("ladder", "games", "--bot", "beta", "--version", "2", "--result", "drawn", *where)
    assert len([line for line in drawn.splitlines() if "pair-0000" in line]) == 3
    lost = cli("ladder", "games", "--bot", "beta", "--result", "lost", "--limit", "1", *where)
    assert "--bot beta --result lost --limit 1 --before" in " ".join(lost.split()), lost
    of_match = cli("ladder", "games", "--match", str(third), "--no-faults", *where)
    assert len([line for line in of_match.splitlines() if "pair-0000" in line]) == 3
    assert "no games match" in cli("ladder", "games", "--faults", *where)
    refused = cli_error("ladder", "games", "--result", "won", *where)
    assert "a version or result filter needs a bot" in refused
