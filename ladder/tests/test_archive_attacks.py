"""Crafted bot archives that must be refused, each with one line naming the file, leaving
nothing behind: not in the destination, not anywhere else."""

from __future__ import annotations

import io
import tarfile
from collections.abc import Iterable
from pathlib import Path

import pytest

from pitch_ladder.archive import ArchiveError, ArchiveLimits, unpack

MANIFEST = b'name = "evil"\nversion = "1"\ncommand = ["python", "bot.py"]\n'

Entry = tuple[tarfile.TarInfo, bytes]


def _file(name: str, data: bytes = b"x", **fields: object) -> Entry:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    for field, value in fields.items():
        setattr(info, field, value)
    return info, data


def _special(name: str, kind: bytes, linkname: str = "") -> Entry:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = linkname
    return info, b""


def _write(path: Path, entries: Iterable[Entry], *, with_manifest: bool = True) -> Path:
    """A .tar.gz of the entries (bot.toml first, unless told otherwise), exactly as given."""
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as archive:
        if with_manifest:
            info, data = _file("bot.toml", MANIFEST)
            archive.addfile(info, io.BytesIO(data))
        for info, data in entries:
            archive.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return path


def _everything(folder: Path) -> set[Path]:
    return set(folder.rglob("*"))


def _refused(tmp_path: Path, archive: Path, limits: ArchiveLimits | None = None) -> str:
    """Unpack ``archive``: it must be refused on one line and change nothing in ``tmp_path``."""
    before = _everything(tmp_path)
    destination = tmp_path / "unpacked"
    with pytest.raises(ArchiveError) as refusal:
        unpack(archive, destination, limits or ArchiveLimits())
    message = str(refusal.value)
    assert "\n" not in message and message.startswith("refused: ")
    assert _everything(tmp_path) == before  # the destination included: nothing behind
    return message


@pytest.mark.parametrize("name", ["../evil.py", "data/../../evil.py", "./../evil.py"])
def test_a_path_leading_out_with_dot_dot_is_refused(tmp_path: Path, name: str) -> None:
    archive = _write(tmp_path / "a.tar.gz", [_file(name)])
    assert _refused(tmp_path, archive) == f"refused: {name}: a path out of the bot folder (..)"


def test_an_absolute_path_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "outside" / "evil.py"
    archive = _write(tmp_path / "a.tar.gz", [_file(str(target))])
    message = _refused(tmp_path, archive)
    assert message == f"refused: {target}: an absolute path"


@pytest.mark.parametrize(
    ("name", "target"),
    [
        ("passwd", "/etc/passwd"),  # absolute
        ("up", "../outside"),  # out of the folder
        ("again.py", "bot.toml"),  # inside: refused all the same, as `ladder submit` does
    ],
)
def test_a_symbolic_link_is_refused_naming_where_it_leads(
    tmp_path: Path, name: str, target: str
) -> None:
    archive = _write(tmp_path / "a.tar.gz", [_special(name, tarfile.SYMTYPE, target)])
    assert _refused(tmp_path, archive) == (
        f"refused: {name}: a symbolic link (to {target}); a bot archive holds only the "
        "bot's own files and folders"
    )


def test_a_file_written_through_a_symbolic_link_never_lands_outside(tmp_path: Path) -> None:
    (tmp_path / "outside").mkdir()
    entries = [_special("door", tarfile.SYMTYPE, "../outside"), _file("door/evil.py")]
    archive = _write(tmp_path / "a.tar.gz", entries)
    assert _refused(tmp_path, archive).startswith("refused: door: a symbolic link")
    assert not (tmp_path / "outside" / "evil.py").exists()


@pytest.mark.parametrize("target", ["../../etc/passwd", "/etc/passwd", "bot.toml"])
def test_a_hard_link_is_refused(tmp_path: Path, target: str) -> None:
    archive = _write(tmp_path / "a.tar.gz", [_special("hard", tarfile.LNKTYPE, target)])
    assert _refused(tmp_path, archive).startswith(f"refused: hard: a hard link (to {target})")


@pytest.mark.parametrize(
    ("kind", "what"),
    [
        (tarfile.CHRTYPE, "a character device"),
        (tarfile.BLKTYPE, "a block device"),
        (tarfile.FIFOTYPE, "a fifo"),
    ],
)
def test_a_device_or_fifo_is_refused(tmp_path: Path, kind: bytes, what: str) -> None:
    archive = _write(tmp_path / "a.tar.gz", [_special("dev/thing", kind)])
    assert _refused(tmp_path, archive).startswith(f"refused: dev/thing: {what}; ")


def test_a_sparse_file_is_refused(tmp_path: Path) -> None:
    info, data = _file("holes.bin")
    info.pax_headers = {"GNU.sparse.map": "0,1", "GNU.sparse.size": "1000000000"}
    archive = _write(tmp_path / "a.tar.gz", [(info, data)])
    assert _refused(tmp_path, archive).startswith("refused: holes.bin: a sparse file; ")


def test_an_archive_over_the_size_limit_is_refused_from_a_file(tmp_path: Path) -> None:
    archive = _write(tmp_path / "a.tar.gz", [_file("noise.bin", bytes(range(256)) * 64)])
    limit = archive.stat().st_size - 1
    message = _refused(tmp_path, archive, ArchiveLimits(max_archive_bytes=limit))
    assert message.startswith(f"refused: the archive is over the limit of {limit:,} bytes")


