"""The rating tables kept as games are stored: the same as a replay of every game, a fit
computed once per change, and a cost that follows the new games, not the history."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from sqlalchemy import create_engine, text
from sqlmodel import Session, select

from pitch_ladder import models, rating_tables, standings
from pitch_ladder.database import alembic_config, database_url, migrate
from pitch_ladder.ladder import Ladder
from pitch_ladder.models import (
    Game,
    GameRecord,
    Match,
    PairTotal,
    RatingHistory,
    VersionRating,
)
from pitch_ladder.ratings import bradley_terry_by_group, elo_from_games
from pitch_testkit.ladder import add_match, cli, game_row, ladder_with, store_games

NAMES = ["ann", "bob", "cy", "dee", "eve"]


def _results(seed: int) -> list[tuple[int, tuple[str, str], str, float]]:
    """Two round robins of four-game matches: (round, pair, game id, A's score)."""
    rng = random.Random(seed)
    return [
        (round_number, (a, b), f"pair-{n // 2:05d}-{'ab'[n % 2]}", rng.choice([0.0, 0.5, 1.0]))
        for round_number in (1, 2)
        for i, a in enumerate(NAMES)
        for b in NAMES[i + 1 :]
        for n in range(4)
    ]


def _tables(ladder: Ladder) -> dict[str, Any]:
    """Every derived row, comparable across ladders and rebuilds."""
    with Session(ladder.engine) as session:
        return {
            "history": sorted(
                (row.version_id, row.game_id, row.rating, row.rating_before)
                for row in session.exec(select(RatingHistory))
            ),
            "versions": sorted(
                (row.version_id, row.elo, row.games, row.wins, row.losses, row.draws)
                for row in session.exec(select(VersionRating))
            ),
            "pairs": sorted(
                (row.a_version_id, row.b_version_id, row.games, row.a_points)
                for row in session.exec(select(PairTotal))
            ),
        }


@pytest.mark.parametrize("seed", [1, 2])
def test_games_stored_in_any_order_and_batches_give_the_tables_of_a_full_replay(
    db_url: str, tmp_path: Path, seed: int
) -> None:
    ladder, versions = ladder_with(db_url, tmp_path, NAMES)
    results = _results(seed)
    rng = random.Random(seed)
    with Session(ladder.engine) as session:
        keys = dict.fromkeys((round_number, pair) for round_number, pair, _, _ in results)
        matches = {
            (round_number, (a, b)): add_match(session, round_number, versions[a], versions[b])
            for round_number, (a, b) in keys
        }
        session.commit()
        arrivals = results[:]
        rng.shuffle(arrivals)  # games of later matches first, pairs split, as polls find them
        while arrivals:
            size = rng.randint(1, 6)
            batch, arrivals = arrivals[:size], arrivals[size:]
            rows = [
                game_row(session, matches[round_number, pair], game_id, score)
                for round_number, pair, game_id, score in batch
            ]
            store_games(session, rows)
    games = [(a, b, score) for _, (a, b), _, score in sorted(results)]
    elo, fit = elo_from_games(games), bradley_terry_by_group(games)
    lines = ladder.standings()
    assert {line.bot: line.elo for line in lines} == elo  # exactly: the same sums in order
    for line in lines:
        assert line.fit is not None
        assert line.fit.rating == pytest.approx(fit[line.bot].rating, abs=1e-9)
        assert line.fit.upper == pytest.approx(fit[line.bot].upper, abs=1e-9)
        assert line.games == sum(line.bot in (a, b) for a, b, _ in games)
    kept = _tables(ladder)
    assert len(kept["history"]) == 2 * len(games)
    assert "recomputed the ratings from 80 stored games" in cli(
        "ladder", "rerate", "--ladder", tmp_path / "ladder", "--db", db_url
    )
    assert _tables(ladder) == kept
    ladder.close()


def test_the_fit_is_computed_once_per_change_of_the_games(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fits = []
    real = rating_tables.fit_arrays_by_group
    monkeypatch.setattr(
        rating_tables,
        "fit_arrays_by_group",
        lambda *arrays, **options: fits.append(1) or real(*arrays, **options),
    )
    ladder, v = ladder_with(db_url, tmp_path, ["ann", "bob"])
    with Session(ladder.engine) as session:
        match = add_match(session, 1, v["ann"], v["bob"])
        store_games(session, [game_row(session, match, "pair-00000-a", 1.0)])
    first = ladder.standings()
    assert ladder.standings() == first
    assert len(fits) == 1
    with Session(ladder.engine) as session:
        store_games(session, [game_row(session, match, "pair-00000-b", 1.0)])
    second = ladder.standings()
    assert len(fits) == 2
    assert second[0].fit != first[0].fit and second[0].games == 2
    ladder.close()


def _history_rows_written(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the rows written to ``rating_history`` per bulk insert (``COPY`` on
    PostgreSQL, a multi-row insert on SQLite)."""
    written: list[int] = []
    insert_rows = rating_tables.insert_rows

    def count(connection: Any, table: Any, rows: Any) -> None:
        if table is RatingHistory:
            written.append(len(rows))
        insert_rows(connection, table, rows)

    monkeypatch.setattr(rating_tables, "insert_rows", count)
    return written


def test_storing_a_game_replays_only_the_games_after_it(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ladder, v = ladder_with(db_url, tmp_path, ["ann", "bob", "cy"])
    with Session(ladder.engine) as session:
        matches = [add_match(session, 1, v[a], v[b]) for a, b in [("ann", "bob"), ("ann", "cy")]]
        matches.append(add_match(session, 2, v["bob"], v["cy"]))
        session.commit()
        history = [
            game_row(session, match, f"pair-{n:05d}-{side}", 1.0)
            for match in matches[:2]
            for n in range(10)
            for side in "ab"
        ]
        store_games(session, history)  # 40 games of round 1
        written = _history_rows_written(monkeypatch)
        store_games(session, [game_row(session, matches[2], "pair-00000-b", 0.0)])
        assert sum(written) == 2  # the newest game in the Elo order: its own two rows
        written.clear()
        store_games(session, [game_row(session, matches[2], "pair-00000-a", 0.5)])
        assert sum(written) == 4  # before the one stored just now: both games again
    with Session(ladder.engine) as session:
        assert len(session.exec(select(RatingHistory)).all()) == 2 * 42
    ladder.close()


def test_upgrading_a_0003_ladder_fills_the_rating_tables_from_its_games(
    db_url: str, tmp_path: Path
) -> None:
    engine = create_engine(database_url(Path("."), db_url))
    config = alembic_config()
    results = _results(3)
    versions = {name: number for number, name in enumerate(NAMES, start=1)}
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0003")
        now = {"now": models.now()}
        for name, number in versions.items():
            connection.execute(
                text(
                    "INSERT INTO bot (id, name, active, created_at) VALUES (:n, :name, true, :now)"
                ),
                {"n": number, "name": name, **now},
            )
            connection.execute(
                text(
                    "INSERT INTO bot_version (id, bot_id, content_hash, folder, manifest_name, "
                    "manifest_version, command, description, author, submitted_at) "
                    "VALUES (:n, :n, 'h', 'f', :name, '1', '[]', '', '', :now)"
                ),
                {"n": number, "name": name, **now},
            )
        matches: dict[tuple[int, tuple[str, str]], int] = {}
        for round_number, pair, game_id, score in results:
            if (round_number, pair) not in matches:
                matches[round_number, pair] = len(matches) + 1
                connection.execute(
                    text(
                        "INSERT INTO match (id, round, a_version_id, b_version_id, seed, "
                        "games_planned, settings, folder, status, created_at) VALUES (:id, "
                        ":round, :a, :b, 1, 4, '{}', :folder, 'finished', :now)"
                    ),
                    {
                        "id": matches[round_number, pair],
                        "round": round_number,
                        "a": versions[pair[0]],
                        "b": versions[pair[1]],
                        "folder": f"m{len(matches)}",
                        **now,
                    },
                )
            connection.execute(
                text(
                    "INSERT INTO game (match_id, game_id, a_team, a_score, b_score, a_points, "
                    "b_points, faults, termination, record_path, record, finished_at) VALUES "
                    "(:match, :game, 0, :score, 1 - :score, 0, 0, 0, 't', 'r', :record, :now)"
                ),
                {
                    "match": matches[round_number, pair],
                    "game": game_id,
                    "score": score,
                    "record": json.dumps({"game": game_id}),
                    **now,
                },
            )
    migrate(engine)  # as the next command does
    games = [(a, b, score) for _, (a, b), _, score in sorted(results)]
    elo = elo_from_games(games)
    with Session(engine) as session:
        lines = standings.standings(session)
        game = session.exec(select(Game).where(Game.match_id == 1)).first()
        match = session.get_one(Match, 1)
        records = {row.game_id: row.record for row in session.exec(select(GameRecord))}
    assert game is not None
    assert len(records) == len(results)  # the records moved to their own table
    assert records[game.id] == {"game": game.game_id}
    assert (game.round, game.a_version_id, game.b_version_id) == (
        match.round,
        match.a_version_id,
        match.b_version_id,
    )
    assert {line.bot: line.elo for line in lines} == elo
    assert {line.bot: line.games for line in lines} == dict.fromkeys(NAMES, 32)
    engine.dispose()


def test_the_kept_fit_is_read_again_only_when_a_new_one_is_kept(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads = []
    real = rating_tables._kept_fit
    monkeypatch.setattr(rating_tables, "_kept_fit", lambda s: reads.append(1) or real(s))
    ladder, v = ladder_with(db_url, tmp_path, ["ann", "bob"])
    kept = rating_tables.KeptFit()
    with Session(ladder.engine) as session:
        assert kept(session) is None  # nothing kept yet
        match = add_match(session, 1, v["ann"], v["bob"])
        store_games(session, [game_row(session, match, "pair-00000-a", 1.0)])
        rating_tables.current_fit(session)
        first = kept(session)
        assert first is not None and first[1] and kept(session) == first
        assert len(reads) == 1
        store_games(session, [game_row(session, match, "pair-00000-b", 1.0)])
        stale = kept(session)
        assert stale is not None and stale == (first[0], False) and len(reads) == 1
        fresh = rating_tables.current_fit(session)
        assert kept(session) == (fresh, True) and len(reads) == 2
    ladder.close()
