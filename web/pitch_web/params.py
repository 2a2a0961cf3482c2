"""The routes' integer parameters, bounded once: every one fits a 64-bit signed integer.

SQLite and PostgreSQL store 64-bit integers; a larger number in a query (``before=10**23``)
used to reach the database and fail there (``OverflowError``, a 500). Routes take their
integers as these types, so a number out of range is the application's 422 before any
route runs, and ``/docs`` shows each bound. ``ladder_number`` does the same for the
numbers that arrive as text (a game's or match's key), where an impossible number is
simply no such game. A test walks the OpenAPI description for an unbounded integer.
"""

from __future__ import annotations

import re
from typing import Annotated

from fastapi import Path, Query

INT64_MAX = 2**63 - 1
"""The largest integer a route accepts."""
ID_MAX = 2**31 - 1
"""The largest id a ladder gives a game or match: ids are 32-bit ``integer`` columns on
PostgreSQL (SQLite's are 64-bit), so a larger number names nothing on either."""
MAX_PAGE = 1000
"""The most items a page lists."""
_NUMBER = re.compile(r"[0-9]{1,19}")

Limit = Annotated[int, Query(ge=1, le=MAX_PAGE, description="Items in the page.")]
Offset = Annotated[
    int, Query(ge=0, le=INT64_MAX, description="Items to skip (costs what it skips).")
]
Before = Annotated[
    int | None,
    Query(
        ge=1,
        le=INT64_MAX,
        description="Only items numbered below this one (the next page: constant cost).",
    ),
]
After = Annotated[int, Query(ge=0, le=INT64_MAX, description="Steps already shown.")]
BotName = Annotated[
    str | None,
    Query(pattern=r"^[^\x00]*$", max_length=255, description="A bot's name (no NUL character)."),
]
"""A name the database is asked about: PostgreSQL refuses a NUL in text (a DataError, a
500 before), so it is the application's 422."""
VersionOf = Annotated[
    str | None,
    Query(pattern=r"^[^\x00]*$", max_length=255, description="Of `bot`: version or hash start."),
]
MatchKey = Annotated[
    str | None,
    Query(pattern=r"^[^\x00]*$", max_length=1024, description="A match id, or a match folder."),
]
GameNumber = Annotated[int, Path(ge=1, le=INT64_MAX, description="A ladder game's number.")]
SubmissionNumber = Annotated[
    int, Path(ge=1, le=ID_MAX, description="A submission's number (its verdict's id).")
]


def ladder_number(key: str) -> int | None:
    """``key`` as a ladder id (ASCII digits, at most ``ID_MAX``), else ``None``.

    >>> ladder_number("12"), ladder_number("x"), ladder_number("\\u00b2"), ladder_number("9" * 20)
    (12, None, None, None)
    """
    if not _NUMBER.fullmatch(key):
        return None
    number = int(key)
    return number if number <= ID_MAX else None


PairNumber = Annotated[int, Path(ge=0, le=ID_MAX, description="A deal pair's number in its match.")]
HandNumber = Annotated[
    int | None, Query(ge=1, le=ID_MAX, description="A hand's number in its game, from 1.")
]
