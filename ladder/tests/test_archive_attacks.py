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


def _write(
    path: Path,
    entries: Iterable[Entry],
    *,
    with_manifest: bool = True,
    format: int = tarfile.PAX_FORMAT,
) -> Path:
    """A .tar.gz of the entries (bot.toml first, unless told otherwise), exactly as given
    (a name's lone surrogates are written as the bytes they stand for)."""
    with tarfile.open(
        path, "w:gz", format=format, encoding="utf-8", errors="surrogateescape"
    ) as archive:
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
    assert message == (
        "refused: f09.py: more than 10 files and folders in the archive (each folder its "
        "paths imply counts)"
    )


def test_every_folder_a_path_implies_counts_as_an_entry(tmp_path: Path) -> None:
    # 3 entries, 30 folders: "r0/d1/.../d9/f.py" makes r0 and 9 folders under it.
    paths = [
        "/".join([f"r{root}", *(f"d{depth}" for depth in range(1, 10)), "f.py"])
        for root in range(3)
    ]
    archive = _write(tmp_path / "a.tar.gz", [_file(path) for path in paths])
    message = _refused(tmp_path, archive, ArchiveLimits(max_entries=20))
    assert message.startswith(f"refused: {paths[1]}: more than 20 files and folders")


def test_a_small_archive_cannot_make_more_folders_than_the_entry_limit(tmp_path: Path) -> None:
    # The attack that stored 16,040 folders from 1,260 bytes, within the depth limit: 20
    # files, each 31 folders deep, are 640 files and folders (a 300 limit keeps it quick).
    paths = ["/".join([*(f"{root}-{depth}" for depth in range(31)), "x"]) for root in range(20)]
    archive = _write(tmp_path / "a.tar.gz", [_file(path) for path in paths])
    assert archive.stat().st_size < 5_000
    message = _refused(tmp_path, archive, ArchiveLimits(max_entries=300))
    assert message.startswith(f"refused: {paths[9][:120]}...: more than 300 files and folders")


def test_folder_entries_and_the_folders_they_imply_count_once(tmp_path: Path) -> None:
    entries = [_special("lib/", tarfile.DIRTYPE), _file("lib/a.py"), _file("lib/b.py")]
    archive = _write(tmp_path / "a.tar.gz", entries)  # bot.toml, lib, lib/a.py, lib/b.py
    unpack(archive, tmp_path / "exactly", ArchiveLimits(max_entries=4))
    with pytest.raises(ArchiveError, match=r"lib/b\.py: more than 3 files and folders"):
        unpack(archive, tmp_path / "one-less", ArchiveLimits(max_entries=3))


def test_a_file_1100_folders_deep_is_refused_on_one_line(tmp_path: Path) -> None:
    name = "a/" * 1100 + "bot.py"
    archive = _write(tmp_path / "a.tar.gz", [_file(name)])
    message = _refused(tmp_path, archive)
    assert message == f"refused: {name[:120]}...: 1,101 names deep, over the limit of 32"


def test_a_path_at_the_depth_limit_unpacks_and_one_deeper_is_refused(tmp_path: Path) -> None:
    name = "d/" * 31 + "bot.py"  # 32 names
    unpack(_write(tmp_path / "ok.tar.gz", [_file(name)]), tmp_path / "ok")
    assert (tmp_path / "ok" / name).is_file()
    deeper = _write(tmp_path / "a.tar.gz", [_file("d/" + name)])
    assert _refused(tmp_path, deeper).endswith(": 33 names deep, over the limit of 32")


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("a" * 256, "a name of 256 bytes, over the limit of 255"),
        ("é" * 128, "a name of 256 bytes, over the limit of 255"),  # UTF-8 bytes, not letters
        ("/".join(["d" * 100] * 10) + "/xx.py", "a path of 1,015 bytes, over the limit of 1,000"),
    ],
    ids=["ascii", "utf-8", "path"],
)
def test_a_name_or_path_over_its_length_limit_is_refused(
    tmp_path: Path, name: str, reason: str
) -> None:
    archive = _write(tmp_path / "a.tar.gz", [_file(name)])
    limits = ArchiveLimits(max_path_bytes=1_000)
    assert _refused(tmp_path, archive, limits).endswith(f": {reason}")


@pytest.mark.parametrize("format", [tarfile.GNU_FORMAT, tarfile.PAX_FORMAT], ids=["gnu", "pax"])
def test_a_name_that_is_not_utf8_is_refused_with_its_bytes_escaped(
    tmp_path: Path, format: int
) -> None:
    archive = _write(tmp_path / "a.tar.gz", [_file("lib/caf\udce9.py")], format=format)
    assert _refused(tmp_path, archive) == "refused: lib/caf\\xe9.py: a name that is not UTF-8"


@pytest.mark.parametrize("name", ["clear\x1b[2J.py", "two\nlines.py", "bell\x07"])
def test_a_name_with_a_control_character_is_refused_with_it_escaped(
    tmp_path: Path, name: str
) -> None:
    archive = _write(tmp_path / "a.tar.gz", [_file(name)])
    shown = name.encode("unicode_escape").decode().replace("\\n", "\\x0a")
    assert _refused(tmp_path, archive) == f"refused: {shown}: a name with a control character"


@pytest.mark.parametrize(
    "limits", [{"max_depth": 0}, {"max_depth": 257}, {"max_entries": 0}, {"max_path_bytes": -1}]
)
def test_limits_out_of_range_are_refused(limits: dict[str, int]) -> None:
    with pytest.raises(ValueError, match="must be at"):
        ArchiveLimits(**limits)


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
    limits = ArchiveLimits(max_name_bytes=1_000)  # past the limits: the file system refuses
    shown = f"{name[:120]}..."
    assert _refused(tmp_path, archive, limits) == f"refused: {shown}: {reason} (File name too long)"


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
