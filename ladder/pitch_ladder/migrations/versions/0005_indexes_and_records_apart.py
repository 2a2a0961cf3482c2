"""Indexes for every filter the commands and the scheduler use, and records in a table of
their own.

A version's games newest first (``a_version_id``/``b_version_id`` with ``id``), pending
matches in play order (``status``, ``round``, ``id``). Records move from the game rows to
``game_record``: a query reading games then reads only the games (on SQLite a record in
the row made every scan of the games page through every record).

Revision ID: 0005
Revises: 0004
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "game_record",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("record", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"], name=op.f("fk_game_record_game_id_game")),
        sa.PrimaryKeyConstraint("game_id", name=op.f("pk_game_record")),
    )
    op.execute("INSERT INTO game_record (game_id, record) SELECT id, record FROM game")
    with op.batch_alter_table("game") as batch_op:
        batch_op.drop_column("record")
        batch_op.create_index("ix_game_a_version_id_id", ["a_version_id", "id"], unique=False)
        batch_op.create_index("ix_game_b_version_id_id", ["b_version_id", "id"], unique=False)
    with op.batch_alter_table("match") as batch_op:
        batch_op.create_index("ix_match_status_round_id", ["status", "round", "id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("match") as batch_op:
        batch_op.drop_index("ix_match_status_round_id")
    with op.batch_alter_table("game") as batch_op:
        batch_op.drop_index("ix_game_b_version_id_id")
        batch_op.drop_index("ix_game_a_version_id_id")
        batch_op.add_column(sa.Column("record", sa.JSON(), nullable=True))
    op.execute(
        "UPDATE game SET record = "
        "(SELECT record FROM game_record WHERE game_record.game_id = game.id)"
    )
    op.drop_table("game_record")
