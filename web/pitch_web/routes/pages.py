"""The site's HTML pages over a ladder or a folder of matches and records.

A ladder: the standings with a rating chart (``/``), a bot's page (``/bots/{name}``),
matches (``/matches``, ``/matches/{id}``) and games (``/games``) with filters and pages.
A folder: its matches and loose records (``/``), a match folder's games
(``/matches/{path}``). A match lists its games by deal pair (``pairs``), each pair
linking to its duplicate comparison (``/compare/{match}/{pair}``, ``comparison``).
Every game links to its viewer, ``/view/{key}``. Pages read the
same ``Source`` calls and models as the API, rendered by Jinja2 (``templates/``).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from pitch_ladder.game_query import GameQuery

from .. import models
from ..comparison import pair_comparison
from ..dependencies import ladder_of
from ..pairs import pair_rows
from ..params import Before, HandNumber, Limit, Offset, PairNumber
from ..source import MOST_GAMES, BadQuery, FolderSource, LadderSource, ladder_answers
from ..templates import render

router = APIRouter(include_in_schema=False)

PAGE = 50
STANDINGS_PAGE = 100
"""Lines of the standings a page shows."""
CHART_BOTS = 8
"""The standings chart draws the rating history of this many bots, from the page's top."""
FAULT_CHOICES = {"yes": True, "no": False}


def _text(value: str | None) -> str | None:
    """An empty form field is no filter."""
    if value is None:
        return None
    return value.strip() or None


def _fault(value: str | None) -> bool | None:
    """The faults filter of the games form: ``yes``, ``no``, or empty for either.

    Raises:
        BadQuery: another value.
    """
    if value is None:
        return None
    if value not in FAULT_CHOICES:
        raise BadQuery(f"fault must be yes or no, not {value!r}")
    return FAULT_CHOICES[value]


def _link(request: Request, **changes: Any) -> str:
    """This page with ``changes`` to its query (None removes a parameter)."""
    query = {key: value for key, value in request.query_params.items() if value}
    for key, value in changes.items():
        if value is None:
            query.pop(key, None)
        else:
            query[key] = str(value)
    return f"{request.url.path}?{urlencode(query)}" if query else request.url.path


@router.get("/", response_class=HTMLResponse)
def start(request: Request, offset: Offset = 0) -> HTMLResponse:
    """The standings of a ladder; the matches and records of a folder."""
    source = request.app.state.source
    if isinstance(source, FolderSource):
        if source.is_match:
            return _folder_match(request, source, "", offset)
        return _folder(request, source, offset)
    page = source.standings(offset, STANDINGS_PAGE)
    lines = [models.StandingOut.model_validate(line) for line in page.lines]
    chart = [
        {
            "bot": line.bot,
            "points": [[p.games, p.rating] for p in source.rating_history(line.bot)],
        }
        for line in lines[:CHART_BOTS]
        if line.games
    ]
    teams = any(line.team is not None for line in lines)
    end = offset + STANDINGS_PAGE
    return render(
        request,
        "standings.html",
        lines=lines,
        chart=chart,
        teams=teams,
        page=page,
        lower=_link(request, offset=end) if end < page.total else None,
        higher=_link(request, offset=max(0, offset - STANDINGS_PAGE) or None) if offset else None,
    )


def _folder(request: Request, source: FolderSource, offset: int) -> HTMLResponse:
    keys, total = source.loose_records(offset, PAGE)
    return render(
        request,
        "folder.html",
        matches=[models.MatchOut.model_validate(match) for match in source.matches()],
        records=[models.loose_game(key) for key in keys],
        total=total,
        older=_link(request, offset=offset + PAGE) if offset + PAGE < total else None,
        newer=_link(request, offset=max(0, offset - PAGE) or None) if offset else None,
    )


@router.get("/bots/{name}", response_class=HTMLResponse)
def bot(request: Request, name: str) -> HTMLResponse:
    """A bot: versions, results by opponent, faults by kind, recent games, its rating."""
    source = ladder_of(request)
    page = source.bot_page(name)
    detail = models.bot_detail(page, source.games(GameQuery(bot=name, limit=20)))
    history = source.rating_history(name)
    chart = [{"bot": name, "points": [[p.games, p.rating] for p in history]}] if history else []
    author_page = hasattr(request.app.state, "service")  # the service's /author is served
    return render(request, "bot.html", bot=detail, chart=chart, author_page=author_page)


