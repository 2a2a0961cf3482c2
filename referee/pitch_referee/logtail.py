"""What a bot wrote, quoted: the last lines of its log, each cut to a width.

A refusal, a conformance report and ``pitch match`` quote the end of a bot's output, and
a refusal is stored and sent again to whoever reads it. A bot decides how long its lines
are (three 3 MiB lines made a 9.4 MB refusal), so every quote of its output comes from
``log_tail``: at most ``lines`` lines of at most ``width`` bytes each, a cut line marked
with how much was cut. The log is read as a stream, so memory holds those lines and no
more, however long the bot's lines are (the log itself is capped by the referee, at
``process.LOG_CAP_BYTES``).

Imports nothing but the standard library.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Sequence
from pathlib import Path

LINE_BYTES = 200
"""The widest line quoted, in UTF-8 bytes, before its cut mark."""
_CHUNK = 64 * 1024
_EXCEPTION = re.compile(r"[A-Za-z_$][\w.$]*(: .*)?")
"""An exception's line: its (dotted) name, then perhaps ``: message``."""


def clip(line: str, width: int = LINE_BYTES) -> str:
    """``line`` cut to ``width`` UTF-8 bytes, marked ``[... N more bytes]`` if cut; bytes
    that were not UTF-8 (lone surrogates) come back as U+FFFD."""
    try:
        data = line.encode(errors="surrogateescape")
    except UnicodeEncodeError:  # a surrogate that stands for no byte
        data = line.encode(errors="replace")
    return _clipped(data[:width], len(data), width)


def log_tail(
    path: Path, lines: int, *, after: str | None = None, width: int = LINE_BYTES
) -> list[str]:
    """The last ``lines`` non-empty lines of the log at ``path``, each ``clip``-ped to ``width``.

    Args:
        after: only the lines after the last line that is exactly this (a mark that the
            referee wrote before starting the bot again); all of them if it never comes.

    A missing or unreadable log has no lines. Bytes that are not UTF-8 are replaced.
    """
    kept: deque[tuple[bytes, int]] = deque(maxlen=lines)
    mark = after.encode() if after is not None else None
    head, length = bytearray(), 0  # the current line's first bytes, and its whole length

    def end_line() -> None:
        nonlocal length
        line = bytes(head)
        if length == len(line) and line.endswith(b"\r"):  # whole, so its real end
            line, length = line[:-1], length - 1
        if line == mark and length == len(line):
            kept.clear()
        elif line.strip():
            kept.append((line, length))
        head.clear()
        length = 0

    try:
        with path.open("rb") as log:
            while chunk := log.read(_CHUNK):
                start = 0
                while start < len(chunk):
                    end = chunk.find(b"\n", start)
                    stop = len(chunk) if end < 0 else end
                    head += chunk[start : min(stop, start + width + 1 - len(head))]
                    length += stop - start
                    if end < 0:
                        break
                    end_line()
                    start = end + 1
            if length:
                end_line()
    except OSError:
        return []
    return [_clipped(line[:width], size, width) for line, size in kept]


def exception_line(lines: Sequence[str]) -> str | None:
    """The line naming the exception a bot died of, from the end of its output.

    Python's traceback ends with it, just after an indented frame line; Node's stack starts
    with it, just before its indented ``at`` lines. ``None`` when the output names none (a
    bot that exited without a traceback).
    """
    for index in range(len(lines) - 1, -1, -1):
        if not _EXCEPTION.fullmatch(lines[index]):
            continue
        after_frame = index > 0 and lines[index - 1][:1].isspace()
        before_stack = index + 1 < len(lines) and lines[index + 1].lstrip().startswith("at ")
        if after_frame or before_stack:
            return lines[index]
    return None


def _clipped(kept: bytes, size: int, width: int) -> str:
    text = kept[:width].decode(errors="replace")
    if size <= width:
        return text
    return f"{text.removesuffix(chr(0xFFFD))}... [{size - width:,} more bytes]"
