"""The API's response models, and the one place where the ladder's and the match folders'
rows become them (the pages show the same models).

Every game carries ``url``, its viewer page (``/view/{key}``), and ``record``, its record
as JSON (``/api/games/{key}``): for a ladder the key is the game's number, for a folder
the record's path within it.
"""

from __future__ import annotations

from dataclasses import asdict
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated
from urllib.parse import quote

from pydantic import AfterValidator, BaseModel, Field

if TYPE_CHECKING:
    from pitch_ladder.browse import BotPage, MatchInfo
    from pitch_ladder.games import GameInfo
    from pitch_ladder.ladder import BotInfo
    from pitch_ladder.standings import Standing
    from pitch_ladder.standings import StandingsPage as LadderStandingsPage
    from pitch_referee.match.listing import MatchListing
    from pitch_referee.team_ratings import TeamRating

    from .source import FolderGame


def _in_utc(moment: datetime) -> datetime:
    """A time from the database (naive, in UTC) marked as UTC."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


UtcDateTime = Annotated[datetime, AfterValidator(_in_utc)]
"""A time as the API sends it: RFC 3339 with its offset (``...+00:00``), which the
description's ``date-time`` format requires; the ladder's columns hold naive UTC times."""


class StandingOut(BaseModel):
    rank: int | None = Field(description="Within its group; tied ratings share a rank.")
    group: int | None = Field(description="Bots whose results connect: 1 is the largest.")
    bot: str
    version: str
    rating: float | None = Field(
        description="Bradley-Terry rating (Elo scale), of the fit kept when asked: after new "
        "games it is refitted in the background, and the next answers show the new fit."
    )
    lower: float | None = Field(description="95% interval of the rating.")
    upper: float | None
    elo: float = Field(description="Sequential Elo after the version's last game.")
    games: int
    wins: int
    losses: int
    draws: int
    score: float | None = Field(description="Points per game, a draw being half.")
    team: TeamRatingOut | None = Field(
        default=None,
        description="The team model's rating from mixed partnerships (None: none played). "
        "The fit, Elo and results above are of same-bot teams.",
    )
    url: str = Field(description="The bot's page.")


class TeamRatingOut(BaseModel):
    mu: float = Field(description="The team model's rating (Elo scale).")
    sigma: float = Field(description="Its standard deviation.")
    lower: float = Field(description="The 95% interval: mu - 2 sigma to mu + 2 sigma.")
    upper: float
    games: int = Field(description="Games in team matches.")


class BotOut(BaseModel):
    name: str
    active: bool
    version: str = Field(description="The latest version.")
    versions: int
    games: int
    url: str


class VersionOut(BaseModel):
    label: str
    hash: str = Field(description="The start of its content hash: the `version` filter.")
    submitted_at: UtcDateTime
    elo: float
    rating: float | None
    lower: float | None
    upper: float | None
    games: int
    wins: int
    losses: int
    draws: int


class OpponentOut(BaseModel):
    opponent: str
    games: int
    wins: int
    losses: int
    draws: int
    points: int = Field(description="What this bot's team scored against it.")
    opponent_points: int


class PartnerOut(BaseModel):
    partner: str
    games: int = Field(description="Team-match games this bot played beside the partner.")
    wins: int
    losses: int
    draws: int


class GameOut(BaseModel):
    key: str = Field(description="The game's key: a ladder's game number, or a record path.")
    url: str = Field(description="The game's viewer page.")
    record: str = Field(description="The game's record as JSON.")
    game: str = Field(description="The game's id within its match, e.g. pair-00003-b.")
    match: str | None = Field(description="Its match: a ladder match's id, or a match folder.")
    round: int | None
    a: str | None = Field(description="The match's bot A.")
    b: str | None
    a_version: str | None
    b_version: str | None
    a_score: float | None = Field(description="1 win, 0.5 draw, 0 loss, for A.")
    a_points: int | None = Field(description="What A's team scored.")
    b_points: int | None
    winner: str | None = Field(
        description="The bot (or team, alpha+beta) that won; None for a draw or unknown."
    )
    faults: int | None
    termination: str | None
    a_partner: str | None = Field(
        default=None, description="Who partnered A in a team match (None: A itself)."
    )
    b_partner: str | None = None


class BotDetailOut(BaseModel):
    name: str
    active: bool
    versions: list[VersionOut] = Field(description="Newest first.")
    opponents: list[OpponentOut] = Field(
        description="Results in same-bot games by opponent, most games first."
    )
    partners: list[PartnerOut] = Field(
        default_factory=list,
        description="Results in team matches (mixed partnerships) by partner, most games first.",
    )
    team: TeamRatingOut | None = Field(
        default=None, description="The latest version's team-model rating (None: none played)."
    )
    faults: dict[str, int] = Field(description="Its faults by kind, in its newest faulty games.")
    fault_games: int = Field(description="Games with faults read for `faults` (at most 200).")
    recent_games: list[GameOut]


class RatingPointOut(BaseModel):
    games: int = Field(description="Games the version had played (0: its start).")
    rating: float = Field(description="Its sequential Elo then.")


class MatchOut(BaseModel):
    key: str = Field(description="A ladder match's id, or a match folder's path.")
    url: str = Field(description="The match's page.")
    round: int | None
    a: str
    b: str
    a_version: str | None
    b_version: str | None
    status: str | None
    games_planned: int | None
    games_played: int
    wins: int | None = Field(description="A's wins, losses and draws.")
    losses: int | None
    draws: int | None
    a_points: int | None
    b_points: int | None
    elo: float | None = Field(description="A's Elo over B by the match's statistics (folders).")
    a_partner: str | None = Field(
        default=None, description="Who partners A in a ladder's team match (None: A itself)."
    )
    b_partner: str | None = None


class MatchesPage(BaseModel):
    matches: list[MatchOut]
    next: str | None = Field(description="The next page's URL; None on the last page.")


class StandingsPage(BaseModel):
    standings: list[StandingOut]
    total: int = Field(description="Lines in the whole standings (the active bots).")
    fit_through_game: int | None = Field(
        description="The ratings, ranks and order are the fit of the games up to this one "
        "(None: there was no game then)."
    )
    newest_game: int | None = Field(
        description="The newest game stored, which Elo and the counts include. When it is "
        "past `fit_through_game`, a refit is running: the next answers show it."
    )
    next: str | None = Field(description="The next page's URL; None on the last page.")


class GamesPage(BaseModel):
    games: list[GameOut]
    next: str | None = Field(description="The next page's URL; None on the last page.")


def path_url(prefix: str, key: str) -> str:
    """``prefix/key`` with the key's characters quoted but its slashes kept."""
    return f"{prefix}/{quote(key, safe='/')}"