@router.get("/matches", response_class=HTMLResponse)
def matches(
    request: Request,
    bot: str | None = None,
    version: str | None = None,
    status: str | None = None,
    before: Before = None,
    limit: Limit = PAGE,
) -> HTMLResponse:
    """A ladder's matches, newest first, filtered; a folder's match folders."""
    source = request.app.state.source
    if isinstance(source, FolderSource):
        listed = [models.MatchOut.model_validate(match) for match in source.matches()]
        return render(request, "matches.html", matches=listed, filters=None, older=None)
    filters = {"bot": _text(bot), "version": _text(version), "status": _text(status)}
    infos = ladder_of(request).matches(
        filters["bot"],
        version=filters["version"],
        status=filters["status"],
        limit=limit,
        before=before,
    )
    older = _link(request, before=infos[-1].id) if len(infos) == limit else None
    return render(
        request,
        "matches.html",
        matches=[models.MatchOut.model_validate(info) for info in infos],
        filters=filters,
        older=older,
        newest=_link(request, before=None) if before else None,
    )


@router.get("/matches/{key:path}", response_class=HTMLResponse)
def match(request: Request, key: str, offset: Offset = 0) -> HTMLResponse:
    """A match and its games, a line per deal pair: both games, the pair's result for
    bot A (the pentanomial's bucket), each game's faults, a link to the comparison."""
    source = request.app.state.source
    if isinstance(source, FolderSource):
        return _folder_match(request, source, key, offset)
    ladder = ladder_of(request)
    found = ladder.match(key)
    games = [models.GameOut.model_validate(info) for info in ladder.match_games(found.id)]
    return _match_page(request, models.MatchOut.model_validate(found), games, offset)


def _folder_match(request: Request, source: FolderSource, key: str, offset: int) -> HTMLResponse:
    header = source.match(key)
    found, _ = source.match_games(key, 0, MOST_GAMES)
    rows = pair_rows([models.folder_game(game, header) for game in found], key)
    shown = {game.game for row in rows[offset : offset + PAGE] for game in (row.a, row.b) if game}
    counted = {
        game.game: game
        for game in source.with_faults(key, [game for game in found if game.game in shown])
    }
    games = [models.folder_game(counted.get(game.game, game), header) for game in found]
    return _match_page(
        request, models.MatchOut.model_validate(header), games, offset, note=header.note
    )


def _match_page(
    request: Request,
    match: models.MatchOut,
    games: list[models.GameOut],
    offset: int,
    note: str | None = None,
) -> HTMLResponse:
    """A page of ``PAGE`` pairs of the match's ``games`` from ``offset``."""
    rows = pair_rows(games, match.key)
    return render(
        request,
        "match.html",
        match=match,
        pairs=rows[offset : offset + PAGE],
        note=note,
        older=_link(request, offset=offset + PAGE) if offset + PAGE < len(rows) else None,
        newer=_link(request, offset=max(0, offset - PAGE) or None) if offset else None,
    )


@router.get("/compare/{pair}", response_class=HTMLResponse)
def compare_served(request: Request, pair: PairNumber, hand: HandNumber = None) -> HTMLResponse:
    """The duplicate comparison of a pair of the match folder served itself."""
    return compare_pair(request, "", pair, hand)


@router.get("/compare/{match:path}/{pair}", response_class=HTMLResponse)
def compare_pair(
    request: Request, match: str, pair: PairNumber, hand: HandNumber = None
) -> HTMLResponse:
    """The two games of a deal pair side by side, hand by hand, with the first decision
    where they diverged in each hand; ``hand`` (by default the first that diverged) is
    shown in full, its divergence analysed."""
    compared = pair_comparison(request, match, pair, hand)
    return render(request, "compare.html", compared=compared, match=compared.match)


@router.get("/games", response_class=HTMLResponse)
def games(
    request: Request,
    bot: str | None = None,
    version: str | None = None,
    result: str | None = None,
    fault: str | None = None,
    before: Before = None,
    offset: Offset = 0,
) -> HTMLResponse:
    """A ladder's games, newest first, filtered by bot, version, result and faults."""
    source = request.app.state.source
    if not isinstance(source, LadderSource):
        return _folder(request, source, offset)
    filters = {
        "bot": _text(bot),
        "version": _text(version),
        "result": _text(result),
        "fault": _text(fault),
    }
    with ladder_answers():
        query = GameQuery(
            bot=filters["bot"],
            version=filters["version"],
            result=filters["result"],
            faults=_fault(filters["fault"]),
            limit=PAGE,
            before=before,
        )
    infos = source.games(query)
    return render(
        request,
        "games.html",
        games=[models.GameOut.model_validate(info) for info in infos],
        filters=filters,
        older=_link(request, before=infos[-1].id) if len(infos) == PAGE else None,
        newest=_link(request, before=None) if before else None,
    )
