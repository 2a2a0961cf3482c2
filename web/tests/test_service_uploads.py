"""Uploads that once answered 500 or stored megabytes: each is now a one-line 422 whose
verdict is kept small, and nothing of it is left in the ladder's scratch folder."""

from __future__ import annotations

import io
import os
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from pitch_ladder.archive import pack
from pitch_ladder.authors import add_author
from pitch_ladder.ladder import Ladder
from pitch_ladder.submissions import REASON_BYTES
from pitch_referee.errors import PitchError
from pitch_referee.sandbox import unavailable_reason
from pitch_sdk import reference
from pitch_web import create_app
from pitch_web.routes.service import ServiceSettings, enable_service
from pitch_web.settings import ServeSettings
from pitch_web.source import LadderSource

RANDOM = reference.folder("random")
MANIFEST = b'name = "evil"\nversion = "1"\ncommand = ["python", "bot.py"]\n'
FLOODER = """import sys
for _ in range(3):
    sys.stderr.write("\\x1b]0;owned\\x07" + "x" * 3 * 2**20 + "\\n")
sys.exit(1)
"""
"""A ~100-byte bot that writes three 3 MiB lines to stderr and stops before its hello."""


class Arena:
    def __init__(self, folder: Path) -> None:
        self.source = LadderSource(folder)
        self.token = add_author(self.source.ladder, "alice").token
        app = create_app(self.source)
        enable_service(app, ServiceSettings())
        self.client = TestClient(app)
        self.scratch = self.source.ladder.folder / "tmp"

    def upload(self, body: bytes) -> tuple[int, dict]:
        answer = self.client.post(
            "/api/submissions", content=body, headers={"Authorization": f"Bearer {self.token}"}
        )
        return answer.status_code, answer.json()

    def verdicts(self) -> list[dict]:
        headers = {"Authorization": f"Bearer {self.token}"}
        return self.client.get("/api/submissions", headers=headers).json()


@pytest.fixture
def arena(tmp_path: Path) -> Iterator[Arena]:
    Ladder.init(tmp_path / "ladder").close()
    arena = Arena(tmp_path / "ladder")
    yield arena
    arena.source.close()


def _crafted(name: str) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(
        fileobj=buffer, mode="w:gz", format=tarfile.GNU_FORMAT, errors="surrogateescape"
    ) as archive:
        for entry, data in (("bot.toml", MANIFEST), (name, b"x")):
            info = tarfile.TarInfo(entry)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("a/" * 1100 + "bot.py", "1,101 names deep, over the limit of 32"),
        ("caf\udce9.py", "refused: caf\\xe9.py: a name that is not UTF-8"),
    ],
    ids=["1100-deep", "not-utf-8"],
)
def test_a_malformed_archive_is_a_422_with_one_line_and_leaves_no_scratch(
    arena: Arena, name: str, reason: str
) -> None:
    status, answer = arena.upload(_crafted(name))  # a 500 before: RecursionError, UnicodeError
    assert status == 422
    assert answer["detail"].endswith(reason) and "\n" not in answer["detail"]
    assert [verdict["reason"] for verdict in arena.verdicts()] == [answer["detail"]]
    assert list(arena.scratch.iterdir()) == []


def test_serving_a_ladder_sweeps_the_scratch_a_killed_server_left(tmp_path: Path) -> None:
    Ladder.init(tmp_path / "ladder").close()
    left = tmp_path / "ladder" / "tmp" / "upload-0123456789abcdef"
    (left / "bot" / "lib").mkdir(parents=True)
    (left / "bot" / "lib" / "weights.bin").write_bytes(bytes(1000))
    (tmp_path / "ladder" / "tmp" / "submit-greedy.lock").write_text("")
    arena = Arena(tmp_path / "ladder")
    try:
        assert [path.name for path in arena.scratch.iterdir()] == ["submit-greedy.lock"]
    finally:
        arena.source.close()


@pytest.mark.slow
def test_a_bot_flooding_stderr_is_refused_with_a_reason_of_a_few_kilobytes(
    arena: Arena, tmp_path: Path
) -> None:
    reason = unavailable_reason()
    if reason is not None:
        if os.environ.get("PITCH_REQUIRE_SANDBOX"):
            pytest.fail(f"the sandbox must run here: {reason}")
        pytest.skip(reason)
    bot = tmp_path / "flooder"
    bot.mkdir()
    (bot / "bot.toml").write_text(
        'name = "flooder"\nversion = "1"\ncommand = ["python", "bot.py"]\n'
    )
    (bot / "bot.py").write_text(FLOODER)
    pack(bot, tmp_path / "flooder.tar.gz")
    status, answer = arena.upload((tmp_path / "flooder.tar.gz").read_bytes())
    assert status == 422
    detail = answer["detail"]
    assert "did not finish a one-hand game" in detail  # refused in the sandbox's smoke game
    assert len(detail.encode()) <= REASON_BYTES  # 9.4 MB before
    tail = [line for line in detail.splitlines() if line.startswith("  | ")]
    # The smoke game's log budget keeps the first 512 KiB of the first 3 MiB line; its tail
    # is that line, cut, and the referee's note that the rest was dropped.
    assert tail[0].endswith(" more bytes]") and all(len(line) < 300 for line in tail)
    assert "log truncated" in tail[-1]
    listed = arena.client.get(
        "/api/submissions", headers={"Authorization": f"Bearer {arena.token}"}
    )
    assert len(listed.content) < 2 * REASON_BYTES


def test_the_settings_file_sets_the_path_limits_and_refuses_one_out_of_range(
    tmp_path: Path,
) -> None:
    config = tmp_path / "arena.toml"
    config.write_text("[uploads]\nmax_depth = 8\nmax_name_bytes = 100\nmax_path_bytes = 400\n")
    limits = ServeSettings.load(config).uploads
    assert (limits.max_depth, limits.max_name_bytes, limits.max_path_bytes) == (8, 100, 400)
    config.write_text("[uploads]\nmax_depth = 100000\n")
    with pytest.raises(PitchError) as refusal:
        ServeSettings.load(config)
    assert str(refusal.value) == f"{config}: [uploads]: max_depth must be at most 256"


@pytest.mark.slow
def test_an_upload_under_a_name_like_another_bots_is_a_422_naming_it(
    arena: Arena, tmp_path: Path
) -> None:
    arena.source.ladder.submit(RANDOM, "Random", trust_bots=True)  # the local author's
    pack(RANDOM, tmp_path / "random.tar.gz")  # its bot.toml says "random"
    status, answer = arena.upload((tmp_path / "random.tar.gz").read_bytes())
    assert status == 422
    assert answer["detail"].startswith(
        "refused: the bot name 'random' is taken: the ladder has 'Random'"
    )
    assert [bot["name"] for bot in arena.client.get("/api/bots").json()] == ["Random"]