def standing(line: Standing) -> StandingOut:
    fit, team = line.fit, line.team
    return StandingOut(
        rank=line.rank,
        group=line.group,
        bot=line.bot,
        version=line.version,
        rating=fit.rating if fit else None,
        lower=fit.lower if fit else None,
        upper=fit.upper if fit else None,
        elo=line.elo,
        games=line.games,
        wins=line.wins,
        losses=line.losses,
        draws=line.draws,
        score=line.score,
        team=team_rating(team),
        url=path_url("/bots", line.bot),
    )


def standings_page(page: LadderStandingsPage, next_url: str | None) -> StandingsPage:
    return StandingsPage(
        standings=[standing(line) for line in page.lines],
        total=page.total,
        fit_through_game=page.fit_through_game,
        newest_game=page.newest_game,
        next=next_url,
    )


def team_rating(team: TeamRating | None) -> TeamRatingOut | None:
    if team is None:
        return None
    return TeamRatingOut(
        mu=team.mu, sigma=team.sigma, lower=team.lower, upper=team.upper, games=team.games
    )


def bot(info: BotInfo) -> BotOut:
    return BotOut(
        name=info.name,
        active=info.active,
        version=info.version,
        versions=info.versions,
        games=info.games,
        url=path_url("/bots", info.name),
    )


