"""Helpers for the ladder tests: the CLI in-process and as a process, bot folders, and
ladders whose games are written straight into the database."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import pytest
from sqlalchemy import create_engine, text
from sqlmodel import Session, func, select
from typer.testing import CliRunner

from pitch_cli import app
from pitch_ladder.database import database_url
from pitch_ladder.game_query import GameQuery
from pitch_ladder.ladder import Ladder
from pitch_ladder.models import (
    Bot,
    BotVersion,
    Game,
    GameRecord,
    LadderIdentity,
    Match,
    RatingHistory,
    now,
)
from pitch_ladder.ownership import OWNER_ROW
from pitch_ladder.pending import PendingMatch
from pitch_ladder.rating_tables import rerate
from pitch_ladder.verify import seated
from pitch_referee.errors import PitchError
from pitch_referee.match import GameSpec
from pitch_sdk import reference
from pitch_sdk.bots import GreedyBot, RandomBot
from pitch_sdk.gamerecord import GameRecord as SdkGameRecord
from pitch_sdk.record import GameRecorder
from pitch_sdk.selfplay import play_game

RANDOM = reference.folder("random")
GREEDY = reference.folder("greedy")
POSTGRES = os.environ.get("PITCH_TEST_POSTGRES_URL")
"""PostgreSQL for the tests that run on both databases (``.ci/run`` sets it)."""
QUICK = ["--games-per-match", "2", "--rule", "hand_cap=2"]
"""``ladder run`` options for short matches: one duplicate pair of two-hand games."""


def cli(*args: str | Path) -> str:
    """Run ``pitch ARGS`` in-process; return its output, failing the test on a bad exit."""
    result = CliRunner().invoke(app, [str(arg) for arg in args])
    assert result.exit_code == 0, f"{args}: {result.output}{result.exception!r}"
    return result.output


def cli_refusal(*args: str | Path) -> str:
    """Run ``pitch ARGS`` in-process; it must raise a ``PitchError``: return its message."""
    result = CliRunner().invoke(app, [str(arg) for arg in args])
    assert isinstance(result.exception, PitchError), f"{args}: {result.output}"
    return str(result.exception)


def cli_error(*args: str | Path) -> str:
    """Run ``pitch ARGS`` as a process that must fail; return its stderr (one message)."""
    process = pitch(*args)
    assert process.returncode == 1, process.stdout + process.stderr
    assert "Traceback" not in process.stderr, process.stderr
    return process.stderr


def pitch(*args: str | Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``python -m pitch_cli ARGS``, as a user would run it."""
    return subprocess.run(
        [sys.executable, "-m", "pitch_cli", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def write_bot(folder: Path, name: str, code: str) -> Path:
    """A bot folder whose ``bot.py`` is ``code``."""
    folder.mkdir(parents=True)
    (folder / "bot.toml").write_text(
        f'name = "{name}"\nversion = "0.1"\ncommand = ["python", "bot.py"]\n'
    )
    (folder / "bot.py").write_text(code)
    return folder


def cores_after_a_while() -> list[int]:
    """A pool job: its worker's cores, slowly enough that a second job goes to another worker."""
    time.sleep(2.0)  # longer than a second worker takes to start, even on a loaded machine
    return sorted(os.sched_getaffinity(0))


def ladder_with(db_url: str, tmp_path: Path, bots: list[str]) -> tuple[Ladder, dict[str, int]]:
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


def add_team_match(
    session: Session,
    round_number: int,
    lineup: tuple[str, str, str, str],
    versions: dict[str, int],
    scores: list[float],
) -> int:
    """A finished team match of ``lineup`` (bot A, its partner, bot B, its partner, by
    name) with a game per score (A's), as the ladder stores them but without records;
    its id."""
    a, a_partner, b, b_partner = (versions[name] for name in lineup)
    teams = {"a_version_id": a, "b_version_id": b}
    teams |= {"a_partner_version_id": a_partner, "b_partner_version_id": b_partner}
    match = Match.model_validate(
        {
            **teams,
            "round": round_number,
            "seed": 1,
            "games_planned": len(scores),
            "settings": {},
            "folder": f"matches/{round_number}-{'+'.join(lineup)}",
            "status": "finished",
        }
    )
    session.add(match)
    session.flush()
    for number, score in enumerate(scores):
        game = {
            **teams,
            "match_id": match.id,
            "round": round_number,
            "game_id": f"pair-{number // 2:05d}-{'ab'[number % 2]}",
            "a_team": number % 2,
            "a_score": score,
            "b_score": 1 - score,
            "a_points": 0,
            "b_points": 0,
            "faults": 0,
            "termination": "score",
            "record_path": "x",
            "finished_at": now(),
        }
        session.add(Game.model_validate(game))
    assert match.id is not None
    return match.id


def add_match(session: Session, round_number: int, a: int, b: int) -> int:
    """A match row between versions ``a`` and ``b``; its id."""
    match = Match.model_validate(
        {
            "round": round_number,
            "a_version_id": a,
            "b_version_id": b,
            "seed": 1,
            "games_planned": 2,
            "settings": {},
            "folder": f"matches/{round_number}-{a}-{b}",
        }
    )
    session.add(match)
    session.flush()
    assert match.id is not None
    return match.id


def game_row(
    session: Session, match_id: int, game_id: str, a_score: float, points: tuple[int, int] = (0, 0)
) -> Game:
    """A game of the match (not added to the session)."""
    match = session.get_one(Match, match_id)
    return Game.model_validate(
        {
            "match_id": match_id,
            "round": match.round,
            "a_version_id": match.a_version_id,
            "b_version_id": match.b_version_id,
            "game_id": game_id,
            "a_team": 0,
            "a_score": a_score,
            "b_score": 1 - a_score,
            "a_points": points[0],
            "b_points": points[1],
            "faults": 0,
            "termination": "target",
            "record_path": "x.json",
            "finished_at": now(),
        }
    )


def add_game_with_record(
    session: Session, match_id: int, game_id: str, a_score: float, record: dict[str, Any]
) -> int:
    """A game of the match with its record (no ratings), committed; its number."""
    game = game_row(session, match_id, game_id, a_score)
    session.add(game)
    session.flush()
    session.add(GameRecord.model_validate({"game_id": game.id, "record": record}))
    session.commit()
    assert game.id is not None
    return game.id


def store_game(
    session: Session, match_id: int, game_id: str, a_score: float, points: tuple[int, int] = (0, 0)
) -> None:
    """Store one game as ``ladder run`` does: with its ratings, in a transaction of its own."""
    store_games(session, [game_row(session, match_id, game_id, a_score, points)])


def store_games(session: Session, games: list[Game]) -> None:
    """Store games as one poll of ``ladder run`` does: with their ratings, in one transaction."""
    session.add_all(games)
    session.flush()
    record = GameRecorder().record().to_json()  # a record of no hand: the rows are the test
    session.add_all(
        GameRecord.model_validate({"game_id": game.id, "record": record}) for game in games
    )
    rerate(session, {game.id for game in games if game.id is not None})
    session.commit()


@pytest.fixture(
    params=[
        "sqlite",
        pytest.param(
            "postgresql",
            marks=pytest.mark.skipif(not POSTGRES, reason="PITCH_TEST_POSTGRES_URL is not set"),
        ),
    ]
)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh ladder database's URL: SQLite, then PostgreSQL when it is set (a fixture
    that the ladder's and the web's conftest both import)."""
    with fresh_database(request.param, tmp_path) as url:
        yield url


@contextmanager
def fresh_database(kind: str, tmp_path: Path) -> Iterator[str]:
    """The URL of a fresh, empty ladder database: a SQLite file under ``tmp_path``, or
    (``kind`` "postgresql") a PostgreSQL schema of its own on ``POSTGRES``, selected
    through libpq's ``options`` and dropped afterwards."""
    if kind == "sqlite":
        yield f"sqlite:///{tmp_path / 'test-ladder.db'}"
        return
    assert POSTGRES, "PITCH_TEST_POSTGRES_URL is not set"
    schema = f"ladder_test_{uuid.uuid4().hex[:12]}"
    admin = create_engine(database_url(tmp_path, POSTGRES))
    with admin.begin() as connection:
        connection.execute(text(f"CREATE SCHEMA {schema}"))
    separator = "&" if "?" in POSTGRES else "?"
    try:
        yield f"{POSTGRES}{separator}options={quote(f'-csearch_path={schema}')}"
    finally:
        with admin.begin() as connection:
            connection.execute(text(f"DROP SCHEMA {schema} CASCADE"))
        admin.dispose()


@contextmanager
def postgres_failing(url: str, application: str) -> Iterator[None]:
    """The ``fresh_database`` PostgreSQL ``url`` fails, as a lost server does, for the
    connections named ``application`` (libpq's ``application_name``), until the block ends:
    its schema is renamed, so that no query finds a table, and those connections are cut.
    On the way out the schema gets its name back, as it was."""
    schema = unquote(url).rpartition("search_path=")[2]
    away = f"{schema}_away"
    admin = create_engine(database_url(Path(), POSTGRES))
    cut = text(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = :name"
    )
    with admin.begin() as connection:
        connection.execute(text(f"ALTER SCHEMA {schema} RENAME TO {away}"))
    try:
        with admin.begin() as connection:
            connection.execute(cut, {"name": application})
        yield
    finally:
        with admin.begin() as connection:
            connection.execute(text(f"ALTER SCHEMA {away} RENAME TO {schema}"))
        admin.dispose()


ENDS_WITHIN_S = 30.0
"""How long a run may take to end once its database has failed: a poll or two of the
importer, its matches stopped, the process's exit (on a loaded machine)."""


def run_until_the_database_fails(
    args: list[str | Path], folder: Path, url: str, games: int
) -> subprocess.CompletedProcess[str]:
    """Run ``pitch ARGS --ladder FOLDER --db URL`` (a ``fresh_database`` PostgreSQL) and
    make its database fail (``postgres_failing``) once ``games`` games are stored; the
    process as it ended.

    The test fails if it ends before, or does not end within ``ENDS_WITHIN_S``."""
    application = f"pitch-run-{uuid.uuid4().hex[:8]}"
    named = f"{url}&application_name={application}"
    command = [sys.executable, "-m", "pitch_cli", *map(str, args)]
    run = subprocess.Popen(
        [*command, "--ladder", str(folder), "--db", named],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    engine = create_engine(database_url(folder, url))
    stored = select(func.count()).select_from(Game)
    try:
        deadline = time.monotonic() + 120
        while True:
            with Session(engine) as session:
                if session.exec(stored).one() >= games:
                    break
            assert run.poll() is None, "the run ended before its database failed"
            assert time.monotonic() < deadline, "the run stored no games"
            time.sleep(0.1)
        with postgres_failing(url, application):
            try:
                out, err = run.communicate(timeout=ENDS_WITHIN_S)
            except subprocess.TimeoutExpired:
                pytest.fail(f"the run had not ended {ENDS_WITHIN_S} s after its database failed")
    finally:
        run.kill()
        run.wait()
        engine.dispose()
    return subprocess.CompletedProcess(run.args, run.returncode, out, err)


def assert_ended_by_the_database(ended: subprocess.CompletedProcess[str]) -> None:
    """The run ``ended`` as a failed database ends one: status 1, one line saying so."""
    assert ended.returncode == 1, ended.stdout + ended.stderr
    lines = ended.stderr.strip().splitlines()
    assert len(lines) == 1 and "the database failed" in lines[0], ended.stderr
    assert "new games stored" not in ended.stdout


DEAL_SECRET = "0" * 64
"""The deals' secret of ``comparable_ladder``: ladders that share it deal the same cards."""


def comparable_ladder(
    folder: Path, db: str | None = None, bots: tuple[Path, ...] = (GREEDY, RANDOM)
) -> list[str | Path]:
    """A new ladder dealing with ``DEAL_SECRET`` (so that two of them play the same games
    and their outcomes can be compared), ``bots`` submitted; its ``--ladder``/``--db``."""
    where: list[str | Path] = ["--ladder", folder, *(["--db", db] if db else [])]
    cli("ladder", "init", *where)
    with Ladder.open(folder, db) as ladder, Session(ladder.engine) as session:
        session.get_one(LadderIdentity, OWNER_ROW).deal_secret = DEAL_SECRET
        session.commit()
    for bot in bots:
        cli("ladder", "submit", bot, *where)
    return where


def ladder_outcome(folder: Path, db: str | None = None) -> tuple[list[Any], dict[str, Any]]:
    """Every stored game, and every bot's ratings and counts (exact floats); checks that
    each game is stored once with its two rating updates."""
    with Ladder.open(folder, db) as ladder:
        games = sorted(  # listed newest first: the order of storing differs between runs
            (g.round, g.a, g.b, g.game_id, g.a_score, g.a_points, g.b_points)
            for g in ladder.games(GameQuery(limit=10_000))
        )
        lines = {
            line.bot: (line.elo, line.fit, line.games, line.wins, line.losses, line.draws)
            for line in ladder.standings()
        }
        with Session(ladder.engine) as session:
            assert session.exec(select(func.count()).select_from(Game)).one() == len(games)
            history = session.exec(select(func.count()).select_from(RatingHistory)).one()
            assert history == 2 * len(games)
    return games, lines


def honest_record(match: PendingMatch, spec: GameSpec) -> SdkGameRecord:
    """The record the referee writes for game ``spec`` of ``match`` (greedy against
    random, by name), played in-process: milliseconds a game at a small ``hand_cap``."""
    names = seated(spec, match.seat_names())
    bots = [(GreedyBot if name == "greedy" else RandomBot)(seat) for seat, name in enumerate(names)]
    return play_game(bots, spec.seed, match.match_settings.options(), spec.first_dealer)
