"""Per-author limits and the checks' queue, through the HTTP API on SQLite and PostgreSQL:
over uploads per hour, checks at once, stored versions or disk an upload is a 429, a full
queue a 503, each with Retry-After and a one-line reason; an admin's override lifts a
limit for one author (``PUT /api/authors/{name}/limits``)."""

from __future__ import annotations

import io
import shutil
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session

from pitch_ladder.archive import ArchiveLimits, pack
from pitch_ladder.authors import add_author
from pitch_ladder.ladder import Ladder
from pitch_ladder.models import Bot, BotVersion
from pitch_ladder.quotas import AuthorLimits
from pitch_sdk import reference
from pitch_web import create_app
from pitch_web.routes.service import ServiceSettings, close_service, enable_service
from pitch_web.source import LadderSource

RANDOM = reference.folder("random")
NOT_AN_ARCHIVE = b"this is not a .tar.gz"
"""An upload refused at once (422) by its check: cheap, and it counts as an upload."""


class Arena:
    """A served ladder on ``db_url`` with two authors and an admin, under ``limits``."""

    def __init__(self, folder: Path, db_url: str, settings: ServiceSettings) -> None:
        Ladder.init(folder, db_url).close()
        self.db_url = db_url
        self.source = LadderSource(folder, db_url)
        self.ladder = self.source.ladder
        self.tokens = {}
        self.ids = {}
        for name in ("alice", "bob", "operator"):
            issued = add_author(self.ladder, name, admin=name == "operator")
            self.tokens[name] = issued.token
            self.ids[name] = len(self.ids) + 2  # after `local`
        self._serve(settings)

    @classmethod
    def beside(cls, other: Arena) -> Arena:
        """Another server of ``other``'s ladder and database, with its settings."""
        arena = cls.__new__(cls)
        arena.db_url = other.db_url
        arena.source = LadderSource(other.ladder.folder, other.db_url)
        arena.ladder = arena.source.ladder
        arena.tokens, arena.ids = other.tokens, other.ids
        arena._serve(other.app.state.service)
        return arena

    def _serve(self, settings: ServiceSettings) -> None:
        self.app = create_app(self.source)
        enable_service(self.app, settings)
        self.client = TestClient(self.app)

    def as_(self, author: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[author]}"}

    def upload(self, author: str, body: bytes = NOT_AN_ARCHIVE):
        return self.client.post("/api/submissions", content=body, headers=self.as_(author))

    def close(self) -> None:
        close_service(self.app)
        self.source.close()


@pytest.fixture
def arena_with(tmp_path: Path, db_url: str) -> Iterator:
    made: list[Arena] = []

    def make(**limits: int) -> Arena:
        queue = {
            key: limits.pop(key) for key in ("checks_at_once", "checks_queued") if key in limits
        }
        settings = ServiceSettings(
            limits=ArchiveLimits(max_unpacked_bytes=10_000_000),
            author_limits=AuthorLimits(**limits),
            **queue,
        )
        made.append(Arena(tmp_path / "ladder", db_url, settings))
        return made[-1]

    yield make
    for arena in made:
        arena.close()


def _refused_later(answer, status: int = 429) -> str:
    assert answer.status_code == status, answer.text
    assert 1 <= int(answer.headers["retry-after"]) <= 3600
    detail = answer.json()["detail"]
    assert "\n" not in detail
    return detail


def test_uploads_past_the_hourly_limit_are_429_until_an_admin_raises_it(arena_with) -> None:
    arena = arena_with(uploads_per_hour=2)
    assert [arena.upload("alice").status_code for _ in range(2)] == [422, 422]
    detail = _refused_later(arena.upload("alice"))
    assert detail == (
        "over your limit: 2 uploads in the last hour; send it again when the window has moved on"
    )
    assert arena.upload("bob").status_code == 422, "each author has a window of their own"
    refused = arena.client.put(
        "/api/authors/alice/limits", json={"uploads_per_hour": 10}, headers=arena.as_("alice")
    )
    assert refused.status_code == 403
    raised = arena.client.put(
        "/api/authors/alice/limits", json={"uploads_per_hour": 10}, headers=arena.as_("operator")
    )
    assert raised.status_code == 200 and raised.json()["limits"]["uploads_per_hour"] == 10
    assert arena.upload("alice").status_code == 422


