"""Text that a bot wrote, made safe to print on a terminal.

A bot's stderr reaches the terminal in refusals (`pitch submit`, `pitch ladder submit`,
`pitch author submissions`), conformance reports (`pitch check`), a match's faults
(`pitch match`) and its logs (`pitch author logs`). Raw, its control characters are
commands to the terminal: clear the screen, set the window's title, move the cursor,
rewrite what was printed before. ``printable`` is the one way such text is printed.

Imports nothing but the standard library: ``main`` uses it on every error.
"""

from __future__ import annotations

KEPT = "\n\t"
"""Control characters printed as they are: a newline, and a tab."""
_ESCAPED = {
    code: f"\\x{code:02x}"
    for code in (*range(0x20), 0x7F, *range(0x80, 0xA0))
    if chr(code) not in KEPT
}
"""Every other control character (C0, DEL and C1, Unicode's category Cc) as ``\\xNN``."""


def printable(text: str) -> str:
    """``text`` with its control characters but newline and tab written out as ``\\xNN``
    (an escape, 0x1b, shows as ``\\x1b``), so that a terminal prints it and obeys none
    of it. Lone surrogates (bytes that were not UTF-8) are written out too.
    """
    escaped = text.translate(_ESCAPED)
    if escaped.isascii():
        return escaped
    return escaped.encode("utf-8", "backslashreplace").decode("utf-8")
