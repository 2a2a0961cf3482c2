"""The API's response models, derived from the ladder's and the match folders' own types
(the pages show the same models).

Each model reads its fields from the object it describes (``from_attributes``):
``StandingOut.model_validate(standing)``, ``GameOut.model_validate(game_info)``; a field
named otherwise there says where it comes from (``validation_alias``), and links are
computed from the model's own key. Results lines share their counts (``MatchCounts``).

Every game carries ``url``, its viewer page (``/view/{key}``), and ``record``, its record
as JSON (``/api/games/{key}``): for a ladder the key is the game's number, for a folder
the record's path within it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated
from urllib.parse import quote

from pydantic import (
    AfterValidator,
    AliasChoices,
    AliasPath,
    BaseModel,
    ConfigDict,
    Field,
    computed_field,
)

if TYPE_CHECKING:
    from pitch_ladder.browse import BotPage
    from pitch_ladder.games import GameInfo
    from pitch_ladder.standings import StandingsPage as LadderStandingsPage
    from pitch_referee.match.listing import MatchListing

    from .source import FolderGame


def _in_utc(moment: datetime) -> datetime:
    """A time from the database (naive, in UTC) marked as UTC."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


UtcDateTime = Annotated[datetime, AfterValidator(_in_utc)]
"""A time as the API sends it: RFC 3339 with its offset (``...+00:00``), which the
description's ``date-time`` format requires; the ladder's columns hold naive UTC times."""


class ErrorOut(BaseModel):
    """Any refusal or failure: a 4xx or 5xx status and one line saying why."""

    model_config = ConfigDict(title="Error")
    detail: str


class FromData(BaseModel):
    """A response model read from the attributes of the object it describes."""

    model_config = ConfigDict(
        from_attributes=True,
        coerce_numbers_to_str=True,  # a ladder's numbers are the API's text keys
        json_schema_serialization_defaults_required=True,  # every field is always sent
    )


def fitted(name: str) -> AliasChoices:
    """Where a field of the Bradley-Terry fit is read: ``fit.NAME`` (``None`` before any
    game), or ``NAME`` itself when the model is read back from its own JSON."""
    return AliasChoices(name, AliasPath("fit", name))


class MatchCounts(FromData):
    """Games and how they ended, from one side: the counts every results line shares (a
    standing, a version, against an opponent, beside a partner)."""

    games: int
    wins: int
    losses: int
    draws: int


class TeamRatingOut(FromData):
    mu: float = Field(description="The team model's rating (Elo scale).")
    sigma: float = Field(description="Its standard deviation.")
    lower: float = Field(description="The 95% interval: mu - 2 sigma to mu + 2 sigma.")
    upper: float
    games: int = Field(description="Games in team matches.")


class StandingOut(MatchCounts):
    rank: int | None = Field(description="Within its group; tied ratings share a rank.")
    group: int | None = Field(description="Bots whose results connect: 1 is the largest.")
    bot: str
    version: str
    rating: float | None = Field(
        default=None,
        validation_alias=fitted("rating"),
        description="Bradley-Terry rating (Elo scale), of the fit kept when asked: after new "
        "games it is refitted in the background, and the next answers show the new fit.",
    )
    lower: float | None = Field(
        default=None, validation_alias=fitted("lower"), description="95% interval of the rating."
    )
    upper: float | None = Field(default=None, validation_alias=fitted("upper"))
    elo: float = Field(description="Sequential Elo after the version's last game.")
    score: float | None = Field(description="Points per game, a draw being half.")
    team: TeamRatingOut | None = Field(
        default=None,
        description="The team model's rating from mixed partnerships (None: none played). "
        "The fit, Elo and results above are of same-bot teams.",
    )

    @computed_field(description="The bot's page.")  # type: ignore[prop-decorator]
    @property
    def url(self) -> str:
        return path_url("/bots", self.bot)


class BotOut(FromData):
    name: str
    active: bool
    version: str = Field(description="The latest version.")
    versions: int
    games: int

    @computed_field  # type: ignore[prop-decorator]
    @property
    def url(self) -> str:
        return path_url("/bots", self.name)


