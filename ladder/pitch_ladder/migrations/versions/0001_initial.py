"""The initial schema: bots, bot versions, matches, games and rating history.

Revision ID: 0001
Revises: (none)
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "bot",
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("id", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_bot")),
    )
    with op.batch_alter_table("bot", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_bot_name"), ["name"], unique=True)

    op.create_table(
        "bot_version",
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("content_hash", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("folder", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("manifest_name", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("manifest_version", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("command", sa.JSON(), nullable=False),
        sa.Column("description", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("author", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("submitted_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["bot_id"], ["bot.id"], name=op.f("fk_bot_version_bot_id_bot")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_bot_version")),
        sa.UniqueConstraint(
            "bot_id", "content_hash", name=op.f("uq_bot_version_bot_id_content_hash")
        ),
    )
    with op.batch_alter_table("bot_version", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_bot_version_bot_id"), ["bot_id"], unique=False)

    op.create_table(
        "match",
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("a_version_id", sa.Integer(), nullable=False),
        sa.Column("b_version_id", sa.Integer(), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("games_planned", sa.Integer(), nullable=False),
        sa.Column("settings", sa.JSON(), nullable=False),
        sa.Column("folder", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["a_version_id"], ["bot_version.id"], name=op.f("fk_match_a_version_id_bot_version")
        ),
        sa.ForeignKeyConstraint(
            ["b_version_id"], ["bot_version.id"], name=op.f("fk_match_b_version_id_bot_version")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_match")),
        sa.UniqueConstraint(
            "round",
            "a_version_id",
            "b_version_id",
            name=op.f("uq_match_round_a_version_id_b_version_id"),
        ),
    )
    with op.batch_alter_table("match", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_match_a_version_id"), ["a_version_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_match_b_version_id"), ["b_version_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_match_round"), ["round"], unique=False)

    op.create_table(
        "game",
        sa.Column("match_id", sa.Integer(), nullable=False),
        sa.Column("game_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("a_team", sa.Integer(), nullable=False),
        sa.Column("a_score", sa.Float(), nullable=False),
        sa.Column("b_score", sa.Float(), nullable=False),
        sa.Column("a_points", sa.Integer(), nullable=False),
        sa.Column("b_points", sa.Integer(), nullable=False),
        sa.Column("faults", sa.Integer(), nullable=False),
        sa.Column("termination", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("record_path", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("record", sa.JSON(), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["match_id"], ["match.id"], name=op.f("fk_game_match_id_match")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_game")),
        sa.UniqueConstraint("match_id", "game_id", name=op.f("uq_game_match_id_game_id")),
    )
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_game_match_id"), ["match_id"], unique=False)

    op.create_table(
        "rating_history",
        sa.Column("version_id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["game.id"], name=op.f("fk_rating_history_game_id_game")
        ),
        sa.ForeignKeyConstraint(
            ["version_id"],
            ["bot_version.id"],
            name=op.f("fk_rating_history_version_id_bot_version"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rating_history")),
        sa.UniqueConstraint(
            "version_id", "game_id", name=op.f("uq_rating_history_version_id_game_id")
        ),
    )
    with op.batch_alter_table("rating_history", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_rating_history_game_id"), ["game_id"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_rating_history_version_id"), ["version_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("rating_history", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_rating_history_version_id"))
        batch_op.drop_index(batch_op.f("ix_rating_history_game_id"))

    op.drop_table("rating_history")
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_game_match_id"))

    op.drop_table("game")
    with op.batch_alter_table("match", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_match_round"))
        batch_op.drop_index(batch_op.f("ix_match_b_version_id"))
        batch_op.drop_index(batch_op.f("ix_match_a_version_id"))

    op.drop_table("match")
    with op.batch_alter_table("bot_version", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_bot_version_bot_id"))

    op.drop_table("bot_version")
    with op.batch_alter_table("bot", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_bot_name"))

    op.drop_table("bot")
