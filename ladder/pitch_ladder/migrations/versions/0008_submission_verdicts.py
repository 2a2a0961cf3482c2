"""What the service said to each uploaded bot, for its author.

Revision ID: 0008
Revises: 0007
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "submission_verdict",
        sa.Column("author_id", sa.Integer(), nullable=False),
        sa.Column("bot", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("content_hash", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("accepted", sa.Boolean(), nullable=False),
        sa.Column("new", sa.Boolean(), nullable=False),
        sa.Column("version", sqlmodel.sql.sqltypes.AutoString(length=96), nullable=False),
        sa.Column("reason", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("submitted_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["author_id"],
            ["author.id"],
            name=op.f("fk_submission_verdict_author_id_author"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_submission_verdict")),
    )
    with op.batch_alter_table("submission_verdict") as batch_op:
        batch_op.create_index("ix_submission_verdict_author_id_id", ["author_id", "id"])


def downgrade() -> None:
    op.drop_table("submission_verdict")
