"""One ``ladder run`` per ladder at a time: an OS file lock in the ladder folder.

``flock`` belongs to the open file, so the kernel releases it when the holder exits in
any way, ``kill -9`` included: a crashed run never leaves a stale lock behind. The
holder writes its pid into the file, so that the next one can say who holds it.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import IO

from .errors import LadderError

LOCK_FILE = "run.lock"


class RunLock:
    """``with RunLock(folder):`` holds the ladder's run lock, or refuses (or waits) at once.

    Args:
        folder: the ladder folder.
        wait: block until the holder finishes instead of refusing.
        on_wait: called with the holder's pid (or ``None``) before waiting.
    """

    def __init__(
        self,
        folder: Path,
        wait: bool = False,
        on_wait: Callable[[int | None], None] = lambda _pid: None,
    ) -> None:
        self.path = folder / LOCK_FILE
        self.wait = wait
        self.on_wait = on_wait
        self._file: IO[str] | None = None

    def __enter__(self) -> RunLock:
        """Take the lock.

        Raises:
            LadderError: another process holds it and ``wait`` is false.
        """
        file = self.path.open("a+")
        try:
            fcntl.flock(file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(file)
            if not self.wait:
                file.close()
                who = f"pid {holder}" if holder else "another process"
                raise LadderError(
                    f"another `pitch ladder run` ({who}) is running on {self.path.parent}; "
                    "let it finish, or pass --wait to start when it does"
                ) from None
            self.on_wait(holder)
            fcntl.flock(file, fcntl.LOCK_EX)
        file.seek(0)
        file.truncate()
        file.write(f"{os.getpid()}\n")
        file.flush()
        self._file = file
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._file is not None:
            self._file.truncate(0)
            self._file.close()  # releases the lock
            self._file = None


def _holder(file: IO[str]) -> int | None:
    file.seek(0)
    text = file.read().strip()
    return int(text) if text.isdigit() else None


@contextmanager
def waiting_lock(path: Path) -> Iterator[None]:
    """Hold the lock file ``path``, waiting for its holder: for short critical sections,
    such as one submission of a bot name at a time (the threads of one server included:
    each opens the file anew, and ``flock`` excludes other open files)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as file:
        fcntl.flock(file, fcntl.LOCK_EX)
        yield
