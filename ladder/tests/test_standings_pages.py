"""The standings read a page at a time: in the order kept with the fit, never refitting,
saying which game the fit is of; and migration 0012, which adds that order."""

from __future__ import annotations

from dataclasses import astuple
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, func
from sqlmodel import Session, SQLModel, select
from typer.testing import CliRunner

from pitch_cli import app
from pitch_ladder.database import alembic_config, database_url, migrate
from pitch_ladder.ladder import Ladder
from pitch_ladder.models import FitState, Game
from pitch_ladder.rating_tables import current_fit
from pitch_ladder.standings import Standing, StandingsPage, standings_page
from pitch_testkit.ladder import add_match, cli, cli_refusal, ladder_with, store_game

RESULTS = {  # two groups that never met, a tie (alpha and zeta), one bot without games
    ("alpha", "beta"): (1.0, 1.0),
    ("zeta", "beta"): (1.0, 1.0),
    ("alpha", "zeta"): (0.5, 0.5),
    ("beta", "gamma"): (1.0, 1.0),
    ("delta", "epsilon"): (1.0, 0.5),
}
NAMES = ["zeta", "alpha", "beta", "gamma", "delta", "epsilon", "newbie"]


def _ladder(db_url: str, tmp_path: Path) -> tuple[Ladder, dict[str, int]]:
    ladder, versions = ladder_with(db_url, tmp_path, NAMES)
    with Session(ladder.engine) as session:
        for (a, b), scores in RESULTS.items():
            match = add_match(session, 1, versions[a], versions[b])
            for side, score in zip("ab", scores, strict=True):
                store_game(session, match, f"pair-00000-{side}", score)
    return ladder, versions


def _page(ladder: Ladder, offset: int, limit: int) -> StandingsPage:
    with Session(ladder.engine) as session:
        return standings_page(session, offset, limit)


def _in_pages(ladder: Ladder, size: int) -> list[Standing]:
    lines: list[Standing] = []
    while not lines or len(lines) < _page(ladder, 0, 1).total:
        lines += _page(ladder, len(lines), size).lines
    return lines


@pytest.mark.parametrize("size", [1, 2, 3, 100])
def test_the_pages_read_in_turn_are_the_standings_lines_ranks_and_groups(
    db_url: str, tmp_path: Path, size: int
) -> None:
    ladder, _ = _ladder(db_url, tmp_path)
    whole = ladder.standings()
    assert [(line.group, line.rank, line.bot) for line in whole][:3] == [
        (1, 1, "alpha"),  # the tie, by name
        (1, 1, "zeta"),
        (1, 3, "beta"),
    ]
    assert _in_pages(ladder, size) == whole
    page = _page(ladder, 2, size)
    assert (page.total, page.offset, page.stale) == (len(NAMES), 2, False)
    assert _page(ladder, 50, size).lines == []
    ladder.close()


def test_a_page_after_new_games_is_of_the_kept_fit_says_so_and_counts_the_new_games(
    db_url: str, tmp_path: Path
) -> None:
    ladder, versions = _ladder(db_url, tmp_path)
    ladder.standings()  # keeps the fit
    fitted = _page(ladder, 0, 10)
    with Session(ladder.engine) as session:
        match = add_match(session, 2, versions["newbie"], versions["alpha"])
        store_game(session, match, "pair-00000-a", 1.0)
        newest = session.exec(select(func.max(Game.id))).one()
    page = _page(ladder, 0, 10)
    assert page.stale and (page.fit_through_game, page.newest_game) == (
        fitted.fit_through_game,
        newest,
    )
    assert [line.fit for line in page.lines] == [line.fit for line in fitted.lines]
    newbie = next(line for line in page.lines if line.bot == "newbie")
    assert (newbie.rank, newbie.fit, newbie.games, newbie.wins) == (None, None, 1, 1)
    assert page.lines[-1] == newbie, "unplaced until the next fit"
    with Session(ladder.engine) as session:
        current_fit(session)
    page = _page(ladder, 0, 10)
    assert not page.stale and page.fit_through_game == newest
    assert page.lines == ladder.standings()
    ladder.close()


def test_a_bot_retired_after_the_fit_leaves_its_line_out_until_the_next_fit(
    db_url: str, tmp_path: Path
) -> None:
    ladder, _ = _ladder(db_url, tmp_path)
    ladder.standings()
    ladder.retire("alpha")
    lines = _page(ladder, 0, 3).lines
    assert [(line.rank, line.bot) for line in lines] == [(1, "zeta"), (3, "beta")]
    with Session(ladder.engine) as session:
        session.delete(session.get_one(FitState, 1))  # as if games had come: fit again
        session.commit()
    assert _in_pages(ladder, 2) == ladder.standings()
    ladder.close()


def test_pitch_ladder_standings_page_shows_one_page_and_where_it_is(
    db_url: str, tmp_path: Path
) -> None:
    ladder, _ = _ladder(db_url, tmp_path)
    ladder.close()
    where = ["--ladder", tmp_path / "ladder", "--db", db_url]
    table = cli("ladder", "standings", "--page", "2", "--page-size", "2", *where)
    assert "beta" in table and "gamma" in table and "alpha" not in table, table
    assert "page 2 of 4: lines 3-4 of 7, ratings as of game 10" in table, table
    for args, refusal in [
        (["--page", "5", "--page-size", "2"], "the standings have 4 page(s) of 2 lines"),
        (["--page", "1", "--all"], "pages list the active bots only: drop --all"),
    ]:
        result = CliRunner().invoke(app, ["ladder", "standings", *args, *map(str, where)])
        assert result.exit_code == 2 and refusal in " ".join(result.output.split()), result.output


def test_pitch_ladder_standings_page_of_a_ladder_without_bots_says_to_submit_some(
    tmp_path: Path,
) -> None:
    ladder_with("", tmp_path, [])[0].close()
    refusal = cli_refusal("ladder", "standings", "--page", "1", "--ladder", tmp_path / "ladder")
    assert "no active bots in the ladder" in refusal and "pitch ladder submit" in refusal


def test_migration_0012_forgets_the_kept_fit_so_the_next_read_places_every_line(
    db_url: str, tmp_path: Path
) -> None:
    ladder, _ = _ladder(db_url, tmp_path)
    whole = ladder.standings()
    ladder.close()
    engine = create_engine(database_url(Path("."), db_url))
    config = alembic_config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0011")
    migrate(engine)  # as the next command does
    with engine.connect() as connection:
        assert compare_metadata(MigrationContext.configure(connection), SQLModel.metadata) == []
    with Session(engine) as session:
        assert session.get(FitState, 1) is None
    engine.dispose()
    reopened = Ladder.open(tmp_path / "ladder", db_url)
    paged = _in_pages(reopened, 2)  # fitted again, from no kept fit: equal but for rounding
    assert [(line.group, line.rank, line.bot) for line in paged] == [
        (line.group, line.rank, line.bot) for line in whole
    ]
    fits = [[astuple(line.fit) for line in lines if line.fit] for lines in (paged, whole)]
    assert sum(fits[0], ()) == pytest.approx(sum(fits[1], ()), abs=1e-9)
    reopened.close()
