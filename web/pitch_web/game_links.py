"""Where a folder's game leads in its match, for the viewer's links: the match, the twin
game (the same deals with the seats swapped: the other game of its pair, ``-a`` and
``-b``), and the games before and after it in the match's schedule."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from .models import path_url
from .source import FolderGame, FolderSource, NotFound, Source

TWIN = re.compile(r"^(.*-)([ab])$")
"""A game id of a deal pair (``pair-00003-a``): its twin ends in the other letter."""
MOST_GAMES = 100_000
"""Every game of a match (a match's schedule has far fewer)."""


def game_links(source: Source, key: str) -> dict[str, str]:
    """``{"match", "twin", "previous", "next"}``: the addresses of those that exist (a
    ladder's games, and loose records, have none)."""
    if not isinstance(source, FolderSource):
        return {}
    path = PurePosixPath(key)
    if path.parent.name != "games":
        return {}
    match_key = path.parent.parent.as_posix().removeprefix(".")
    try:
        games, _ = source.match_games(match_key, 0, MOST_GAMES)
    except NotFound:
        return {}
    links = {"match": path_url("/matches", match_key) if match_key else "/"}
    keys = [game.key for game in games]
    if key not in keys:
        return links
    here = keys.index(key)
    if here > 0:
        links["previous"] = path_url("/view", keys[here - 1])
    if here + 1 < len(keys):
        links["next"] = path_url("/view", keys[here + 1])
    twin = _twin(games, games[here])
    if twin is not None:
        links["twin"] = path_url("/view", twin.key)
    return links


def _twin(games: list[FolderGame], game: FolderGame) -> FolderGame | None:
    paired = TWIN.match(game.game)
    if paired is None:
        return None
    other = paired.group(1) + ("b" if paired.group(2) == "a" else "a")
    return next((found for found in games if found.game == other), None)
