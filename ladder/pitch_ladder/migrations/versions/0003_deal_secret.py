"""The ladder's deal secret, and 64-bit match seeds.

Match seeds used to be a public hash of the round and the bot names, which a bot could
compute as well as the ladder. They are now keyed by a secret kept in the one
``ladder_identity`` row; a ladder made before gets a fresh random one here. The seeds
grow to 63 bits: PostgreSQL's INTEGER has 32 (SQLite's already has 64).

Revision ID: 0003
Revises: 0002
"""

import secrets
from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("ladder_identity") as batch:
        batch.add_column(
            sa.Column("deal_secret", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True)
        )
    identity = sa.table("ladder_identity", sa.column("id"), sa.column("deal_secret"))
    connection = op.get_bind()
    for row_id in connection.execute(sa.select(identity.c.id)).scalars().all():
        connection.execute(
            identity.update()
            .where(identity.c.id == row_id)
            .values(deal_secret=secrets.token_hex(32))
        )
    with op.batch_alter_table("ladder_identity") as batch:
        batch.alter_column("deal_secret", nullable=False)
    if connection.dialect.name != "sqlite":  # SQLite would rebuild the table for nothing
        op.alter_column("match", "seed", type_=sa.BigInteger(), existing_type=sa.Integer())


def downgrade() -> None:
    # The seeds stay 64-bit: those scheduled since this revision do not fit in 32.
    with op.batch_alter_table("ladder_identity") as batch:
        batch.drop_column("deal_secret")
