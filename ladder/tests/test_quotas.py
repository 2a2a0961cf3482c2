"""Per-author limits kept by the ladder: migration 0011 on SQLite and PostgreSQL, an
admin's override over the server's settings (the API and `pitch ladder author limits`),
and what an author uses, counted as stored (unpacked), never as uploaded."""

from __future__ import annotations

import shutil
from datetime import timedelta
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, inspect
from sqlmodel import Session, SQLModel

from pitch_ladder.authors import add_author
from pitch_ladder.database import alembic_config, database_url, migrate
from pitch_ladder.errors import LadderError
from pitch_ladder.ladder import Ladder
from pitch_ladder.models import SubmissionVerdict, now
from pitch_ladder.quotas import (
    AuthorLimits,
    QuotaExceeded,
    Usage,
    check_rate,
    check_stored,
    limits_of,
    override_of,
    set_limits,
    usage,
)
from pitch_testkit.ladder import RANDOM, cli, cli_refusal

DEFAULTS = AuthorLimits(uploads_per_hour=20, checks=2, versions=5, disk_bytes=1_000_000)


def test_migration_0011_adds_the_author_limit_table_and_downgrades_without_it(
    db_url: str,
) -> None:
    url = database_url(Path("."), db_url)
    engine = create_engine(url)
    config = alembic_config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0010")
    migrate(engine)  # as the next command does
    with engine.connect() as connection:
        assert "author_limit" in inspect(connection).get_table_names()
        assert compare_metadata(MigrationContext.configure(connection), SQLModel.metadata) == []
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0010")
    with engine.connect() as connection:
        assert "author_limit" not in inspect(connection).get_table_names()
    engine.dispose()


def test_an_admins_override_replaces_only_the_limits_it_sets(db_url: str, tmp_path) -> None:
    with Ladder.init(tmp_path / "ladder", db_url) as ladder:
        add_author(ladder, "alice")
        add_author(ladder, "bob")
        alice = 2  # after `local`
        assert limits_of(ladder, alice, DEFAULTS) == DEFAULTS
        set_limits(ladder, "alice", uploads_per_hour=100, versions=50)
        set_limits(ladder, "alice", disk_bytes=2**40)  # past 32 bits, on PostgreSQL too
        assert limits_of(ladder, alice, DEFAULTS) == AuthorLimits(100, 2, 50, 2**40)
        assert limits_of(ladder, alice + 1, DEFAULTS) == DEFAULTS, "bob keeps the server's"
        assert override_of(ladder, alice)["checks"] is None
        set_limits(ladder, "alice", clear=True)
        assert limits_of(ladder, alice, DEFAULTS) == DEFAULTS
        with pytest.raises(LadderError, match="no author named 'carol'"):
            set_limits(ladder, "carol", versions=3)
        with pytest.raises(LadderError, match="at least 1"):
            set_limits(ladder, "alice", versions=0)


def test_the_cli_sets_shows_and_clears_an_authors_limits(tmp_path: Path) -> None:
    folder = tmp_path / "ladder"
    cli("ladder", "init", "--ladder", folder)
    cli("ladder", "author", "add", "alice", "--ladder", folder)
    shown = cli(
        "ladder", "author", "limits", "alice", "--uploads-per-hour", "100", "--versions", "50",
        "--ladder", folder,
    )  # fmt: skip
    assert "uploads_per_hour 100" in shown and "versions 50" in shown
    assert "checks (the server's)" in shown
    cleared = cli("ladder", "author", "limits", "alice", "--clear", "--ladder", folder)
    assert "uploads_per_hour (the server's)" in cleared
    assert "no author named 'nobody'" in cli_refusal(
        "ladder", "author", "limits", "nobody", "--versions", "3", "--ladder", folder
    )


def test_disk_use_counts_the_stored_files_unpacked(tmp_path: Path) -> None:
    with Ladder.init(tmp_path / "ladder") as ladder:
        add_author(ladder, "alice")
        bot = Path(shutil.copytree(RANDOM, tmp_path / "big"))
        (bot / "weights.bin").write_bytes(bytes(300_000))  # a few hundred bytes gzipped
        ladder.submit(bot, author="alice", trust_bots=True)
        used = usage(ladder, ladder.folder, 2)
    assert used.versions == 1 and used.disk_bytes >= 300_000
    with pytest.raises(QuotaExceeded, match="past your 500,000 bytes of disk"):
        check_stored(AuthorLimits(disk_bytes=500_000), used, adding_bytes=300_000)
    with pytest.raises(QuotaExceeded, match="1 bot versions stored") as refused:
        check_stored(AuthorLimits(versions=1), used)
    assert refused.value.retry_after > 0
    check_stored(AuthorLimits(versions=2, disk_bytes=700_000), used, adding_bytes=300_000)
    with Ladder.open(tmp_path / "ladder") as ladder:
        assert usage(ladder, ladder.folder, 1) == Usage(0, 0), "local has nothing stored"


def test_the_hourly_rate_counts_the_verdicts_of_the_last_hour_and_says_when_one_leaves_it(
    db_url: str, tmp_path: Path
) -> None:
    with Ladder.init(tmp_path / "ladder", db_url) as ladder:
        add_author(ladder, "alice")
        author = 2  # after `local`
        limits = AuthorLimits(uploads_per_hour=2)
        with Session(ladder.engine) as session:
            for minutes in (61, 40, 20):  # the first is out of the window
                session.add(
                    SubmissionVerdict.model_validate(
                        {
                            "author_id": author,
                            "accepted": False,
                            "submitted_at": now() - timedelta(minutes=minutes),
                        }
                    )
                )
            session.commit()
        check_rate(ladder, author, AuthorLimits(uploads_per_hour=3))
        with pytest.raises(QuotaExceeded) as over:
            check_rate(ladder, author, limits)
        assert 20 * 60 - 5 <= over.value.retry_after <= 20 * 60  # when the one of 40 min ago leaves