class VersionOut(MatchCounts):
    label: str
    hash: str = Field(description="The start of its content hash: the `version` filter.")
    submitted_at: UtcDateTime
    elo: float
    rating: float | None = Field(default=None, validation_alias=fitted("rating"))
    lower: float | None = Field(default=None, validation_alias=fitted("lower"))
    upper: float | None = Field(default=None, validation_alias=fitted("upper"))


class OpponentOut(MatchCounts):
    opponent: str
    points: int = Field(description="What this bot's team scored against it.")
    opponent_points: int


class PartnerOut(MatchCounts):
    partner: str
    games: int = Field(description="Team-match games this bot played beside the partner.")


class GameOut(FromData):
    """A game: a ladder's, a match folder's, or a loose record (only its name known)."""

    key: str = Field(
        validation_alias=AliasChoices("key", "id"),
        description="The game's key: a ladder's game number, or a record path.",
    )
    game: str = Field(
        validation_alias=AliasChoices("game", "game_id"),
        description="The game's id within its match, e.g. pair-00003-b.",
    )
    match: str | None = Field(
        default=None,
        validation_alias=AliasChoices("match", "match_id"),
        description="Its match: a ladder match's id, or a match folder.",
    )
    round: int | None = None
    a: str | None = Field(default=None, description="The match's bot A.")
    b: str | None = None
    a_version: str | None = None
    b_version: str | None = None
    a_score: float | None = Field(default=None, description="1 win, 0.5 draw, 0 loss, for A.")
    a_points: int | None = Field(default=None, description="What A's team scored.")
    b_points: int | None = None
    winner: str | None = Field(
        default=None,
        validation_alias=AliasChoices("winner", "winning_team"),
        description="The bot (or team, alpha+beta) that won; None for a draw or unknown.",
    )
    faults: int | None = None
    termination: str | None = None
    a_partner: str | None = Field(
        default=None, description="Who partnered A in a team match (None: A itself)."
    )
    b_partner: str | None = None

    @computed_field(description="The game's viewer page.")  # type: ignore[prop-decorator]
    @property
    def url(self) -> str:
        return path_url("/view", self.key)

    @computed_field(description="The game's record as JSON.")  # type: ignore[prop-decorator]
    @property
    def record(self) -> str:
        return path_url("/api/games", self.key)


class BotDetailOut(FromData):
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


class RatingPointOut(FromData):
    games: int = Field(description="Games the version had played (0: its start).")
    rating: float = Field(description="Its sequential Elo then.")


class MatchOut(FromData):
    """A match: a ladder's, or a match folder."""

    key: str = Field(
        validation_alias=AliasChoices("key", "id"),
        description="A ladder match's id, or a match folder's path.",
    )
    round: int | None = None
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
    elo: float | None = Field(
        default=None, description="A's Elo over B by the match's statistics (folders)."
    )
    a_partner: str | None = Field(
        default=None, description="Who partners A in a ladder's team match (None: A itself)."
    )
    b_partner: str | None = None

    @computed_field(description="The match's page.")  # type: ignore[prop-decorator]
    @property
    def url(self) -> str:
        return path_url("/matches", self.key) if self.key else "/"


class MatchesPage(BaseModel):
    matches: list[MatchOut]
    next: str | None = Field(description="The next page's URL; None on the last page.")


class StandingsPage(FromData):
    standings: list[StandingOut] = Field(validation_alias=AliasChoices("standings", "lines"))
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


def bot_detail(page: BotPage, recent: Sequence[GameInfo]) -> BotDetailOut:
    """A bot's page with its ``recent`` games, which ``BotPage`` does not hold."""
    return BotDetailOut.model_validate({**vars(page), "recent_games": recent})


def standings_page(page: LadderStandingsPage, next_url: str | None) -> StandingsPage:
    """A page of the standings with the URL of the next, which the ladder's page lacks."""
    return StandingsPage.model_validate({**vars(page), "next": next_url})


def folder_game(game: FolderGame, match: MatchListing) -> GameOut:
    """A match folder's game, its bots and versions from its match's line."""
    a_points = b_points = winner = None
    if game.scores is not None and game.a_team is not None:
        a_points, b_points = game.scores[game.a_team], game.scores[1 - game.a_team]
    if game.a_score is not None:
        winner = {1.0: match.a, 0.0: match.b}.get(game.a_score)
    return GameOut(
        key=game.key,
        game=game.game,
        match=match.key,
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
    return GameOut(key=key, game=key)
