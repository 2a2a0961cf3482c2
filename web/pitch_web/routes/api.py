"""The JSON API under ``/api``: standings, bots, a bot, matches, games, a game's record.

Each route declares its response model, so that ``/docs`` describes what it answers.
Lists of games and matches come a page at a time, newest first, with the URL of the
next page. A missing game or bot is a 404 and a bad parameter a 422, each with a one-line
``detail``. Routes read through the ``Source`` (``app.state.source``); the models
(``models``) read the ladder's and the folders' own types.
"""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Query, Request

from pitch_ladder.game_query import GameQuery

from .. import models
from ..comparison import pair_comparison
from ..dependencies import ladder_of
from ..models import (
    BotDetailOut,
    BotOut,
    GameOut,
    GamesPage,
    MatchesPage,
    MatchOut,
    RatingPointOut,
    StandingsPage,
)
from ..params import (
    Before,
    BotName,
    HandNumber,
    Limit,
    MatchKey,
    Offset,
    PairNumber,
    VersionOf,
    ladder_number,
)
from ..source import BadQuery, FolderSource, ladder_answers

router = APIRouter(prefix="/api", tags=["data"])

PAGE = 50
Result = Annotated[
    str | None, Query(pattern="^(won|lost|drawn)$", description="From `bot`'s side.")
]


@router.get("/standings", response_model=StandingsPage)
def standings(request: Request, limit: Limit = PAGE, offset: Offset = 0) -> StandingsPage:
    """Each active bot's latest version ranked by the Bradley-Terry fit, with its Elo, a
    page at a time: as of the kept fit, which it names (`fit_through_game`)."""
    page = ladder_of(request).standings(offset, limit)
    more = offset + limit < page.total
    return models.standings_page(page, _next(request, offset=offset + limit) if more else None)


@router.get("/bots", response_model=list[BotOut])
def bots(request: Request) -> list[BotOut]:
    """Every bot, retired ones included, by name."""
    return [BotOut.model_validate(info) for info in ladder_of(request).bots()]


@router.get("/bots/{name}", response_model=BotDetailOut)
def bot(request: Request, name: str) -> BotDetailOut:
    """A bot: its versions, results by opponent, faults by kind, and newest games."""
    source = ladder_of(request)
    page = source.bot_page(name)
    recent = source.games(GameQuery(bot=name, limit=10))
    return models.bot_detail(page, recent)


@router.get("/bots/{name}/ratings", response_model=list[RatingPointOut])
def bot_ratings(request: Request, name: str) -> list[RatingPointOut]:
    """The Elo of the bot's latest version after each of its games (thinned to ~200)."""
    return [
        RatingPointOut.model_validate(point) for point in ladder_of(request).rating_history(name)
    ]


@router.get("/matches", response_model=MatchesPage)
def matches(
    request: Request,
    bot: BotName = None,
    version: VersionOf = None,
    status: Annotated[str | None, Query(pattern="^(pending|finished|cancelled)$")] = None,
    limit: Limit = PAGE,
    offset: Offset = 0,
    before: Before = None,
) -> MatchesPage:
    """Matches, newest first; for a folder of matches, every match folder in it."""
    source = request.app.state.source
    if isinstance(source, FolderSource):
        if bot or version or status or before:
            raise BadQuery("a folder of matches is listed whole: no filters, no `before`")
        listed = [MatchOut.model_validate(match) for match in source.matches()]
        page = listed[offset : offset + limit]
        more = offset + limit < len(listed)
        return MatchesPage(
            matches=page, next=_next(request, offset=offset + limit) if more else None
        )
    infos = ladder_of(request).matches(
        bot, version=version, status=status, limit=limit, offset=offset, before=before
    )
    more = len(infos) == limit
    return MatchesPage(
        matches=[MatchOut.model_validate(info) for info in infos],
        next=_next(request, before=infos[-1].id) if more else None,
    )


@router.get("/matches/{key:path}", response_model=MatchOut)
def match(request: Request, key: str) -> MatchOut:
    """A match: a ladder match's number, or a match folder's path in the folder served."""
    source = request.app.state.source
    if isinstance(source, FolderSource):
        return MatchOut.model_validate(source.match(key))
    return MatchOut.model_validate(ladder_of(request).match(key))


@router.get("/games", response_model=GamesPage)
def games(
    request: Request,
    bot: BotName = None,
    version: VersionOf = None,
    result: Result = None,
    fault: Annotated[bool | None, Query(description="Games with (or without) a fault.")] = None,
    match: MatchKey = None,
    limit: Limit = PAGE,
    offset: Offset = 0,
    before: Before = None,
) -> GamesPage:
    """Games, newest first, filtered; for a folder, a match folder's games or loose records."""
    source = request.app.state.source
    if isinstance(source, FolderSource):
        if bot or version or result or fault is not None or before:
            raise BadQuery("a folder's games are listed by match: only `match`, `limit`, `offset`")
        if match is None:
            keys, total = source.loose_records(offset, limit)
            listed = [models.loose_game(key) for key in keys]
        else:
            found, total = source.match_games(match, offset, limit)
            header = source.match(match)
            listed = [models.folder_game(game, header) for game in found]
        more = offset + limit < total
        return GamesPage(games=listed, next=_next(request, offset=offset + limit) if more else None)
    number = None if match is None else ladder_number(match)
    if match is not None and number is None:
        raise BadQuery(f"match must be a ladder match's number, not {match!r}")
    with ladder_answers():
        query = GameQuery(
            bot=bot,
            version=version,
            result=result,
            faults=fault,
            match=number,
            limit=limit,
            offset=offset,
            before=before,
        )
    infos = ladder_of(request).games(query)
    more = len(infos) == limit
    return GamesPage(
        games=[GameOut.model_validate(info) for info in infos],
        next=_next(request, before=infos[-1].id) if more else None,
    )


@router.get("/games/{key:path}", response_model=dict[str, Any])
def game_record(request: Request, key: str) -> dict[str, Any]:
    """A game's record, as ``docs/record-format.md`` describes it."""
    return request.app.state.source.record(key).to_json()


@router.get("/compare/{pair}", response_model=dict[str, Any])
def compare_served(request: Request, pair: PairNumber, hand: HandNumber = None) -> dict[str, Any]:
    """A deal pair of the match folder served itself, compared (as ``/compare/{match}/{pair}``)."""
    return pair_comparison(request, "", pair, hand).to_json()


@router.get("/compare/{match:path}/{pair}", response_model=dict[str, Any])
def compare_pair(
    request: Request, match: str, pair: PairNumber, hand: HandNumber = None
) -> dict[str, Any]:
    """A deal pair's two games hand by hand: each table's contract and points, the swing,
    each hand's first divergence (its step in each game); ``hand`` (by default the first
    that diverged) in full, a divergent card valued double-dummy (docs/viewer.md)."""
    return pair_comparison(request, match, pair, hand).to_json()


def _next(request: Request, **changes: int) -> str:
    """This request's URL with ``changes`` to its query (``before`` drops ``offset``)."""
    query = dict(request.query_params)
    if "before" in changes:
        query.pop("offset", None)
    query.update({name: str(value) for name, value in changes.items()})
    return f"{request.url.path}?{urlencode(query)}"
