"""The service's HTTP routes: uploads and their refusals, tokens, each author's reach, the
scheduler's switch and the health check (FastAPI's test client over a real ladder)."""

from __future__ import annotations

import gzip
import io
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session, select

from pitch_ladder.archive import ArchiveLimits, pack
from pitch_ladder.authors import add_author, revoke
from pitch_ladder.ladder import Ladder
from pitch_ladder.models import Bot, BotVersion, Match
from pitch_sdk import reference
from pitch_testkit.ladder import add_match
from pitch_web import create_app
from pitch_web.routes.service import ServiceSettings, close_service, enable_service
from pitch_web.source import FolderSource, LadderSource

GREEDY, RANDOM = reference.folder("greedy"), reference.folder("random")
MANIFEST = b'name = "evil"\nversion = "1"\ncommand = ["python", "bot.py"]\n'
LIMITS = ArchiveLimits(max_archive_bytes=200_000, max_unpacked_bytes=1_000_000)


class Arena:
    """A served ladder with two authors and an admin, and their tokens."""

    def __init__(self, folder: Path) -> None:
        Ladder.init(folder).close()
        self.source = LadderSource(folder)
        self.ladder = self.source.ladder
        self.tokens = {
            name: add_author(self.ladder, name, admin=name == "operator").token
            for name in ("alice", "bob", "operator")
        }
        self.app = create_app(self.source)
        enable_service(self.app, ServiceSettings(limits=LIMITS))
        self.client = TestClient(self.app)

    def as_(self, author: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[author]}"}

    def upload(self, author: str, body: bytes) -> tuple[int, dict]:
        answer = self.client.post("/api/submissions", content=body, headers=self.as_(author))
        return answer.status_code, answer.json()


@pytest.fixture
def arena(tmp_path: Path) -> Iterator[Arena]:
    arena = Arena(tmp_path / "ladder")
    yield arena
    close_service(arena.app)
    arena.source.close()


def _packed(folder: Path, tmp_path: Path) -> bytes:
    out = tmp_path / f"{folder.name}.tar.gz"
    pack(folder, out)
    return out.read_bytes()


