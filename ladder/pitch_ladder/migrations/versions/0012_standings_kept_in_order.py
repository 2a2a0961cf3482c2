"""The standings kept in order with the fit, so that a page of them is an index range.

``fit_rating`` gains each shown version's line (``place``, indexed), rank and group
number, written when a fit is kept. The kept fit of an existing ladder has none, so it is
forgotten here (``fit_state`` emptied): the next read fits again and writes them.

Revision ID: 0012
Revises: 0011
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("fit_rating") as batch:
        batch.add_column(sa.Column("place", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("rank", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("group_number", sa.Integer(), nullable=True))
        batch.create_index(batch.f("ix_fit_rating_place"), ["place"], unique=False)
    op.execute("DELETE FROM fit_state")


def downgrade() -> None:
    with op.batch_alter_table("fit_rating") as batch:
        batch.drop_index(batch.f("ix_fit_rating_place"))
        batch.drop_column("group_number")
        batch.drop_column("rank")
        batch.drop_column("place")
