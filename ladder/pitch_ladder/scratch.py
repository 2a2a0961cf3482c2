"""Scratch folders: made by one process, removed whatever happens, leftovers swept.

An upload is unpacked, and a submission copied and smoke-tested, in a scratch folder of
the ladder (``layout.SCRATCH_FOLDER``). ``scratch_folder`` removes it when its block
ends, however it ends (an exception, ``KeyboardInterrupt``, a cancelled request). Only a
process that dies (``kill -9``, a power cut) or is interrupted while removing leaves one
behind, and ``sweep`` removes those when a ladder is opened to serve or to run.

A folder may be swept only if no running process is using it: a ``pitch ladder submit``
or a second server on the same ladder may be in the middle of one. So each scratch
folder ``<name>`` has a lock file ``<name>.held``, taken (``flock``) before the folder is
made and released only once it is removed; the kernel releases the lock of a process
that dies. ``sweep`` removes a folder only while holding its lock without waiting: a
folder whose lock it cannot take belongs to a live process and is left alone, however
old. No clock is trusted and no age guessed, and a leftover goes at the next start.

``remove_tree`` removes a folder however deep it is: ``shutil.rmtree`` recurses once
per folder, so a tree about a thousand folders deep raised ``RecursionError`` and stayed.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import IO

HELD = ".held"
"""The suffix of a scratch folder's lock file, beside it."""


def remove_tree(path: Path) -> None:
    """Remove ``path`` and everything in it, however deep; a missing ``path`` is fine.

    Iterative (no recursion per folder), never follows a symbolic link (a link is removed,
    not what it leads to), and ignores what it cannot remove, as ``shutil.rmtree`` with
    ``ignore_errors`` does.
    """
    try:
        if not stat.S_ISDIR(os.lstat(path).st_mode):
            os.unlink(path)
            return
    except OSError:
        return
    stack: list[tuple[str, bool]] = [(os.fspath(path), False)]
    while stack:
        folder, emptied = stack.pop()
        if emptied:
            with contextlib.suppress(OSError):
                os.rmdir(folder)
            continue
        stack.append((folder, True))  # removed once everything in it is
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        stack.append((entry.path, False))
                    else:
                        with contextlib.suppress(OSError):
                            os.unlink(entry.path)
        except OSError:
            continue


@contextlib.contextmanager
def scratch_folder(parent: Path, prefix: str) -> Iterator[Path]:
    """A new folder ``<parent>/<prefix><random>``, held by this process while the block runs
    and removed when it ends, however it ends (the block may move the folder away)."""
    parent.mkdir(parents=True, exist_ok=True)
    name = f"{prefix}{uuid.uuid4().hex}"
    folder = parent / name
    with _held(parent / f"{name}{HELD}") as lock:
        try:
            folder.mkdir()
            yield folder
        finally:
            remove_tree(folder)
            lock.unlink(missing_ok=True)  # still held: no sweep can be using it


def sweep(parent: Path, prefixes: tuple[str, ...]) -> list[str]:
    """Remove the scratch folders in ``parent`` whose names start with one of ``prefixes``
    and that no running process holds; their names.

    Also removes such a folder made before scratch folders had locks (it has no lock
    file: the lock made for it here is free), and a lock file left without its folder.
    Anything else in ``parent`` is left alone.
    """
    try:
        with os.scandir(parent) as entries:
            found = [(entry.name, entry.is_dir(follow_symlinks=False)) for entry in entries]
    except OSError:
        return []
    names = {name for name, folder in found if folder}
    names |= {name.removesuffix(HELD) for name, folder in found if name.endswith(HELD)}
    swept = []
    for name in sorted(name for name in names if name.startswith(prefixes)):
        lock = parent / f"{name}{HELD}"
        with contextlib.suppress(BlockingIOError), _held(lock, wait=False):
            remove_tree(parent / name)
            lock.unlink(missing_ok=True)
            swept.append(name)
    return swept


@contextlib.contextmanager
def _held(path: Path, *, wait: bool = True) -> Iterator[Path]:
    """Hold the lock file ``path`` (made if missing) for the block.

    Raises:
        BlockingIOError: another process holds it and ``wait`` is false.
    """
    while True:
        file: IO[str] = path.open("a")
        try:
            fcntl.flock(file, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
            # A sweep may have removed the file between our open and our lock: then ours
            # is a lock on a file nobody else can find, so start again with a new one.
            if os.path.samestat(os.fstat(file.fileno()), os.stat(path)):
                break
        except FileNotFoundError:
            pass
        except BaseException:
            file.close()
            raise
        file.close()
    try:
        yield path
    finally:
        file.close()