def _crafted(*entries: tuple[tarfile.TarInfo, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.PAX_FORMAT) as archive:
        info = tarfile.TarInfo("bot.toml")
        info.size = len(MANIFEST)
        archive.addfile(info, io.BytesIO(MANIFEST))
        for info, data in entries:
            archive.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return buffer.getvalue()


def _entry(name: str, data: bytes = b"", kind: bytes = tarfile.REGTYPE, link: str = ""):
    info = tarfile.TarInfo(name)
    info.type, info.linkname, info.size = kind, link, len(data)
    return info, data


@pytest.mark.slow
def test_an_upload_is_stored_then_identical_content_is_a_no_op(arena: Arena, tmp_path):
    status, first = arena.upload("alice", _packed(GREEDY, tmp_path))
    assert status == 201 and first["accepted"] and first["new"] and first["bot"] == "greedy"
    status, again = arena.upload("alice", _packed(GREEDY, tmp_path))
    assert status == 200 and again["accepted"] and not again["new"]
    assert [bot["name"] for bot in arena.client.get("/api/bots").json()] == ["greedy"]


@pytest.mark.parametrize(
    ("entries", "named"),
    [
        ([_entry("../../escape.py", b"x")], "escape.py"),
        ([_entry("/etc/evil.py", b"x")], "evil.py"),
        ([_entry("link", kind=tarfile.SYMTYPE, link="../../../etc/passwd")], "link"),
        ([_entry("pipe", kind=tarfile.FIFOTYPE)], "pipe"),
        ([_entry("bomb.bin", bytes(2_000_000))], "bomb.bin"),
    ],
    ids=["dot-dot", "absolute", "symlink-out", "fifo", "decompression-bomb"],
)
def test_a_crafted_archive_is_refused_with_a_reason_naming_the_entry(
    arena: Arena, tmp_path: Path, entries, named: str
) -> None:
    def outside() -> set[Path]:
        return {p for p in tmp_path.rglob("*") if not p.is_relative_to(arena.ladder.folder)}

    before = outside()
    status, answer = arena.upload("alice", _crafted(*entries))
    assert status == 422
    assert named in answer["detail"] and answer["detail"].startswith("refused")
    assert arena.client.get("/api/bots").json() == []
    assert outside() == before
    assert not list((arena.ladder.folder / "tmp").glob("upload-*")), "nothing left of the upload"
    mine = arena.client.get("/api/submissions", headers=arena.as_("alice")).json()
    assert [verdict["accepted"] for verdict in mine] == [False]


def test_an_archive_over_the_size_limit_is_refused_whether_declared_or_streamed(arena: Arena):
    big = gzip.compress(bytes(range(256)) * 10, compresslevel=0) * 200  # > 200,000 bytes
    status, answer = arena.upload("alice", big)
    assert status == 413 and "200,000 bytes" in answer["detail"]

    def chunks() -> Iterator[bytes]:  # no Content-Length: the server counts as it reads
        for _ in range(40):
            yield bytes(10_000)

    streamed = arena.client.post("/api/submissions", content=chunks(), headers=arena.as_("bob"))
    assert streamed.status_code == 413


@pytest.mark.parametrize(
    "header",
    [None, "Bearer pa_0000000000000000_wrong", "Basic dXNlcjpwYXNz", "Bearer not-a-token"],
    ids=["missing", "unknown", "not-bearer", "malformed"],
)
def test_a_missing_or_bad_token_is_a_401(arena: Arena, header: str | None) -> None:
    headers = {"Authorization": header} if header else {}
    answer = arena.client.post("/api/submissions", content=b"x", headers=headers)
    assert answer.status_code == 401
    assert answer.json()["detail"]


def test_a_revoked_token_is_a_401_that_says_so(arena: Arena) -> None:
    revoke(arena.ladder, "bob")
    answer = arena.client.get("/api/submissions", headers=arena.as_("bob"))
    assert answer.status_code == 401 and "revoked" in answer.json()["detail"]


def test_another_authors_bot_name_is_a_403(arena: Arena, tmp_path: Path) -> None:
    arena.ladder.submit(RANDOM, author="alice", trust_bots=True)
    status, answer = arena.upload("bob", _packed(RANDOM, tmp_path))
    assert status == 403 and "belongs to another author" in answer["detail"]


def test_an_author_retires_their_own_bot_and_not_anothers(arena: Arena) -> None:
    arena.ladder.submit(GREEDY, author="alice", trust_bots=True)
    refused = arena.client.post("/api/bots/greedy/retire", headers=arena.as_("bob"))
    assert refused.status_code == 403
    assert arena.client.get("/api/bots").json()[0]["active"]
    done = arena.client.post("/api/bots/greedy/retire", headers=arena.as_("alice"))
    assert done.status_code == 200 and done.json()["bot"] == "greedy"
    assert not arena.client.get("/api/bots").json()[0]["active"]
    missing = arena.client.post("/api/bots/nobody/retire", headers=arena.as_("alice"))
    assert missing.status_code == 404


def _played(arena: Arena) -> str:
    """A match of alice's greedy (A) against bob's random (B), with a log per seat; its
    log of greedy at A1."""
    with Session(arena.ladder.engine) as session:
        versions = dict(session.exec(select(Bot.name, BotVersion.id).join(BotVersion)).all())
        match = add_match(session, 1, versions["greedy"], versions["random"])
        folder = arena.ladder.folder / session.get_one(Match, match).folder
        session.commit()
    for slot, name in (("A1", "greedy"), ("A2", "greedy"), ("B1", "random"), ("B2", "random")):
        log = folder / "logs" / "worker-0" / f"{slot}-{name}.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text(f"{name} thinks\n")
    return f"{folder.relative_to(arena.ladder.folder).as_posix()}/logs/worker-0/A1-greedy.log"


def test_only_the_owner_lists_and_reads_a_bots_logs(arena: Arena) -> None:
    arena.ladder.submit(GREEDY, author="alice", trust_bots=True)
    arena.ladder.submit(RANDOM, author="bob", trust_bots=True)
    own = _played(arena)
    listed = arena.client.get("/api/bots/greedy/logs", headers=arena.as_("alice")).json()
    assert [entry["path"] for entry in listed] == [own, own.replace("A1", "A2")]
    read = arena.client.get(f"/api/bots/greedy/logs/{own}", headers=arena.as_("alice"))
    assert read.status_code == 200 and read.text == "greedy thinks\n"
    for path in ("/api/bots/greedy/logs", f"/api/bots/greedy/logs/{own}"):
        assert arena.client.get(path, headers=arena.as_("bob")).status_code == 403
    sneaky = arena.client.get("/api/bots/greedy/logs/ladder.toml", headers=arena.as_("alice"))
    assert sneaky.status_code == 403
    theirs = own.replace("A1-greedy", "B1-random")
    other = arena.client.get(f"/api/bots/greedy/logs/{theirs}", headers=arena.as_("alice"))
    assert other.status_code == 403


@pytest.mark.slow
def test_a_refused_uploads_smoke_logs_are_read_by_its_number_and_only_by_its_author(
    arena: Arena, tmp_path: Path
) -> None:
    crasher = tmp_path / "crasher"
    crasher.mkdir()
    (crasher / "bot.toml").write_text(MANIFEST.decode().replace("evil", "taken"))
    (crasher / "bot.py").write_text("import sys\nprint('alice was here', file=sys.stderr)\n")
    status, refused = arena.upload("alice", _packed(crasher, tmp_path))
    assert status == 422 and "/tmp/" not in refused["detail"]
    number = arena.client.get("/api/submissions", headers=arena.as_("alice")).json()[0]["id"]
    where = f"/api/submissions/{number}/logs"
    listed = arena.client.get(where, headers=arena.as_("alice")).json()
    assert listed and all(not entry["path"].startswith("/") for entry in listed)
    texts = [
        arena.client.get(f"{where}/{entry['path']}", headers=arena.as_("alice")).text
        for entry in listed
    ]
    assert any("alice was here" in text for text in texts)
    for path in (where, f"{where}/{listed[0]['path']}"):
        assert arena.client.get(path, headers=arena.as_("bob")).status_code == 403
        assert arena.client.get(path, headers=arena.as_("operator")).status_code == 200
    assert arena.client.get(
        f"{where}/../../../ladder.toml", headers=arena.as_("alice")
    ).status_code in (403, 404)
    assert (
        arena.client.get("/api/submissions/999/logs", headers=arena.as_("alice")).status_code == 404
    )
    arena.ladder.submit(RANDOM, "taken", author="bob", trust_bots=True)
    mine = arena.client.get("/api/bots/taken/logs", headers=arena.as_("bob")).json()
    assert mine == []


def test_only_an_admin_pauses_and_resumes_the_scheduler(arena: Arena) -> None:
    assert arena.client.get("/api/scheduler").json()["paused"] is False
    refused = arena.client.post("/api/scheduler/pause", headers=arena.as_("alice"))
    assert refused.status_code == 403 and "admin" in refused.json()["detail"]
    paused = arena.client.post("/api/scheduler/pause", headers=arena.as_("operator")).json()
    assert paused["paused"] and paused["changed_by"] == "operator"
    assert arena.client.get("/api/health").json()["scheduler_paused"] is True
    resumed = arena.client.post("/api/scheduler/resume", headers=arena.as_("operator")).json()
    assert resumed["paused"] is False


def test_the_health_check_answers_while_the_database_does(arena: Arena) -> None:
    answer = arena.client.get("/api/health")
    assert answer.status_code == 200 and answer.json()["database"] == "ok"
    (arena.ladder.folder / "ladder.db").unlink()
    gone = arena.client.get("/api/health")
    assert gone.status_code == 503 and "database" in gone.json()["detail"]


def test_a_folder_of_records_has_no_service(tmp_path: Path) -> None:
    app = create_app(FolderSource(tmp_path))
    enable_service(app)
    answer = TestClient(app).get("/api/health")
    assert answer.status_code == 404 and "not a ladder" in answer.json()["detail"]


def test_the_openapi_description_declares_the_upload_body_and_every_answer(
    arena: Arena, tmp_path: Path
) -> None:
    upload = arena.client.get("/api/openapi.json").json()["paths"]["/api/submissions"]["post"]
    body = upload["requestBody"]  # none before: clients and the fuzzer saw no body
    assert body["required"] is True
    ((content_type, media),) = body["content"].items()
    assert media["schema"] == {"type": "string", "format": "binary"}
    verdict = {"$ref": "#/components/schemas/VerdictOut"}
    answers = upload["responses"]
    assert [
        answers[status]["content"]["application/json"]["schema"] for status in ("200", "201")
    ] == [verdict] * 2
    refusals = ("400", "401", "403", "413", "422", "429", "503", "507")
    assert all(
        answers[status]["content"]["application/json"]["schema"] != verdict for status in refusals
    )
    headers = {**arena.as_("alice"), "Content-Type": content_type}
    sent = arena.client.post("/api/submissions", content=_packed(GREEDY, tmp_path), headers=headers)
    assert sent.status_code == 201