def test_an_archive_over_the_size_limit_is_refused_from_a_stream_as_it_is_read(
    tmp_path: Path,
) -> None:
    archive = _write(tmp_path / "a.tar.gz", [_file("noise.bin", bytes(range(256)) * 64)])
    limit = archive.stat().st_size - 1
    before = _everything(tmp_path)
    with pytest.raises(ArchiveError, match=f"over the limit of {limit:,} bytes"):
        unpack(io.BytesIO(archive.read_bytes()), tmp_path / "u", ArchiveLimits(limit))
    assert _everything(tmp_path) == before


def test_more_entries_than_allowed_are_refused_naming_the_first_one_over(tmp_path: Path) -> None:
    archive = _write(tmp_path / "a.tar.gz", [_file(f"f{number:02}.py") for number in range(12)])
    message = _refused(tmp_path, archive, ArchiveLimits(max_entries=10))
    assert message == "refused: f09.py: more than 10 files and folders in the archive"


def test_a_decompression_bomb_is_refused_while_it_unpacks(tmp_path: Path) -> None:
    bomb = bytes(20 * 2**20)  # 20 MiB of zeros: a few kilobytes compressed
    archive = _write(tmp_path / "a.tar.gz", [_file("data/zeros.bin", bomb)])
    assert archive.stat().st_size < 100_000
    message = _refused(tmp_path, archive, ArchiveLimits(max_unpacked_bytes=2**20))
    assert message == (
        "refused: data/zeros.bin: unpacks past the limit of 1,048,576 bytes in all "
        "(a decompression bomb?)"
    )


def test_many_small_files_past_the_unpacked_limit_are_refused_at_the_one_that_crosses_it(
    tmp_path: Path,
) -> None:
    files = [_file(f"part{number}.bin", bytes(300_000)) for number in range(5)]
    archive = _write(tmp_path / "a.tar.gz", files)
    message = _refused(tmp_path, archive, ArchiveLimits(max_unpacked_bytes=1_000_000))
    assert message.startswith("refused: part3.bin: unpacks past the limit of 1,000,000 bytes")


def test_a_huge_header_is_refused_before_it_is_read_into_memory(tmp_path: Path) -> None:
    info, data = _file("bot.py")
    info.pax_headers = {"comment": "x" * (4 * 2**20)}  # a 4 MiB header, compressed to little
    archive = _write(tmp_path / "a.tar.gz", [(info, data)])
    message = _refused(tmp_path, archive)
    assert message == (
        "refused: the header of the entry after bot.toml is over the limit of 65,536 bytes "
        "(a decompression bomb?)"
    )


def test_an_entry_given_twice_is_refused(tmp_path: Path) -> None:
    archive = _write(tmp_path / "a.tar.gz", [_file("bot.py", b"1"), _file("bot.py", b"2")])
    assert _refused(tmp_path, archive) == "refused: bot.py: in the archive twice"


def test_a_file_where_a_folder_is_is_refused(tmp_path: Path) -> None:
    archive = _write(tmp_path / "a.tar.gz", [_file("lib"), _file("lib/helper.py")])
    assert _refused(tmp_path, archive) == (
        "refused: lib/helper.py: lib is a file in the archive, not a folder"
    )


@pytest.mark.parametrize(
    ("name", "reason"),
    [("a" * 300, "cannot be written"), (f"{'d' * 300}/bot.py", "cannot be made")],
)
def test_a_name_the_file_system_cannot_take_is_refused(
    tmp_path: Path, name: str, reason: str
) -> None:
    archive = _write(tmp_path / "a.tar.gz", [_file(name)])
    assert _refused(tmp_path, archive) == f"refused: {name}: {reason} (File name too long)"


def test_an_archive_without_a_manifest_is_refused(tmp_path: Path) -> None:
    archive = _write(tmp_path / "a.tar.gz", [_file("bot.py")], with_manifest=False)
    assert _refused(tmp_path, archive) == (
        "refused: bot.toml: missing; the archive must hold the bot folder's files, "
        "bot.toml at its top"
    )


def test_an_archive_with_a_broken_manifest_is_refused_naming_the_field(tmp_path: Path) -> None:
    manifest = _file("bot.toml", b'name = "evil"\nversion = "1"\n')
    archive = _write(tmp_path / "a.tar.gz", [manifest], with_manifest=False)
    assert _refused(tmp_path, archive).startswith("refused: bot.toml: field 'command' must be")


@pytest.mark.parametrize(
    "content",
    [b"", b"not an archive at all", b"\x1f\x8b\x08\x00garbage after a gzip magic"],
)
def test_something_that_is_no_tar_gz_is_refused(tmp_path: Path, content: bytes) -> None:
    archive = tmp_path / "a.tar.gz"
    archive.write_bytes(content)
    assert _refused(tmp_path, archive).startswith("refused: not a .tar.gz archive")


def test_a_truncated_archive_is_refused(tmp_path: Path) -> None:
    whole = _write(tmp_path / "whole.tar.gz", [_file("noise.bin", bytes(range(256)) * 400)])
    archive = tmp_path / "a.tar.gz"
    archive.write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])
    assert _refused(tmp_path, archive).startswith("refused: not a .tar.gz archive")


def test_an_existing_destination_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    archive = _write(tmp_path / "a.tar.gz", [_file("bot.py")])
    destination = tmp_path / "unpacked"
    destination.mkdir()
    (destination / "mine.txt").write_text("keep me")
    with pytest.raises(ArchiveError, match="exists already"):
        unpack(archive, destination)
    assert [path.name for path in destination.iterdir()] == ["mine.txt"]
