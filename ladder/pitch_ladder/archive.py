"""Bot archives: a bot folder packed for upload, and an uploaded one unpacked safely.

The format is a gzip-compressed tar (``.tar.gz``), for three reasons: it keeps a file's
executable bit (a compiled bot's command is its own binary; Python's ``zipfile`` drops
it), it can be read as a stream with no index to seek to (an upload is checked as it
arrives), and the standard library reads and writes it. ``pack`` makes the same bytes
from the same folder (sorted names, no times or owners), holding exactly the files that
the ladder's content hash covers (``submit.bot_files``), so an unpacked archive hashes
like its folder.

``unpack`` trusts nothing in the archive. It refuses, naming the entry: a path that is
absolute or has ``..``, any link (symbolic or hard, wherever it leads: a bot folder holds
its own files, as ``pitch ladder submit`` requires), devices, fifos and anything else
that is not a file or folder, an entry given twice, and a missing or broken
``bot.toml``. It counts as it reads: the compressed bytes (``max_archive_bytes``), the
entries (``max_entries``), the bytes written (``max_unpacked_bytes``, whatever the
headers say), and each entry's header bytes (``max_header_bytes``, so that a huge
header is refused before tar reads it into memory). It writes only into a destination
it creates, opening each file so that it cannot already exist or be a link, and a
refused archive leaves nothing behind.

Does not touch the database.
"""

from __future__ import annotations

import gzip
import os
import shutil
import tarfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from pitch_referee.errors import ManifestError
from pitch_referee.manifest import MANIFEST, BotManifest, load_manifest

from .errors import LadderError
from .submit import bot_files, read_manifest

_CHUNK = 64 * 1024
_LOOKAHEAD = 2 * tarfile.RECORDSIZE
"""What tar's stream reader may read ahead of the bytes it needs, at most."""
_KINDS = {
    tarfile.SYMTYPE: "a symbolic link",
    tarfile.LNKTYPE: "a hard link",
    tarfile.CHRTYPE: "a character device",
    tarfile.BLKTYPE: "a block device",
    tarfile.FIFOTYPE: "a fifo",
}
"""Entry types refused by name; every type but a file or folder is refused."""


@dataclass(frozen=True)
class ArchiveLimits:
    """What an archive may hold: the service's settings, with these defaults."""

    max_archive_bytes: int = 50 * 2**20
    """The archive as uploaded, compressed: 50 MiB."""
    max_entries: int = 5_000
    """Files and folders in the archive."""
    max_unpacked_bytes: int = 200 * 2**20
    """The files' bytes in all, once unpacked: 200 MiB."""
    max_header_bytes: int = 64 * 2**10
    """One entry's header, long names and extended (pax) headers included: 64 KiB."""


class ArchiveError(LadderError):
    """An archive refused (the reason names the entry), or a folder that cannot be packed."""


class _Metered:
    """A stream that may be read only as far as its budget, which the reader sets.

    Reading past the budget raises ``ArchiveError`` with the refusal set with it, having
    read at most one byte more: nothing larger than the budget is ever held in memory.
    """

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._left = 0
        self._refusal = ""

    def allow(self, budget: int, refusal: str) -> None:
        self._left, self._refusal = budget, refusal

    def read(self, size: int = -1) -> bytes:
        if size < 0 or size > self._left:
            size = self._left + 1
        data = self._stream.read(size)
        self._left -= len(data)
        if self._left < 0:
            raise ArchiveError(self._refusal)
        return data


