"""Bot archives: a bot folder packed for upload, and an uploaded one unpacked safely.

The format is a gzip-compressed tar (``.tar.gz``), for three reasons: it keeps a file's
executable bit (a compiled bot's command is its own binary; Python's ``zipfile`` drops
it), it can be read as a stream with no index to seek to (an upload is checked as it
arrives), and the standard library reads and writes it. ``pack`` makes the same bytes
from the same folder (sorted names, no times or owners), holding exactly the files that
the ladder's content hash covers (``submit.bot_files``), so an unpacked archive hashes
like its folder.

``unpack`` trusts nothing in the archive. It refuses, naming the entry: a path that is
absolute or has ``..``, a name that is not UTF-8 or holds a control character, a path
deeper than ``max_depth`` folders or longer than ``max_name_bytes`` (one name) or
``max_path_bytes`` (the whole path), any link (symbolic or hard, wherever it leads: a bot
folder holds its own files, as ``pitch ladder submit`` requires), devices, fifos and
anything else that is not a file or folder, an entry given twice, and a missing or broken
``bot.toml``. It counts as it reads: the compressed bytes (``max_archive_bytes``), the
files and folders (``max_entries``: every folder a path implies counts, whether the
archive has an entry for it or not, so that a few entries with long paths cannot make
thousands of folders), the bytes written (``max_unpacked_bytes``, whatever the headers
say), and each entry's header bytes (``max_header_bytes``, so that a huge header is
refused before tar reads it into memory). It writes only into a destination it creates,
opening each file so that it cannot already exist or be a link, and a refused archive
leaves nothing behind. Nothing here recurses once per folder: a deep tree is refused,
never a ``RecursionError``.

Does not touch the database.
"""

from __future__ import annotations

import gzip
import os
import tarfile
import unicodedata
import zlib
from dataclasses import dataclass, fields
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from pitch_referee.errors import ManifestError
from pitch_referee.manifest import MANIFEST, BotManifest, load_manifest

from .errors import LadderError, disk_full
from .scratch import remove_tree
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
    max_depth: int = 32
    """Names in one path: ``a/b/bot.py`` is 3 deep."""
    max_name_bytes: int = 255
    """One file or folder name, in UTF-8 bytes (what Linux file systems take)."""
    max_path_bytes: int = 1024
    """One path in the archive, in UTF-8 bytes."""

    def __post_init__(self) -> None:
        for limit in fields(self):
            if getattr(self, limit.name) < 1:
                raise ValueError(f"{limit.name} must be at least 1")
        if self.max_depth > MAX_DEPTH:
            raise ValueError(f"max_depth must be at most {MAX_DEPTH}")


