"""Bot archives, the happy path: a packed folder unpacks to the same content hash the
ladder's submit computes; packing is reproducible; archives from ``tar`` unpack too."""

from __future__ import annotations

import io
import re
import tarfile
from pathlib import Path

import pytest

from pitch_ladder.archive import ArchiveError, ArchiveLimits, pack, unpack
from pitch_ladder.errors import LadderError
from pitch_ladder.submit import content_hash
from pitch_testkit.ladder import GREEDY, write_bot


def _bot_with_subfolders(folder: Path) -> Path:
    bot = write_bot(folder, "nested", "print('hello')\n")
    (bot / "lib" / "deep").mkdir(parents=True)
    (bot / "lib" / "deep" / "weights.bin").write_bytes(bytes(range(256)) * 10)
    (bot / "lib" / "empty.txt").write_text("")
    (bot / "run.sh").write_text("#!/bin/sh\nexec python bot.py\n")
    (bot / "run.sh").chmod(0o755)
    (bot / "__pycache__").mkdir()
    (bot / "__pycache__" / "bot.cpython-311.pyc").write_bytes(b"\0")
    return bot


def test_a_packed_bot_unpacks_to_the_content_hash_of_its_folder(tmp_path: Path) -> None:
    bot = _bot_with_subfolders(tmp_path / "bot")
    archive = tmp_path / "bot.tar.gz"
    size = pack(bot, archive)
    manifest = unpack(archive, tmp_path / "unpacked")
    unpacked = tmp_path / "unpacked"
    assert size == archive.stat().st_size
    assert manifest.name == "nested" and manifest.folder == unpacked.resolve()
    assert content_hash(unpacked) == content_hash(bot)
    assert not (unpacked / "__pycache__").exists()  # what the hash ignores is not packed
    assert (unpacked / "run.sh").stat().st_mode & 0o777 == 0o755
    assert (unpacked / "bot.py").stat().st_mode & 0o777 == 0o644


def test_a_sample_bot_round_trips_through_a_stream(tmp_path: Path) -> None:
    archive = tmp_path / "greedy.tar.gz"
    pack(GREEDY, archive)
    unpack(io.BytesIO(archive.read_bytes()), tmp_path / "unpacked")
    assert content_hash(tmp_path / "unpacked") == content_hash(GREEDY)


def test_packing_the_same_folder_twice_gives_the_same_bytes(tmp_path: Path) -> None:
    bot = _bot_with_subfolders(tmp_path / "bot")
    pack(bot, tmp_path / "first.tar.gz")
    (bot / "bot.py").touch()  # a newer time changes nothing: times are not packed
    pack(bot, tmp_path / "second.tar.gz")
    assert (tmp_path / "first.tar.gz").read_bytes() == (tmp_path / "second.tar.gz").read_bytes()


def test_an_archive_made_by_tar_with_folder_entries_unpacks(tmp_path: Path) -> None:
    bot = _bot_with_subfolders(tmp_path / "bot")
    archive = tmp_path / "by-tar.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(bot, arcname=".")  # "./", "./lib/", "./lib/deep/weights.bin", ...
    unpack(archive, tmp_path / "unpacked")
    assert content_hash(tmp_path / "unpacked") == content_hash(bot)


def test_packing_refuses_a_folder_with_a_symbolic_link(tmp_path: Path) -> None:
    bot = write_bot(tmp_path / "bot", "linked", "")
    (bot / "again.py").symlink_to("bot.py")
    with pytest.raises(LadderError, match=r"again.py in .* is a symbolic link"):
        pack(bot, tmp_path / "bot.tar.gz")
    assert not (tmp_path / "bot.tar.gz").exists()


def test_packing_refuses_a_folder_without_a_manifest(tmp_path: Path) -> None:
    (tmp_path / "bot").mkdir()
    with pytest.raises(LadderError, match=re.escape("bot.toml: missing")):
        pack(tmp_path / "bot", tmp_path / "bot.tar.gz")


def test_packing_refuses_what_unpacking_would_refuse(tmp_path: Path) -> None:
    bot = _bot_with_subfolders(tmp_path / "bot")
    out = tmp_path / "bot.tar.gz"
    with pytest.raises(
        ArchiveError, match="has 5 files in 2 folders; an archive may hold at most 6"
    ):
        pack(bot, out, ArchiveLimits(max_entries=6))
    with pytest.raises(ArchiveError, match=r"come to [0-9,]+ bytes, over the limit of 100"):
        pack(bot, out, ArchiveLimits(max_unpacked_bytes=100))
    with pytest.raises(ArchiveError, match=r"is [0-9,]+ bytes, over the limit of 200"):
        pack(bot, out, ArchiveLimits(max_archive_bytes=200))
    assert not out.exists()


def test_packing_refuses_a_path_that_unpacking_would_refuse(tmp_path: Path) -> None:
    bot = _bot_with_subfolders(tmp_path / "bot")
    with pytest.raises(
        ArchiveError, match=r"lib/deep/weights\.bin: 3 names deep, over the limit of 2"
    ):
        pack(bot, tmp_path / "bot.tar.gz", ArchiveLimits(max_depth=2))
    assert not (tmp_path / "bot.tar.gz").exists()


def test_the_default_limits_are_the_documented_ones() -> None:
    limits = ArchiveLimits()
    assert limits.max_archive_bytes == 50 * 2**20
    assert limits.max_entries == 5_000
    assert limits.max_unpacked_bytes == 200 * 2**20
    assert limits.max_header_bytes == 64 * 2**10
    assert (limits.max_depth, limits.max_name_bytes, limits.max_path_bytes) == (32, 255, 1024)
    docs = Path(__file__).parents[2] / "docs"
    for page in ("authors.md", "deployment.md"):
        documented = (docs / page).read_text()
        for name in ("max_depth", "max_name_bytes", "max_path_bytes"):
            assert f"`{name}`" in documented, (page, name)
    documented = (docs / "authors.md").read_text()
    for line in (
        "50 MiB",
        "5,000",
        "200 MiB",
        "64 KiB",
        "| 32 |",
        "| 255 bytes |",
        "| 1,024 bytes |",
    ):
        assert line in documented


def test_unpacking_a_missing_archive_file_says_so(tmp_path: Path) -> None:
    with pytest.raises(ArchiveError, match="no such archive"):
        unpack(tmp_path / "nowhere.tar.gz", tmp_path / "unpacked")
    assert not (tmp_path / "unpacked").exists()
