"""The mixed-partnership format: matches and games with a partner per team, team ratings.

A match's teams may be two different bots (``a_partner_version_id``,
``b_partner_version_id``; NULL is a same-bot team, as every match before). The three team
matches of a quartet can pair the same versions A and B in one round, so a match is
unique by its folder instead of by its round and versions. The games copy the partners
(indexed, for a bot's games), with an index of the partnered games in the Elo order for
the team model, whose ratings
are kept like the Bradley-Terry fit (``team_rating``, valid while ``team_fit_state``
names the newest game).

Revision ID: 0010
Revises: 0009
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_PARTNERED = "a_partner_version_id IS NOT NULL"


def upgrade() -> None:
    with op.batch_alter_table("match") as batch_op:
        for side in "ab":
            column = f"{side}_partner_version_id"
            batch_op.add_column(sa.Column(column, sa.Integer(), nullable=True))
            batch_op.create_foreign_key(
                batch_op.f(f"fk_match_{column}_bot_version"), "bot_version", [column], ["id"]
            )
        batch_op.drop_constraint("uq_match_round_a_version_id_b_version_id", type_="unique")
        batch_op.create_unique_constraint(batch_op.f("uq_match_folder"), ["folder"])
    with op.batch_alter_table("game") as batch_op:
        for side in "ab":
            column = f"{side}_partner_version_id"
            batch_op.add_column(sa.Column(column, sa.Integer(), nullable=True))
            batch_op.create_foreign_key(
                batch_op.f(f"fk_game_{column}_bot_version"), "bot_version", [column], ["id"]
            )
            batch_op.create_index(f"ix_game_{column}_id", [column, "id"], unique=False)
    op.create_index(  # no batch: SQLite creates an index without copying the table
        "ix_game_partnered_round_match_id",
        "game",
        ["round", "match_id"],
        unique=False,
        sqlite_where=sa.text(_PARTNERED),
        postgresql_where=sa.text(_PARTNERED),
    )
    op.create_table(
        "team_rating",
        sa.Column("version_id", sa.Integer(), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["version_id"], ["bot_version.id"], name=op.f("fk_team_rating_version_id_bot_version")
        ),
        sa.PrimaryKeyConstraint("version_id", name=op.f("pk_team_rating")),
    )
    op.create_table(
        "team_fit_state",
        sa.Column("through_game_id", sa.Integer(), nullable=True),
        sa.Column("rated_games", sa.Integer(), nullable=False),
        sa.Column("last_round", sa.Integer(), nullable=False),
        sa.Column("last_match_id", sa.Integer(), nullable=False),
        sa.Column("last_game", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("fitted_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("id", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_team_fit_state")),
    )


def downgrade() -> None:
    op.drop_table("team_fit_state")
    op.drop_table("team_rating")
    op.drop_index("ix_game_partnered_round_match_id", table_name="game")
    with op.batch_alter_table("game") as batch_op:
        for side in "ab":
            column = f"{side}_partner_version_id"
            batch_op.drop_index(f"ix_game_{column}_id")
            batch_op.drop_constraint(f"fk_game_{column}_bot_version", type_="foreignkey")
            batch_op.drop_column(column)
    with op.batch_alter_table("match") as batch_op:
        batch_op.drop_constraint("uq_match_folder", type_="unique")
        batch_op.create_unique_constraint(
            "uq_match_round_a_version_id_b_version_id", ["round", "a_version_id", "b_version_id"]
        )
        for side in "ab":
            column = f"{side}_partner_version_id"
            batch_op.drop_constraint(f"fk_match_{column}_bot_version", type_="foreignkey")
            batch_op.drop_column(column)
