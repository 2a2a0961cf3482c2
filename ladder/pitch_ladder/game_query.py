"""Which stored games to list: ``GameQuery``, the eight filters of a page of games as one
checked value.

The ``pitch ladder games`` command and the web's API and pages each build one from what
they were given and pass it whole to ``Ladder.games``, which hands it to
``games.page_of_games``: the filters are named, typed and checked here once. This module
imports no database package, so that the web can build a query without loading one.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import LadderError

PAGE = 50
"""Games in a page of ``Ladder.games`` unless asked otherwise."""
MAX_PAGE = 10_000
RESULTS = {"won": 1.0, "lost": 0.0, "drawn": 0.5}
"""The ``result`` filter of ``Ladder.games``: a game from the named bot's side."""


def check_page(limit: int, offset: int) -> None:
    """Refuse a page that no list can give.

    Raises:
        LadderError: ``limit`` outside 1..``MAX_PAGE``, or a negative ``offset``.
    """
    if not 1 <= limit <= MAX_PAGE:
        raise LadderError(f"--limit must be from 1 to {MAX_PAGE}, not {limit}")
    if offset < 0:
        raise LadderError(f"--offset must be 0 or more, not {offset}")


@dataclass(frozen=True, kw_only=True)
class GameQuery:
    """A page of stored games, newest first (by game number), and what they must match.

    Raises:
        LadderError: (when built) a limit or offset out of range, an unknown result, or
            a version or result without a bot.
    """

    bot: str | None = None
    """Only this bot's games (as A, B or either's partner)."""
    version: str | None = None
    """Only games of this version of ``bot``: its manifest version or a content hash prefix."""
    result: str | None = None
    """``won``, ``lost`` or ``drawn``, from ``bot``'s side."""
    faults: bool | None = None
    """True: only games with a fault; False: only games without one."""
    match: int | None = None
    """Only the games of the match with this id."""
    limit: int = PAGE
    """At most so many games (1 to ``MAX_PAGE``)."""
    offset: int = 0
    """Skip so many of the newest first (costs what it skips)."""
    before: int | None = None
    """Only games numbered below this one: the last number seen gives the next page."""

    def __post_init__(self) -> None:
        check_page(self.limit, self.offset)
        if self.result is not None and self.result not in RESULTS:
            raise LadderError(f"result must be one of {', '.join(RESULTS)}, not {self.result!r}")
        if self.bot is None and (self.version is not None or self.result is not None):
            raise LadderError("a version or result filter needs a bot: whose version, whose win?")


NEWEST_GAMES = GameQuery()
"""The newest page of every game (``Ladder.games`` without a query)."""
