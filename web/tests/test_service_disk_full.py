"""A full disk while an upload is received, unpacked or smoke-tested: a one-line 507, no
scratch left behind, and the server takes the next upload once there is room.

The ladder folder sits on a tmpfs of a few MiB mounted for the test (only root may mount
one; elsewhere the tests skip and say so), so the disk that fills is a real one.
"""

from __future__ import annotations

import io
import os
import subprocess
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from pitch_ladder.archive import pack
from pitch_ladder.authors import add_author
from pitch_ladder.ladder import Ladder
from pitch_referee.sandbox import unavailable_reason
from pitch_sdk import reference
from pitch_web import create_app
from pitch_web.routes.service import ServiceSettings, close_service, enable_service
from pitch_web.source import LadderSource

RANDOM = reference.folder("random")
DISK = 6 * 2**20
LOUD = """import sys
from pitch_sdk.bots import RandomBot
from pitch_sdk.run import run

sys.stderr.write("x" * 2**20)
sys.stderr.flush()
run(RandomBot())
"""
"""A bot that plays legally after writing 1 MiB to stderr: its smoke test's log fills the disk."""


class FullDisk:
    """A ladder served on a small tmpfs, and a file that takes all but ``free`` bytes of it."""

    def __init__(self, disk: Path) -> None:
        Ladder.init(disk / "ladder").close()
        self.disk = disk
        self.source = LadderSource(disk / "ladder")
        self.token = add_author(self.source.ladder, "alice").token
        self.app = create_app(self.source)
        enable_service(self.app, ServiceSettings())
        self.client = TestClient(self.app, raise_server_exceptions=False)
        self.scratch = self.source.ladder.folder / "tmp"
        self.filler = disk / "filler"

    def fill(self, free: int) -> None:
        """Take the disk's space but ``free`` bytes (with nothing to free: none at all)."""
        self.filler.unlink(missing_ok=True)
        status = os.statvfs(self.disk)
        self.filler.write_bytes(bytes(max(0, status.f_bavail * status.f_frsize - free)))

    def upload(self, body: bytes) -> tuple[int, dict, str]:
        answer = self.client.post(
            "/api/submissions", content=body, headers={"Authorization": f"Bearer {self.token}"}
        )
        return answer.status_code, answer.json(), answer.headers.get("retry-after", "")

    def close(self) -> None:
        close_service(self.app)
        self.source.close()


@pytest.fixture
def full_disk(tmp_path: Path) -> Iterator[FullDisk]:
    reason = unavailable_reason()
    if reason is not None:
        if os.environ.get("PITCH_REQUIRE_SANDBOX"):
            pytest.fail(f"the sandbox must run here: {reason}")
        pytest.skip(reason)
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={DISK}", "tmpfs", str(disk)],
        capture_output=True,
        text=True,
    )
    if mounted.returncode != 0:
        pytest.skip(f"a tmpfs cannot be mounted here (root only): {mounted.stderr.strip()}")
    try:
        arena = FullDisk(disk)
        try:
            yield arena
        finally:
            arena.close()
    finally:
        subprocess.run(["umount", "--lazy", str(disk)], check=True)


def _archive(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _bot(name: str, code: str) -> dict[str, bytes]:
    manifest = f'name = "{name}"\nversion = "1"\ncommand = ["python", "bot.py"]\n'
    return {"bot.toml": manifest.encode(), "bot.py": code.encode()}


def _random_bot(tmp_path: Path) -> bytes:
    pack(RANDOM, tmp_path / "random.tar.gz")
    return (tmp_path / "random.tar.gz").read_bytes()


UPLOADS = {
    "received": (16 * 2**10, _archive({"noise": os.urandom(256 * 2**10)})),
    "unpacked": (2 * 2**20, _archive({**_bot("zeros", ""), "zeros": bytes(8 * 2**20)})),
    "smoke-tested": (256 * 2**10, _archive(_bot("loud", LOUD))),
}
"""Each upload, and the bytes left free on the disk when it comes: too few for its body, its
files unpacked, or its smoke test's log."""


@pytest.mark.slow
@pytest.mark.parametrize("stage", list(UPLOADS))
def test_a_full_disk_is_a_one_line_507_that_leaves_no_scratch_and_the_server_fine(
    full_disk: FullDisk, tmp_path: Path, stage: str
) -> None:
    free, body = UPLOADS[stage]
    full_disk.fill(free)
    status, answer, retry_after = full_disk.upload(body)  # a 500 before
    assert status == 507, answer
    assert answer["detail"].startswith("the server's disk is full")
    assert "\n" not in answer["detail"] and str(full_disk.disk) not in answer["detail"]
    assert int(retry_after) > 0
    assert [path.name for path in full_disk.scratch.iterdir() if "upload-" in path.name] == []
    assert (
        full_disk.client.get(
            "/api/submissions", headers={"Authorization": f"Bearer {full_disk.token}"}
        ).json()
        == []
    )  # nothing of the bot's fault is kept: it is the server's
    full_disk.filler.unlink()
    status, answer, _ = full_disk.upload(_random_bot(tmp_path))
    assert (status, answer["bot"]) == (201, "random")
