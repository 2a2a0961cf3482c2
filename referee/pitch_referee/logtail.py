"""What a bot wrote, quoted: the last lines of its log, each cut to a width.

A refusal, a conformance report and ``pitch match`` quote the end of a bot's output, and
a refusal is stored and sent again to whoever reads it. A bot decides how long its lines
are (three 3 MiB lines made a 9.4 MB refusal), so every quote of its output comes from
``log_tail``: at most ``lines`` lines of at most ``width`` bytes each, a cut line marked
with how much was cut. The log is read as a stream, so memory holds those lines and no
more, however long the bot's lines are (the log itself is capped by the referee, at
``process.LOG_CAP_BYTES``).

A refusal quotes a crash with ``excerpt``: the bot's own lines and its exception first,
and the frames of the libraries it runs on (the SDK, asyncio, grpc, Python's and Node's
own) last, as far as room is left, since those frames are what a traceback ends with and
say least about the bot.

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
EXCERPT_SCAN_LINES = 400
"""How far back ``excerpt`` looks for the bot's own lines and its traceback."""
_TRACEBACK = "Traceback (most recent call last):"
_FRAME = re.compile(r'^\s+File "([^"]*)", line \d+')
_LIBRARY = re.compile(
    r"site-packages|dist-packages|/pitch_sdk/|/lib/python3\.\d+/|node_modules|node:"
)
"""A frame's file that is not the bot's own."""
_EXCEPTION = re.compile(r"^(?:[A-Za-z_][\w.]*\.)?(?:[A-Z]\w*)?(?:Error|Exception|Exit|Interrupt)\b")
"""A line that names an exception, outside a Python traceback (Node's ``Error: ...``)."""
_CARETS = re.compile(r"^\s*[\^~]+\s*$")
"""Python's marks under the failing expression of a frame: left out of an excerpt."""


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


def _clipped(kept: bytes, size: int, width: int) -> str:
    text = kept[:width].decode(errors="replace")
    if size <= width:
        return text
    return f"{text.removesuffix(chr(0xFFFD))}... [{size - width:,} more bytes]"


def exception_line(lines: Sequence[str]) -> str | None:
    """The exception a bot died of: the line its last Python traceback ends with, or else
    the last line naming one (Node's ``TypeError: ...`` above its stack); ``None`` when the
    output names none (a bot that exited without a traceback)."""
    lines = list(lines)
    if _TRACEBACK in lines:
        start = len(lines) - 1 - lines[::-1].index(_TRACEBACK)
        after = lines[start + 1 :]
        return next((line for line in after if not line.startswith((" ", "\t"))), None)
    return next((line for line in reversed(lines) if _EXCEPTION.match(line)), None)


def excerpt(
    path: Path, lines: int, *, after: str | None = None, width: int = LINE_BYTES
) -> list[str]:
    """At most ``lines`` lines of the log at ``path`` for a verdict, the bot's own first
    (``bot_first``)."""
    return bot_first(log_tail(path, EXCERPT_SCAN_LINES, after=after, width=width), lines)


def bot_first(tail: list[str], lines: int) -> list[str]:
    """At most ``lines`` of a bot's last lines ``tail``, the bot's own first.

    Its last traceback is split: the bot's lines outside it, then its exception and the
    frames in the bot's own files, and last the frames of libraries, each a frame's
    ``File`` line and its source line. Without a traceback, the last lines.
    """
    if _TRACEBACK not in tail:
        return tail[-lines:] if lines else []
    start = len(tail) - 1 - tail[::-1].index(_TRACEBACK)
    own_frames: list[str] = []
    library_frames: list[str] = []
    end = start + 1
    frame = own_frames
    while end < len(tail) and tail[end].startswith((" ", "\t")):
        found = _FRAME.match(tail[end])
        if found:
            frame = library_frames if _LIBRARY.search(found.group(1)) else own_frames
        if not _CARETS.match(tail[end]):
            frame.append(tail[end])
        end += 1
    exception = tail[end : end + 1]
    first = [*exception, *([_TRACEBACK] if own_frames else []), *own_frames]
    room = max(0, lines - len(first))
    own_lines = (tail[:start] + tail[end + 1 :])[-room:] if room else []
    shown = own_lines + first
    if library_frames and len(shown) < lines:
        shown += ["(the frames of the SDK and libraries, last:)", *library_frames]
    return shown[:lines]
