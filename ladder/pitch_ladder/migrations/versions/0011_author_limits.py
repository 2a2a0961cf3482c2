"""Per-author limits set by an admin, over the server's settings (``author_limit``).

Revision ID: 0011
Revises: 0010
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "author_limit",
        sa.Column("uploads_per_hour", sa.Integer(), nullable=True),
        sa.Column("checks", sa.Integer(), nullable=True),
        sa.Column("versions", sa.Integer(), nullable=True),
        sa.Column(
            "disk_bytes", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True
        ),
        sa.Column("changed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("author_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["author_id"], ["author.id"], name=op.f("fk_author_limit_author_id_author")
        ),
        sa.PrimaryKeyConstraint("author_id", name=op.f("pk_author_limit")),
    )


def downgrade() -> None:
    op.drop_table("author_limit")