MAX_DEPTH = 256
"""The deepest ``max_depth`` may be set: far beyond any bot, well short of what would
strain the tools that walk a bot folder."""
SHOWN_NAME = 120
"""Characters of an entry's name that a refusal quotes (a longer name is cut, with ``...``)."""


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
    for relative in files:
        try:
            check_path(relative.as_posix(), limits)
        except ArchiveError as error:
            raise ArchiveError(f"{error} (in {folder})") from None
    folders = {parent for relative in files for parent in relative.parents} - {Path(".")}
    if len(files) + len(folders) > limits.max_entries:
        raise ArchiveError(
            f"refused: {folder} has {len(files):,} files in {len(folders):,} folders; an "
            f"archive may hold at most {limits.max_entries:,} files and folders"
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
        remove_tree(destination)
        raise


def _over_size(limits: ArchiveLimits) -> str:
    return f"refused: the archive is over the limit of {limits.max_archive_bytes:,} bytes"


def _extract(stream: BinaryIO, destination: Path, limits: ArchiveLimits) -> None:
    compressed = _Metered(stream)
    compressed.allow(limits.max_archive_bytes, _over_size(limits))
    # typeshed asks a gzip source for seek too, which reading front to back never calls
    unzipped = _Metered(gzip.GzipFile(fileobj=compressed, mode="rb"))  # type: ignore[call-overload]
    written = 0
    entries = _Entries(limits.max_entries)
    try:
        unzipped.allow(*_header_budget("the first entry", limits))  # tar reads it on opening
        # Names that are not UTF-8 come as lone surrogates, for check_path to refuse.
        with tarfile.open(  # type: ignore[call-overload]
            fileobj=unzipped, mode="r|", encoding="utf-8", errors="surrogateescape"
        ) as tar:
            while (member := tar.next()) is not None:
                target = _target(destination, member, limits)
                name = _shown(member.name)
                entries.add(target.relative_to(destination).parts, member.isdir(), name)
                if member.isdir():
                    _make_folders(destination, target, name)
                else:
                    unzipped.allow(
                        member.size + _LOOKAHEAD, f"refused: {name}: more data than its header says"
                    )
                    written = _write_file(tar, member, destination, target, written, limits)
                unzipped.allow(*_header_budget(f"the entry after {name}", limits))
    except (tarfile.TarError, EOFError, gzip.BadGzipFile, zlib.error) as error:
        raise ArchiveError(f"refused: not a .tar.gz archive, or a damaged one ({error})") from None


class _Entries:
    """The files and folders an archive makes, counted against ``max_entries``: every folder
    that a path implies counts once, whether the archive has an entry for it or not."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._files = 0
        self._folders: set[tuple[str, ...]] = set()

    def add(self, parts: tuple[str, ...], folder: bool, name: str) -> None:
        """Count a file (or a ``folder``) at ``parts`` and the folders it lies in.

        Raises:
            ArchiveError: the archive now makes more than the limit.
        """
        if not folder:
            self._files += 1
        self._folders.update(parts[:depth] for depth in range(1, len(parts) + folder))
        if self._files + len(self._folders) > self._limit:
            raise ArchiveError(
                f"refused: {name}: more than {self._limit:,} files and folders in the archive "
                "(each folder its paths imply counts)"
            )


def _header_budget(entry: str, limits: ArchiveLimits) -> tuple[int, str]:
    """What tar may read for the header of ``entry``, and the refusal past it."""
    return limits.max_header_bytes + _LOOKAHEAD, (
        f"refused: the header of {entry} is over the limit of {limits.max_header_bytes:,} "
        "bytes (a decompression bomb?)"
    )


def _target(destination: Path, member: tarfile.TarInfo, limits: ArchiveLimits) -> Path:
    """Where a file or folder entry goes in ``destination``.

    Raises:
        ArchiveError: a name refused by ``check_path``, or an entry neither a file nor a
            folder.
    """
    parts = check_path(member.name, limits)
    kind = _refused_kind(member)
    if kind:
        name = _shown(member.name)
        link = f" (to {_shown(member.linkname)})" if member.issym() or member.islnk() else ""
        raise ArchiveError(
            f"refused: {name}: {kind}{link}; a bot archive holds only the bot's own files "
            "and folders"
        )
    return destination.joinpath(*parts)


def check_path(name: str, limits: ArchiveLimits) -> tuple[str, ...]:
    """The parts of an archive path that a bot folder may hold (``.`` parts dropped).

    ``name`` is as tar decodes it: bytes that are not UTF-8 are lone surrogates.

    Raises:
        ArchiveError: the name is not UTF-8, holds a control character, is absolute, has
            a ``..``, or is deeper or longer than ``limits`` allow (the one-line reason
            quotes the name, escaped and cut).
    """
    shown = _shown(name)
    try:
        size = len(name.encode())
    except UnicodeEncodeError:
        raise ArchiveError(f"refused: {shown}: a name that is not UTF-8") from None
    if any(unicodedata.category(character) == "Cc" for character in name):
        raise ArchiveError(f"refused: {shown}: a name with a control character")
    path = PurePosixPath(name)
    if path.is_absolute():
        raise ArchiveError(f"refused: {shown}: an absolute path")
    if ".." in path.parts:
        raise ArchiveError(f"refused: {shown}: a path out of the bot folder (..)")
    if len(path.parts) > limits.max_depth:
        raise ArchiveError(
            f"refused: {shown}: {len(path.parts):,} names deep, over the limit of "
            f"{limits.max_depth:,}"
        )
    if size > limits.max_path_bytes:
        raise ArchiveError(
            f"refused: {shown}: a path of {size:,} bytes, over the limit of "
            f"{limits.max_path_bytes:,}"
        )
    longest = max((len(part.encode()) for part in path.parts), default=0)
    if longest > limits.max_name_bytes:
        raise ArchiveError(
            f"refused: {shown}: a name of {longest:,} bytes, over the limit of "
            f"{limits.max_name_bytes:,}"
        )
    return path.parts


def _shown(name: str) -> str:
    """``name`` as a one-line refusal quotes it: escaped (bytes that are not UTF-8, and
    control characters, as ``\\xff``), and cut to ``SHOWN_NAME`` characters."""
    text = "".join(
        f"\\x{ord(character) & 0xFF:02x}"
        if 0xDC80 <= ord(character) <= 0xDCFF or unicodedata.category(character) == "Cc"
        else character
        for character in name[: SHOWN_NAME + 1]
    )
    return text if len(name) <= SHOWN_NAME else f"{text[:SHOWN_NAME]}..."


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
            if disk_full(error):
                raise
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
    name = _shown(member.name)
    _make_folders(destination, target.parent, name)
    mode = 0o755 if member.mode & 0o100 else 0o644
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
    try:
        descriptor = os.open(target, flags, mode)
    except FileExistsError:
        raise ArchiveError(f"refused: {name}: in the archive twice") from None
    except OSError as error:
        if disk_full(error):
            raise
        raise ArchiveError(f"refused: {name}: cannot be written ({error.strerror})") from None
    source = tar.extractfile(member)
    assert source is not None  # a regular file always has its data
    with open(descriptor, "wb") as out:
        while chunk := source.read(_CHUNK):
            written += len(chunk)
            if written > limits.max_unpacked_bytes:
                raise ArchiveError(
                    f"refused: {name}: unpacks past the limit of "
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