def pack(folder: Path, out: Path, limits: ArchiveLimits | None = None) -> int:
    """Write the bot folder's files to the archive ``out``; returns its size in bytes.

    Packs what the ladder hashes and copies (no ``__pycache__``, no ``.pyc``), with only
    the executable bit of each file's mode.

    Raises:
        LadderError: a missing or broken ``bot.toml``, or a symbolic link in the folder.
        ArchiveError: the folder or its archive is over a limit that ``unpack`` would
            refuse (nothing is left at ``out`` then).
    """
    limits = limits or ArchiveLimits()
    folder = read_manifest(folder).folder
    files = list(bot_files(folder))
    if len(files) > limits.max_entries:
        raise ArchiveError(
            f"refused: {folder} has {len(files):,} files; an archive may hold at most "
            f"{limits.max_entries:,}"
        )
    total = sum((folder / relative).stat().st_size for relative in files)
    if total > limits.max_unpacked_bytes:
        raise ArchiveError(
            f"refused: the files of {folder} come to {total:,} bytes, over the limit of "
            f"{limits.max_unpacked_bytes:,}"
        )
    try:
        with (
            out.open("wb") as raw,
            gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0) as zipped,
            tarfile.open(fileobj=zipped, mode="w|", format=tarfile.PAX_FORMAT) as tar,
        ):
            for relative in files:
                _add(tar, folder / relative, relative.as_posix())
        size = out.stat().st_size
        if size > limits.max_archive_bytes:
            raise ArchiveError(
                f"refused: the archive of {folder} is {size:,} bytes, over the limit of "
                f"{limits.max_archive_bytes:,}"
            )
    except BaseException:
        out.unlink(missing_ok=True)
        raise
    return size


def _add(tar: tarfile.TarFile, path: Path, name: str) -> None:
    status = path.stat()
    info = tarfile.TarInfo(name)
    info.size = status.st_size
    info.mode = 0o755 if status.st_mode & 0o100 else 0o644
    with path.open("rb") as data:
        tar.addfile(info, data)


def unpack(
    archive: Path | BinaryIO, destination: Path, limits: ArchiveLimits | None = None
) -> BotManifest:
    """Unpack a bot archive into ``destination``, a new folder; returns its manifest.

    Args:
        archive: the archive's file, or a stream of it (an upload, read as it comes).
        destination: a new folder in an existing one; made here, and removed again when
            the archive is refused.

    Raises:
        ArchiveError: the archive is refused (the one-line reason names the entry), or
            there is no such archive file, or ``destination`` exists.
    """
    limits = limits or ArchiveLimits()
    if isinstance(archive, Path):
        try:
            stream = archive.open("rb")
        except FileNotFoundError:
            raise ArchiveError(f"{archive}: no such archive") from None
        with stream:
            if os.fstat(stream.fileno()).st_size > limits.max_archive_bytes:
                raise ArchiveError(_over_size(limits))
            return unpack(stream, destination, limits)
    try:
        destination.mkdir()
    except FileExistsError:
        raise ArchiveError(f"{destination} exists already: unpack into a new folder") from None
    try:
        _extract(archive, destination, limits)
        return _manifest(destination)
    except BaseException:
        shutil.rmtree(destination, ignore_errors=True)
        raise


def _over_size(limits: ArchiveLimits) -> str:
    return f"refused: the archive is over the limit of {limits.max_archive_bytes:,} bytes"


def _extract(stream: BinaryIO, destination: Path, limits: ArchiveLimits) -> None:
    compressed = _Metered(stream)
    compressed.allow(limits.max_archive_bytes, _over_size(limits))
    unzipped = _Metered(gzip.GzipFile(fileobj=compressed, mode="rb"))  # type: ignore[arg-type]
    entries = written = 0
    try:
        unzipped.allow(*_header_budget("the first entry", limits))  # tar reads it on opening
        with tarfile.open(fileobj=unzipped, mode="r|") as tar:  # type: ignore[call-overload]
            while (member := tar.next()) is not None:
                entries += 1
                if entries > limits.max_entries:
                    raise ArchiveError(
                        f"refused: {member.name}: more than {limits.max_entries:,} files and "
                        "folders in the archive"
                    )
                target = _target(destination, member)
                if member.isdir():
                    _make_folders(destination, target, member.name)
                else:
                    unzipped.allow(
                        member.size + _LOOKAHEAD,
                        f"refused: {member.name}: more data than its header says",
                    )
                    written = _write_file(tar, member, destination, target, written, limits)
                unzipped.allow(*_header_budget(f"the entry after {member.name}", limits))
    except (tarfile.TarError, EOFError, gzip.BadGzipFile, zlib.error) as error:
        raise ArchiveError(f"refused: not a .tar.gz archive, or a damaged one ({error})") from None