def test_the_hourly_limit_counts_uploads_taken_by_any_server_of_the_ladder_and_before_a_restart(
    arena_with,
) -> None:
    first = arena_with(uploads_per_hour=2)
    second = Arena.beside(first)  # a second server process on the same database
    assert [first.upload("alice").status_code, second.upload("alice").status_code] == [422, 422]
    assert _refused_later(first.upload("alice")).startswith("over your limit: 2 uploads")
    assert _refused_later(second.upload("alice")).startswith("over your limit: 2 uploads")
    second.close()
    restarted = Arena.beside(first)
    try:
        assert _refused_later(restarted.upload("alice")).startswith("over your limit: 2 uploads")
        assert restarted.upload("bob").status_code == 422
    finally:
        restarted.close()


def test_an_author_with_their_checks_at_once_in_the_queue_is_429(arena_with) -> None:
    arena = arena_with(checks=1)
    with arena.app.state.checks.ticket(arena.ids["alice"], 1):  # alice's first upload, waiting
        detail = _refused_later(arena.upload("alice"))
        assert detail.startswith("over your limit: 1 of your uploads are being checked")
        assert arena.upload("bob").status_code == 422, "bob's checks are his own"
    assert arena.upload("alice").status_code == 422


def test_a_full_check_queue_is_503_with_retry_after(arena_with) -> None:
    arena = arena_with(checks_queued=1)
    with arena.app.state.checks.ticket(arena.ids["bob"], 2):  # the one place is taken
        detail = _refused_later(arena.upload("alice"), 503)
        assert detail.startswith("the server is busy: 1 uploads are waiting for a check")
    assert arena.upload("alice").status_code == 422


def test_an_author_at_their_stored_versions_is_429_before_the_body_is_read(arena_with) -> None:
    arena = arena_with(versions=2)
    with Session(arena.ladder.engine) as session:
        bot = Bot.model_validate({"name": "old", "author_id": arena.ids["alice"]})
        session.add(bot)
        session.flush()
        for n in range(2):
            session.add(
                BotVersion.model_validate(
                    {
                        "bot_id": bot.id,
                        "content_hash": f"{n:064}",
                        "folder": f"bots/old/{n}",
                        "manifest_name": "old",
                        "manifest_version": str(n),
                        "command": ["python", "bot.py"],
                    }
                )
            )
        session.commit()
    detail = _refused_later(arena.upload("alice"))
    assert detail.startswith("over your limit: 2 bot versions stored, the most you may have is 2")
    assert arena.upload("bob").status_code == 422
    mine = arena.client.get("/api/authors/alice/limits", headers=arena.as_("alice")).json()
    assert mine["versions"] == 2 and mine["limits"]["versions"] == 2
    assert mine["override"]["versions"] is None


@pytest.mark.slow
def test_a_small_archive_that_unpacks_past_the_disk_limit_is_429_and_stores_nothing(
    arena_with, tmp_path: Path
) -> None:
    arena = arena_with(disk_bytes=1_000_000)
    bot = Path(shutil.copytree(RANDOM, tmp_path / "big", ignore=shutil.ignore_patterns("__py*")))
    (bot / "weights.bin").write_bytes(bytes(3_000_000))
    pack(bot, tmp_path / "big.tar.gz")
    archive = (tmp_path / "big.tar.gz").read_bytes()
    assert len(archive) < 20_000, "a few KB sent, megabytes unpacked"
    detail = _refused_later(arena.upload("alice", archive))
    assert "unpacks to 3,0" in detail and "past your 1,000,000 bytes of disk" in detail
    assert arena.client.get("/api/bots").json() == []
    assert not (arena.ladder.folder / "bots").exists() or not any(
        (arena.ladder.folder / "bots").iterdir()
    )
    assert not list((arena.ladder.folder / "tmp").glob("upload-*")), "the scratch is removed"
    small = io.BytesIO()
    with tarfile.open(fileobj=small, mode="w:gz"):
        pass
    assert arena.upload("alice", small.getvalue()).status_code == 422, "a small one is checked"
