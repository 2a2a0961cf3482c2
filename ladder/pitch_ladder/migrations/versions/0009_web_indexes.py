"""An index of the games with faults, for the web's faults filter.

Games with a fault are few among many: without it, listing them newest first walks the
games until a page is found (0.2 s over a million games without one on PostgreSQL). A
partial index holds only those games, so a page of them is one index range.

Revision ID: 0009
Revises: 0008
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index(  # no batch: SQLite creates an index without copying the table
        "ix_game_faulty_id",
        "game",
        ["id"],
        unique=False,
        sqlite_where=sa.text("faults > 0"),
        postgresql_where=sa.text("faults > 0"),
    )


def downgrade() -> None:
    op.drop_index("ix_game_faulty_id", table_name="game")