def bot_detail(page: BotPage, recent: list[GameOut]) -> BotDetailOut:
    return BotDetailOut(
        name=page.name,
        active=page.active,
        versions=[
            VersionOut(
                label=line.label,
                hash=line.hash,
                submitted_at=line.submitted_at,
                elo=line.elo,
                rating=line.fit.rating if line.fit else None,
                lower=line.fit.lower if line.fit else None,
                upper=line.fit.upper if line.fit else None,
                games=line.games,
                wins=line.wins,
                losses=line.losses,
                draws=line.draws,
            )
            for line in page.versions
        ],
        opponents=[
            OpponentOut(
                opponent=line.opponent,
                games=line.games,
                wins=line.wins,
                losses=line.losses,
                draws=line.draws,
                points=line.points,
                opponent_points=line.opponent_points,
            )
            for line in page.opponents
        ],
        partners=[PartnerOut(**asdict(line)) for line in page.partners],
        team=team_rating(page.team),
        faults=page.faults,
        fault_games=page.fault_games,
        recent_games=recent,
    )


def ladder_game(info: GameInfo) -> GameOut:
    key = str(info.id)
    return GameOut(
        key=key,
        url=path_url("/view", key),
        record=path_url("/api/games", key),
        game=info.game_id,
        match=str(info.match_id),
        round=info.round,
        a=info.a,
        b=info.b,
        a_version=info.a_version,
        b_version=info.b_version,
        a_score=info.a_score,
        a_points=info.a_points,
        b_points=info.b_points,
        winner={1.0: info.team("a"), 0.0: info.team("b")}.get(info.a_score),
        faults=info.faults,
        termination=info.termination,
        a_partner=info.a_partner,
        b_partner=info.b_partner,
    )


def ladder_match(info: MatchInfo) -> MatchOut:
    return MatchOut(
        key=str(info.id),
        url=path_url("/matches", str(info.id)),
        round=info.round,
        a=info.a,
        b=info.b,
        a_version=info.a_version,
        b_version=info.b_version,
        status=info.status,
        games_planned=info.games_planned,
        games_played=info.games_played,
        wins=info.wins,
        losses=info.losses,
        draws=info.draws,
        a_points=info.a_points,
        b_points=info.b_points,
        elo=None,
        a_partner=info.a_partner,
        b_partner=info.b_partner,
    )


def folder_match(match: MatchListing) -> MatchOut:
    return MatchOut(
        key=match.key,
        url=path_url("/matches", match.key) if match.key else "/",
        round=None,
        a=match.a,
        b=match.b,
        a_version=match.a_version,
        b_version=match.b_version,
        status=match.status,
        games_planned=match.games_planned,
        games_played=match.games_played,
        wins=match.wins,
        losses=match.losses,
        draws=match.draws,
        a_points=match.a_points,
        b_points=match.b_points,
        elo=match.elo,
    )


def folder_game(game: FolderGame, match: MatchListing) -> GameOut:
    a_points = b_points = winner = None
    if game.scores is not None and game.a_team is not None:
        a_points, b_points = game.scores[game.a_team], game.scores[1 - game.a_team]
    if game.a_score is not None:
        winner = {1.0: match.a, 0.0: match.b}.get(game.a_score)
    return GameOut(
        key=game.key,
        url=path_url("/view", game.key),
        record=path_url("/api/games", game.key),
        game=game.game,
        match=match.key,
        round=None,
        a=match.a,
        b=match.b,
        a_version=match.a_version,
        b_version=match.b_version,
        a_score=game.a_score,
        a_points=a_points,
        b_points=b_points,
        winner=winner,
        faults=game.faults,
        termination=game.termination,
    )


def loose_game(key: str) -> GameOut:
    """A record file outside any match: only its name is known without reading it."""
    return GameOut(
        key=key,
        url=path_url("/view", key),
        record=path_url("/api/games", key),
        game=key,
        match=None,
        round=None,
        a=None,
        b=None,
        a_version=None,
        b_version=None,
        a_score=None,
        a_points=None,
        b_points=None,
        winner=None,
        faults=None,
        termination=None,
    )