def _header_budget(entry: str, limits: ArchiveLimits) -> tuple[int, str]:
    """What tar may read for the header of ``entry``, and the refusal past it."""
    return limits.max_header_bytes + _LOOKAHEAD, (
        f"refused: the header of {entry} is over the limit of {limits.max_header_bytes:,} "
        "bytes (a decompression bomb?)"
    )


def _target(destination: Path, member: tarfile.TarInfo) -> Path:
    """Where a file or folder entry goes in ``destination``.

    Raises:
        ArchiveError: an absolute path, a ``..``, or an entry neither a file nor a folder.
    """
    name = member.name
    path = PurePosixPath(name)
    if path.is_absolute():
        raise ArchiveError(f"refused: {name}: an absolute path")
    if ".." in path.parts:
        raise ArchiveError(f"refused: {name}: a path out of the bot folder (..)")
    kind = _refused_kind(member)
    if kind:
        link = f" (to {member.linkname})" if member.issym() or member.islnk() else ""
        raise ArchiveError(
            f"refused: {name}: {kind}{link}; a bot archive holds only the bot's own files "
            "and folders"
        )
    return destination.joinpath(*path.parts)


def _refused_kind(member: tarfile.TarInfo) -> str | None:
    """What the entry is, if it is neither a plain file nor a folder."""
    if member.issparse():  # its data is not its bytes: a map of holes comes first
        return "a sparse file"
    if member.isfile() or member.isdir():
        return None
    return _KINDS.get(member.type, f"an entry of tar type {member.type!r}")


def _make_folders(destination: Path, folder: Path, name: str) -> None:
    """Make ``folder`` and its parents inside ``destination``, none of them a file.

    Raises:
        ArchiveError: a file of the archive is in the way.
    """
    made = destination
    for part in folder.relative_to(destination).parts:
        made /= part
        try:
            made.mkdir(exist_ok=True)
        except (FileExistsError, NotADirectoryError):
            inside = made.relative_to(destination).as_posix()
            raise ArchiveError(
                f"refused: {name}: {inside} is a file in the archive, not a folder"
            ) from None
        except OSError as error:
            raise ArchiveError(f"refused: {name}: cannot be made ({error.strerror})") from None


def _write_file(
    tar: tarfile.TarFile,
    member: tarfile.TarInfo,
    destination: Path,
    target: Path,
    written: int,
    limits: ArchiveLimits,
) -> int:
    """Copy one file entry, counting its bytes; returns the archive's bytes written so far.

    Raises:
        ArchiveError: the file is there already, or its bytes take the archive past
            ``max_unpacked_bytes``.
    """
    _make_folders(destination, target.parent, member.name)
    mode = 0o755 if member.mode & 0o100 else 0o644
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
    try:
        descriptor = os.open(target, flags, mode)
    except FileExistsError:
        raise ArchiveError(f"refused: {member.name}: in the archive twice") from None
    except OSError as error:
        raise ArchiveError(
            f"refused: {member.name}: cannot be written ({error.strerror})"
        ) from None
    source = tar.extractfile(member)
    assert source is not None  # a regular file always has its data
    with open(descriptor, "wb") as out:
        while chunk := source.read(_CHUNK):
            written += len(chunk)
            if written > limits.max_unpacked_bytes:
                raise ArchiveError(
                    f"refused: {member.name}: unpacks past the limit of "
                    f"{limits.max_unpacked_bytes:,} bytes in all (a decompression bomb?)"
                )
            out.write(chunk)
    return written


def _manifest(folder: Path) -> BotManifest:
    """The unpacked bot's manifest.

    Raises:
        ArchiveError: ``bot.toml`` is missing or broken (the field named).
    """
    path = folder / MANIFEST
    if not path.is_file():
        raise ArchiveError(
            f"refused: {MANIFEST}: missing; the archive must hold the bot folder's files, "
            f"{MANIFEST} at its top"
        )
    try:
        return load_manifest(folder)
    except ManifestError as error:
        reason = str(error).removeprefix(f"{path}: ")
        raise ArchiveError(f"refused: {MANIFEST}: {reason}") from None
