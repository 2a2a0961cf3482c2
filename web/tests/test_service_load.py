"""Many authors submitting while many viewers read, over real HTTP on loopback: every
upload gets its verdict, every bot is stored once, and the API keeps answering."""

from __future__ import annotations

import json
import shutil
import threading
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from pitch_ladder.archive import pack
from pitch_ladder.authors import add_author
from pitch_ladder.ladder import Ladder
from pitch_sdk import reference
from pitch_testkit.processes import post_upload, start, stop

pytestmark = pytest.mark.slow
RANDOM = reference.folder("random")
AUTHORS = 4
READS = 60


def _bot(tmp_path: Path, number: int) -> bytes:
    """The random bot under a name of its own, packed."""
    folder = tmp_path / f"bot{number}"
    shutil.copytree(RANDOM, folder, ignore=shutil.ignore_patterns("__pycache__"))
    manifest = folder / "bot.toml"
    manifest.write_text(manifest.read_text().replace('name = "random"', f'name = "bot{number}"'))
    out = tmp_path / f"bot{number}.tar.gz"
    pack(folder, out)
    return out.read_bytes()


def _read(address: str, path: str) -> int:
    with urllib.request.urlopen(f"{address}{path}", timeout=60) as answer:
        answer.read()
        return answer.status


def test_concurrent_uploads_and_readers_lose_nothing_and_the_api_keeps_answering(
    tmp_path: Path, db_url: str
) -> None:
    folder = tmp_path / "ladder"
    with Ladder.init(folder, db_url) as ladder:
        tokens = [add_author(ladder, f"author{n}").token for n in range(AUTHORS)]
    uploads = [_bot(tmp_path, n) for n in range(AUTHORS)]
    process, address = start(
        "serve", "--ladder", folder, "--db", db_url, "--port", "0", "--no-scheduler"
    )
    try:
        reading = threading.Event()
        with ThreadPoolExecutor(max_workers=AUTHORS + 4) as pool:
            verdicts = [
                pool.submit(post_upload, address, tokens[n], uploads[n], 300)
                for n in range(AUTHORS)
            ] + [
                pool.submit(post_upload, address, tokens[0], uploads[0], 300)
            ]  # the same one twice

            def reader(path: str) -> list[int]:
                statuses = []
                for _ in range(READS // 4):
                    statuses.append(_read(address, path))
                reading.set()
                return statuses

            reads = [
                pool.submit(reader, path) for path in ("api/standings", "api/bots", "api/games", "")
            ]
            answered = [future.result() for future in verdicts]
            read_statuses = [status for future in reads for status in future.result()]
        assert reading.is_set()
        assert all(status == 200 for status in read_statuses)
        statuses = sorted(status for status, _ in answered)
        assert statuses == [200] + [201] * AUTHORS, "the same upload twice: stored once"
        assert all(verdict["accepted"] for _, verdict in answered), answered
        bots = json.loads(urllib.request.urlopen(f"{address}api/bots", timeout=30).read())
        assert sorted(bot["name"] for bot in bots) == [f"bot{n}" for n in range(AUTHORS)]
    finally:
        code, _, err = stop(process)
    assert code == 0 and "Traceback" not in err
