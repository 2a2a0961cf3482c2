"""Authors and their API tokens; every bot owned by an author.

``author`` gets its first row here, the author ``local`` (id 1, not an admin, no token):
the owner of every bot the ladder already has, and of bots submitted on this machine
without naming an author. ``author_token`` holds salted scrypt hashes of the tokens,
found by their public id.

Revision ID: 0006
Revises: 0005
"""

from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

LOCAL_AUTHOR_ID = 1
"""As ``pitch_ladder.models.LOCAL_AUTHOR_ID`` when this migration was written."""


def upgrade() -> None:
    author = op.create_table(
        "author",
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("admin", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("id", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_author")),
    )
    with op.batch_alter_table("author") as batch_op:
        batch_op.create_index(batch_op.f("ix_author_name"), ["name"], unique=True)
    # The new table's first row, so id 1 on every database (PostgreSQL's sequence included).
    op.bulk_insert(author, [{"name": "local", "admin": False, "created_at": datetime.now(UTC)}])
    op.create_table(
        "author_token",
        sa.Column("author_id", sa.Integer(), nullable=False),
        sa.Column("secret_hash", sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["author_id"], ["author.id"], name=op.f("fk_author_token_author_id_author")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_author_token")),
    )
    with op.batch_alter_table("author_token") as batch_op:
        batch_op.create_index(batch_op.f("ix_author_token_author_id"), ["author_id"], unique=False)
    with op.batch_alter_table("bot") as batch_op:
        batch_op.add_column(
            sa.Column(
                "author_id",
                sa.Integer(),
                server_default=str(LOCAL_AUTHOR_ID),
                nullable=False,
            )
        )
        batch_op.create_index(batch_op.f("ix_bot_author_id"), ["author_id"], unique=False)
        batch_op.create_foreign_key(
            batch_op.f("fk_bot_author_id_author"), "author", ["author_id"], ["id"]
        )


def downgrade() -> None:
    with op.batch_alter_table("bot") as batch_op:
        batch_op.drop_constraint(batch_op.f("fk_bot_author_id_author"), type_="foreignkey")
        batch_op.drop_index(batch_op.f("ix_bot_author_id"))
        batch_op.drop_column("author_id")
    with op.batch_alter_table("author_token") as batch_op:
        batch_op.drop_index(batch_op.f("ix_author_token_author_id"))
    op.drop_table("author_token")
    with op.batch_alter_table("author") as batch_op:
        batch_op.drop_index(batch_op.f("ix_author_name"))
    op.drop_table("author")
