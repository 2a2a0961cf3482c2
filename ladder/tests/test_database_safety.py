"""Only `ladder init` creates a database: a lost one is restored from a backup, never replaced.

A ladder's database that is missing, emptied or damaged is one error line that says how
to restore it, for every command; a database deleted under a running `ladder run` stops
it. `ladder backup` and `ladder restore` bring a ladder back with all its games.
"""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect

from pitch_ladder.database import database_url, sqlite_path
from pitch_ladder.errors import LadderError
from pitch_ladder.ladder import LADDER_FILE, Ladder
from pitch_ladder.lock import LOCK_FILE
from pitch_testkit.ladder import GREEDY, QUICK, RANDOM, cli, cli_error, cli_refusal


def _games(folder: Path) -> list[tuple[int, str, float, int, int]]:
    with Ladder.open(folder) as ladder:
        return sorted(  # in the Elo order (the list comes newest first)
            (g.round, g.game_id, g.a_score, g.a_points, g.b_points) for g in ladder.games()
        )


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A ladder of two bots that played one quick round."""
    folder = tmp_path_factory.mktemp("played") / "ladder"
    cli("ladder", "init", "--ladder", folder)
    cli("ladder", "submit", GREEDY, "--ladder", folder)
    cli("ladder", "submit", RANDOM, "--ladder", folder)
    cli("ladder", "run", *QUICK, "--ladder", folder)
    return folder


@pytest.fixture
def ladder(played: Path, tmp_path: Path) -> Path:
    """A copy of ``played`` to damage."""
    return Path(shutil.copytree(played, tmp_path / "ladder"))


def _no_tables(path: Path) -> None:
    path.unlink()
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE notes (text TEXT)")


def _damaged_pages(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[:100] + b"\xff" * 4000 + data[4100:])


DAMAGE: dict[str, tuple[Callable[[Path], None], str]] = {
    "missing": (Path.unlink, "is missing"),
    "emptied": (lambda path: path.write_bytes(b""), "is empty (0 bytes)"),
    "no tables": (_no_tables, "holds no ladder tables"),
    "garbage": (lambda path: path.write_bytes(b"\x13garbage" * 512), "is not an SQLite database"),
    "damaged pages": (_damaged_pages, "is damaged (database disk image is malformed)"),
}


@pytest.mark.slow
@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_lost_or_damaged_database_is_one_line_saying_how_to_restore_and_stays_as_it_was(
    ladder: Path, damage: str
) -> None:
    database = ladder / "ladder.db"
    for leftover in ladder.glob("ladder.db-*"):  # what a clean exit leaves: the file alone
        leftover.unlink()
    harm, problem = DAMAGE[damage]
    harm(database)
    before = database.read_bytes() if database.exists() else None
    for command in ("standings", "init", "run"):
        message = cli_error("ladder", command, "--ladder", ladder)
        assert f"the ladder database {database} {problem}" in message, message
        assert "pitch ladder restore FILE" in message and message.count("\n") == 1
        assert (database.read_bytes() if database.exists() else None) == before


def test_open_refuses_a_database_with_no_ladder_and_creates_nothing(
    db_url: str, tmp_path: Path
) -> None:
    folder = tmp_path / "ladder"
    folder.mkdir()
    (folder / LADDER_FILE).write_text('format = "pitch-ladder"\nid = "x"\n')
    url = database_url(folder, db_url)
    with pytest.raises(LadderError, match=r"is missing|holds no ladder tables"):
        Ladder.open(folder, db_url)
    path = sqlite_path(url)
    if path:
        assert not path.exists()
        return
    engine = create_engine(url)
    with engine.connect() as connection:
        assert inspect(connection).get_table_names() == []
    engine.dispose()


def test_init_makes_the_database_of_a_ladder_with_no_bots_yet(tmp_path: Path) -> None:
    folder = tmp_path / "ladder"
    Ladder.init(folder).close()
    (folder / "ladder.db").unlink()  # say, an init killed before it made the database
    Ladder.init(folder).close()
    assert Ladder.open(folder).bots() == []


@pytest.mark.slow
def test_backup_then_restore_brings_back_every_game_even_those_played_after_it(
    ladder: Path, tmp_path: Path
) -> None:
    backup = tmp_path / "kept" / "ladder.db"
    assert "restore it with `pitch ladder restore" in cli(
        "ladder", "backup", "--out", backup, "--ladder", ladder
    )
    cli("ladder", "run", *QUICK, "--ladder", ladder)  # a round the backup has not seen
    everything = _games(ladder)
    assert len(everything) == 4
    (ladder / "ladder.db").write_bytes(b"lost")

    restored = cli("ladder", "restore", backup, "--ladder", ladder)
    assert "the database it replaced is kept as" in restored
    assert [path.read_bytes() for path in ladder.glob("ladder.db.replaced-*")] == [b"lost"]
    assert _games(ladder) == everything[:2]
    assert "finishing 1 matches" in cli("ladder", "run", *QUICK, "--ladder", ladder)
    assert _games(ladder) == everything  # imported from the match folder, not replayed


def test_backup_refuses_an_existing_file_and_restore_anything_but_this_ladders_backup(
    ladder: Path, tmp_path: Path
) -> None:
    (tmp_path / "taken.db").write_text("mine")
    assert "already exists" in cli_refusal(
        "ladder", "backup", "--out", tmp_path / "taken.db", "--ladder", ladder
    )
    other = tmp_path / "other"
    cli("ladder", "init", "--ladder", other)
    cli("ladder", "backup", "--out", tmp_path / "other.db", "--ladder", other)
    assert "is of another ladder" in cli_refusal(
        "ladder", "restore", tmp_path / "other.db", "--ladder", ladder
    )
    assert "is not an SQLite database" in cli_refusal(
        "ladder", "restore", tmp_path / "taken.db", "--ladder", ladder
    )
    assert "is missing" in cli_refusal(
        "ladder", "restore", tmp_path / "none.db", "--ladder", ladder
    )


def test_backup_of_postgresql_says_to_use_pg_dump(db_url: str, tmp_path: Path) -> None:
    if not db_url.startswith("postgresql"):
        pytest.skip("PostgreSQL only")
    cli("ladder", "init", "--ladder", tmp_path / "ladder", "--db", db_url)
    message = cli_refusal("ladder", "backup", "--ladder", tmp_path / "ladder", "--db", db_url)
    assert "pg_dump" in message


@pytest.mark.slow
def test_a_database_deleted_under_a_run_stops_it_and_the_next_command_refuses(
    ladder: Path,
) -> None:
    run = subprocess.Popen(
        [sys.executable, "-m", "pitch_cli", "ladder", "run", "--rounds", "100",
         *QUICK, "--workers", "1", "--ladder", str(ladder)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    records, deadline = len(list(ladder.glob("matches/*/games/*.json"))), time.monotonic() + 60
    while len(list(ladder.glob("matches/*/games/*.json"))) < records + 2:  # it stores games
        assert time.monotonic() < deadline and run.poll() is None, "the run stored nothing"
        time.sleep(0.02)
    assert (ladder / LOCK_FILE).read_text().strip() == str(run.pid)
    (ladder / "ladder.db").unlink()
    stdout, stderr = run.communicate(timeout=60)

    assert run.returncode == 1, stdout + stderr
    assert "was deleted or replaced while this command ran" in stderr
    assert "Traceback" not in stderr and "new games stored" not in stdout
    assert "is missing" in cli_error("ladder", "standings", "--ladder", ladder)
    assert not (ladder / "ladder.db").exists()
