"""The ladder's tables: authors and their tokens, bots, their versions, matches, games,
ratings, and whose it is.

The games are the ladder's facts; ``rating_history``, ``version_rating``, ``pair_total``,
the cached fit (``fit_rating``, ``fit_state``) and team ratings (``team_rating``,
``team_fit_state``) are derived from them and kept up to
date as games are stored (``pitch_ladder.rating_tables``), so that no read needs every game.

Each table has a fields-only data model (``...Base``) that validates input; rows are built
with ``Table.model_validate(...)``, never with the table constructor, which skips
validation. Schema changes go through an Alembic migration in ``migrations/versions``
(a test checks that the migrations and these models agree).

This module imports nothing from the rest of the ladder.
"""

import gzip
import json
import secrets
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    DateTime,
    Dialect,
    Index,
    Integer,
    LargeBinary,
    TypeDecorator,
    UniqueConstraint,
    text,
)
from sqlmodel import Field, SQLModel

from pitch_sdk.record import COMPRESS_LEVEL, GZIP_MAGIC

SQLModel.metadata.naming_convention = {
    "ix": "ix_%(table_name)s_%(column_0_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}
"""Named constraints, so that migrations can refer to them on every database."""


def now() -> datetime:
    """The current time in UTC, as stored in every ``..._at`` column."""
    return datetime.now(UTC)


def _timestamp(**kwargs: Any) -> Any:
    return Field(sa_type=DateTime(timezone=True), **kwargs)


def new_deal_secret() -> str:
    """A ladder's secret for its deals: 256 random bits, in hex."""
    return secrets.token_hex(32)


_SEED = BigInteger().with_variant(Integer(), "sqlite")
"""64 bits: PostgreSQL's INTEGER has 32, SQLite's INTEGER already has 64."""


LOCAL_AUTHOR_ID = 1
"""The author ``local`` (made by migration 0006, the ``author`` table's first row): who
owns a bot submitted on this machine without naming an author (``pitch ladder submit``)."""


class AuthorBase(SQLModel):
    name: str = Field(max_length=64, unique=True, index=True)
    admin: bool = False
    """An operator: may act on every author's bots (the service's admin actions)."""
    created_at: datetime = _timestamp(default_factory=now)


class Author(AuthorBase, table=True):
    """Someone who submits bots: the owner of every bot name they submitted first."""

    id: int | None = Field(default=None, primary_key=True)


class AuthorTokenBase(SQLModel):
    author_id: int = Field(foreign_key="author.id", index=True)
    secret_hash: str = Field(max_length=255)
    """``scrypt$n$r$p$salt$digest`` of the token's secret (see ``pitch_ladder.authors``)."""
    created_at: datetime = _timestamp(default_factory=now)
    revoked_at: datetime | None = _timestamp(default=None)
    """When it stopped working (``author revoke`` or ``rotate``); None while it works."""


class AuthorToken(AuthorTokenBase, table=True):
    """An API token, found by its public id (``pa_<id>_<secret>``), never by its secret."""

    __tablename__ = "author_token"
    id: str = Field(primary_key=True, max_length=32)
    """The token's public id: random hex, shown by ``author list``."""


class BotBase(SQLModel):
    name: str = Field(max_length=64, unique=True, index=True)
    """The ladder name (``submit --name``, else the manifest's)."""
    author_id: int = Field(
        default=LOCAL_AUTHOR_ID,
        foreign_key="author.id",
        index=True,
        sa_column_kwargs={"server_default": str(LOCAL_AUTHOR_ID)},
    )
    """Who owns the name: the author who first submitted it; their versions only."""
    active: bool = True
    """Retired bots keep their games and ratings but are not scheduled."""
    created_at: datetime = _timestamp(default_factory=now)


class Bot(BotBase, table=True):
    id: int | None = Field(default=None, primary_key=True)


class BotVersionBase(SQLModel):
    bot_id: int = Field(foreign_key="bot.id", index=True)
    content_hash: str = Field(max_length=64)
    """sha256 over the submitted folder's sorted relative paths and file bytes."""
    folder: str
    """The ladder's copy, relative to the ladder folder: ``bots/<name>/<hash12>``."""
    manifest_name: str
    manifest_version: str
    command: list[str] = Field(sa_type=JSON)
    description: str = ""
    author: str = ""
    """The manifest's free-text ``author`` field; the owner is ``bot.author_id``."""
    submitted_at: datetime = _timestamp(default_factory=now)


class BotVersion(BotVersionBase, table=True):
    __tablename__ = "bot_version"
    __table_args__ = (UniqueConstraint("bot_id", "content_hash"),)
    id: int | None = Field(default=None, primary_key=True)


class MatchBase(SQLModel):
    round: int = Field(index=True)
    a_version_id: int = Field(foreign_key="bot_version.id", index=True)
    b_version_id: int = Field(foreign_key="bot_version.id", index=True)
    a_partner_version_id: int | None = Field(default=None, foreign_key="bot_version.id")
    """Who partners version A in its team (the mixed-partnership format); ``None``: A
    itself, as in every round-robin match."""
    b_partner_version_id: int | None = Field(default=None, foreign_key="bot_version.id")
    seed: int = Field(sa_type=_SEED)
    """Derived from the ladder's deal secret, the round and the two bot names: the same
    schedule gives the same deals, and nobody without the secret can work them out."""
    games_planned: int
    settings: dict[str, Any] = Field(sa_type=JSON)
    """``pitch_referee.match.MatchSettings`` as a dict."""
    folder: str
    """The match folder, relative to the ladder folder: ``matches/<round>-<a>-vs-<b>``
    (``<a>+<partner>-vs-<b>+<partner>`` for a team match): one per match."""
    status: str = "pending"
    """``pending`` (scheduled or interrupted), ``finished`` or ``cancelled`` (a bot retired)."""
    created_at: datetime = _timestamp(default_factory=now)
    finished_at: datetime | None = _timestamp(default=None)


class Match(MatchBase, table=True):
    __table_args__ = (
        UniqueConstraint("folder"),
        Index("ix_match_status_round_id", "status", "round", "id"),  # pending, in play order
    )
    id: int | None = Field(default=None, primary_key=True)


class GameBase(SQLModel):
    match_id: int = Field(foreign_key="match.id", index=True)
    round: int
    """The match's round, copied here with its versions so that the ratings and the
    listings find games by index without joining their matches."""
    a_version_id: int = Field(foreign_key="bot_version.id")
    """The match's version A."""
    b_version_id: int = Field(foreign_key="bot_version.id")
    a_partner_version_id: int | None = Field(default=None, foreign_key="bot_version.id")
    """The match's partners (``None``: a same-bot team). Elo and the Bradley-Terry fit
    rate same-bot teams only; the team model rates the games with a partner."""
    b_partner_version_id: int | None = Field(default=None, foreign_key="bot_version.id")
    game_id: str = Field(max_length=64)
    """The game's id within its match, e.g. ``pair-00003-b``."""
    a_team: int
    """The team (0: seats 0 and 2) that bot A's version played."""
    a_score: float
    """1 win, 0.5 draw, 0 loss, from bot A's side."""
    b_score: float
    a_points: int
    b_points: int
    faults: int
    termination: str
    record_path: str
    """The record file, relative to the ladder folder; the record itself is in
    ``game_record``, so that reading games never reads records."""
    finished_at: datetime = _timestamp()


class Game(GameBase, table=True):
    __table_args__ = (
        UniqueConstraint("match_id", "game_id"),
        Index("ix_game_round_match_id", "round", "match_id"),  # the Elo order
        Index("ix_game_a_version_id_id", "a_version_id", "id"),  # a version's games, newest
        Index("ix_game_b_version_id_id", "b_version_id", "id"),
        Index("ix_game_a_partner_version_id_id", "a_partner_version_id", "id"),
        Index("ix_game_b_partner_version_id_id", "b_partner_version_id", "id"),
        Index(  # the games with faults, newest first: few among many (the web's filter)
            "ix_game_faulty_id",
            "id",
            sqlite_where=text("faults > 0"),
            postgresql_where=text("faults > 0"),
        ),
        Index(  # the team model's games, in order (the mixed-partnership format's)
            "ix_game_partnered_round_match_id",
            "round",
            "match_id",
            sqlite_where=text("a_partner_version_id IS NOT NULL"),
            postgresql_where=text("a_partner_version_id IS NOT NULL"),
        ),
    )
    id: int | None = Field(default=None, primary_key=True)


def packed(data: bytes) -> bytes:
    """A record file's bytes as ``game_record`` keeps them: gzip-compressed (a compressed
    file's as they are)."""
    return data if data.startswith(GZIP_MAGIC) else gzip.compress(data, COMPRESS_LEVEL, mtime=0)


class PackedRecord(TypeDecorator[dict[str, Any]]):
    """A record kept as gzip-compressed JSON bytes, read as the record's JSON object.

    A record is about 26 KB of indented JSON (``hand_cap`` 60) and 3 KB compressed.
    Kept as JSON text, PostgreSQL checked it as JSON and compressed it again (pglz, for
    its TOAST table) on every insert, on the cores that play and store the games; kept
    packed, a cluster's record is stored as the bytes its worker compressed for the trip
    (``importer``). Written as bytes (``packed``'s) or as a JSON object (packed here);
    read from gzip bytes (every row since migration 0013) or plain JSON ones (rows
    stored before it), told apart by gzip's first bytes as ``load_record`` tells files.
    """

    impl = LargeBinary
    cache_ok = True

    def process_bind_param(self, value: Any, dialect: Dialect) -> bytes | None:
        if value is None or isinstance(value, bytes):
            return value
        return packed(json.dumps(value, separators=(",", ":")).encode())

    def process_result_value(self, value: Any, dialect: Dialect) -> dict[str, Any] | None:
        if value is None:
            return None
        data = bytes(value)
        loaded: dict[str, Any] = json.loads(
            gzip.decompress(data) if data.startswith(GZIP_MAGIC) else data
        )
        return loaded


class GameRecordBase(SQLModel):
    game_id: int = Field(foreign_key="game.id", primary_key=True)
    record: dict[str, Any] = Field(sa_type=PackedRecord)
    """The whole game record, stored with its game in the same transaction."""


class GameRecord(GameRecordBase, table=True):
    """A game's record, apart from the game's row: lists and ratings read games whole
    without reading (on SQLite, without even paging through) their records."""

    __tablename__ = "game_record"


class RatingHistoryBase(SQLModel):
    version_id: int = Field(foreign_key="bot_version.id", index=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    """The ``game.id`` after which the version had this rating."""
    rating: float
    """Sequential Elo after the game (see ``pitch_ladder.rating_tables``)."""
    rating_before: float
    """Sequential Elo before the game: where a replay from this game on starts."""


class RatingHistory(RatingHistoryBase, table=True):
    __tablename__ = "rating_history"
    __table_args__ = (UniqueConstraint("version_id", "game_id"),)
    id: int | None = Field(default=None, primary_key=True)


class VersionRatingBase(SQLModel):
    version_id: int = Field(foreign_key="bot_version.id", primary_key=True)
    elo: float
    """Sequential Elo after the version's last game in the Elo order."""
    games: int
    wins: int
    losses: int
    draws: int


class VersionRating(VersionRatingBase, table=True):
    """A version's current Elo and results: one row per version that has played."""

    __tablename__ = "version_rating"


class PairTotalBase(SQLModel):
    a_version_id: int = Field(foreign_key="bot_version.id", primary_key=True)
    """The lower version id of the two."""
    b_version_id: int = Field(foreign_key="bot_version.id", primary_key=True)
    games: int
    a_points: float
    """What the lower version scored in those games (a draw is half a point)."""


class PairTotal(PairTotalBase, table=True):
    """Every game between two versions, summed: all the Bradley-Terry fit reads."""

    __tablename__ = "pair_total"


class FitRatingBase(SQLModel):
    version_id: int = Field(foreign_key="bot_version.id", primary_key=True)
    rating: float
    lower: float
    upper: float
    games: int
    group_index: int
    """Which of the fit's groups (``ratings.connected_groups`` order) the version is in."""
    place: int | None = Field(default=None, index=True)
    """The version's line in the standings of the active bots when the fit was kept (0 is
    the first line: ``standings.placements``); ``None``: not shown then (an older
    version, a retired bot). The standings are read a page at a time in this order."""
    rank: int | None = None
    """Its rank within its group then (``standings.Standing.rank``)."""
    group_number: int | None = None
    """Its group's number then (``standings.Standing.group``)."""


class FitRating(FitRatingBase, table=True):
    """The last Bradley-Terry fit, per version: valid while ``fit_state`` says so."""

    __tablename__ = "fit_rating"


class FitStateBase(SQLModel):
    through_game_id: int | None = None
    """The newest ``game.id`` when the fit was computed (None: there was no game)."""
    fitted_at: datetime = _timestamp(default_factory=now)


class FitState(FitStateBase, table=True):
    """One row (id 1): which games ``fit_rating`` holds the fit of."""

    __tablename__ = "fit_state"
    id: int | None = Field(default=None, primary_key=True)


class TeamRatingRowBase(SQLModel):
    version_id: int = Field(foreign_key="bot_version.id", primary_key=True)
    mu: float
    """The team model's rating, in Elo points (``pitch_referee.team_ratings``)."""
    sigma: float
    games: int


class TeamRatingRow(TeamRatingRowBase, table=True):
    """The team model's rating of each version that played with a partner: valid while
    ``team_fit_state`` names the newest game."""

    __tablename__ = "team_rating"


class TeamFitStateBase(SQLModel):
    through_game_id: int | None = None
    """The newest ``game.id`` when the team ratings were computed."""
    rated_games: int = 0
    """How many team games they rate: with the last one's place in the Elo order (round,
    match, game id), what tells whether later games only came after it."""
    last_round: int = 0
    last_match_id: int = 0
    last_game: str = Field(default="", max_length=64)
    fitted_at: datetime = _timestamp(default_factory=now)


class TeamFitState(TeamFitStateBase, table=True):
    """One row (id 1): which games ``team_rating`` holds the ratings of."""

    __tablename__ = "team_fit_state"
    id: int | None = Field(default=None, primary_key=True)


class LadderIdentityBase(SQLModel):
    ladder_id: str = Field(max_length=36)
    """The id in the owning folder's ``ladder.toml`` (see ``pitch_ladder.ownership``)."""
    deal_secret: str = Field(default_factory=new_deal_secret, max_length=64)
    """The key of the match seeds (``pitch_ladder.schedule.match_seed``): made when the
    ladder claims the database, kept only there, never shown."""
    created_at: datetime = _timestamp(default_factory=now)


class LadderIdentity(LadderIdentityBase, table=True):
    """The one row saying which ladder folder this database belongs to."""

    __tablename__ = "ladder_identity"
    id: int | None = Field(default=None, primary_key=True)
    """Always 1: a second claim on the database fails on the primary key."""


class SchedulerStateBase(SQLModel):
    paused: bool = False
    """Whether the service's scheduler stops after its current step."""
    changed_at: datetime = _timestamp(default_factory=now)
    changed_by: str = Field(default="", max_length=64)
    """Who flipped the switch: an author's name, or ``cli``."""


class SchedulerState(SchedulerStateBase, table=True):
    """One row (id 1): the service scheduler's pause switch, flipped by the CLI or the API."""

    __tablename__ = "scheduler_state"
    id: int | None = Field(default=None, primary_key=True)


class SubmissionVerdictBase(SQLModel):
    author_id: int = Field(foreign_key="author.id")
    bot: str = Field(default="", max_length=64)
    """The bot's name from its ``bot.toml`` (empty when the archive had none to read)."""
    content_hash: str = Field(default="", max_length=64)
    accepted: bool
    new: bool = False
    """An accepted version that was not already stored (identical content is a no-op)."""
    version: str = Field(default="", max_length=96)
    """The stored version's label, when accepted."""
    reason: str = ""
    """Why it was refused: one line, then the bot's stderr tail where there is one."""
    submitted_at: datetime = _timestamp(default_factory=now)


class SubmissionVerdict(SubmissionVerdictBase, table=True):
    """What the service said to one upload: readable by its author (and admins) only."""

    __tablename__ = "submission_verdict"
    __table_args__ = (Index("ix_submission_verdict_author_id_id", "author_id", "id"),)
    id: int | None = Field(default=None, primary_key=True)


class AuthorLimitBase(SQLModel):
    uploads_per_hour: int | None = None
    """Uploads accepted for checking in any hour; None: the server's setting."""
    checks: int | None = None
    """The author's uploads being checked or waiting for a check at once."""
    versions: int | None = None
    """Bot versions stored for the author, retired bots' included."""
    disk_bytes: int | None = Field(default=None, sa_type=_SEED)
    """Bytes of the files of the author's stored versions, as unpacked."""
    changed_at: datetime = _timestamp(default_factory=now)


class AuthorLimit(AuthorLimitBase, table=True):
    """An admin's override of the server's per-author limits (``pitch ladder author limits``):
    one row per author who has one; a None column keeps the server's setting."""

    __tablename__ = "author_limit"
    author_id: int = Field(foreign_key="author.id", primary_key=True)
