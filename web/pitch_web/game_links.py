"""Where a match's game leads, for the viewer's links: the match, the twin game (the same
deals with the seats swapped: the other game of its pair, ``-a`` and ``-b``), the pair's
duplicate comparison, the games before and after it in the match's schedule, and (in a
ladder) its bots' pages.

A folder's game is a record in a match folder's ``games``; a ladder's game knows its
match and its id in it. Loose records have no links.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import quote

from .models import path_url
from .pairs import compare_url, pair_of, twin_id
from .source import MOST_GAMES, FolderSource, LadderSource, NotFound, Source


def bot_links(source: Source, players: Sequence[Mapping[str, Any]]) -> list[tuple[str, str]]:
    """Each bot of a game, once, with its page (a ladder's ``/bots/{name}``; a folder of
    matches has no bot pages, so none)."""
    if not isinstance(source, LadderSource):
        return []
    names = dict.fromkeys(str(player["name"]) for player in players)
    return [(name, f"/bots/{quote(name, safe='')}") for name in names]


def game_links(source: Source, key: str) -> dict[str, str]:
    """``{"match", "twin", "compare", "previous", "next"}``: the addresses of those that
    exist (a loose record has none)."""
    if isinstance(source, LadderSource):
        return _ladder_links(source, key)
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
    match_url = path_url("/matches", match_key) if match_key else "/"
    listed = [(game.key, game.game) for game in games]
    return _links(match_url, match_key, listed, key)


def _ladder_links(source: LadderSource, key: str) -> dict[str, str]:
    try:
        info = source.game_info(key)
    except NotFound:
        return {}
    games = source.match_games(info.match_id)
    match_key = str(info.match_id)
    listed = [(str(game.id), game.game_id) for game in games]
    return _links(path_url("/matches", match_key), match_key, listed, key)


def _links(
    match_url: str, match_key: str, games: Sequence[tuple[str, str]], key: str
) -> dict[str, str]:
    """The links of game ``key`` among a match's ``games`` (key and game id, in schedule
    order)."""
    links = {"match": match_url}
    keys = [game_key for game_key, _ in games]
    if key not in keys:
        return links
    here = keys.index(key)
    if here > 0:
        links["previous"] = path_url("/view", keys[here - 1])
    if here + 1 < len(keys):
        links["next"] = path_url("/view", keys[here + 1])
    game_id = games[here][1]
    twin = twin_id(game_id)
    found = next((game_key for game_key, other in games if other == twin), None)
    paired = pair_of(game_id)
    if found is not None and paired is not None:
        links["twin"] = path_url("/view", found)
        links["compare"] = compare_url(match_key, paired[0])
    return links
