"""Records kept as gzip-compressed JSON bytes (``models.PackedRecord``) instead of JSON.

``game_record.record`` becomes binary (``bytea`` on PostgreSQL, a BLOB on SQLite). The
rows stored before keep their JSON text, as bytes: the column reads plain JSON bytes as
well as gzip ones, so the upgrade rewrites no record. Going down unpacks the packed
records, a chunk at a time, before the column is JSON again.

Revision ID: 0013
Revises: 0012
"""

import gzip
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

CHUNK = 1000
"""Records unpacked at a time going down."""


def upgrade() -> None:
    with op.batch_alter_table("game_record") as batch:
        batch.alter_column(
            "record",
            existing_type=sa.JSON(),
            type_=sa.LargeBinary(),
            existing_nullable=False,
            postgresql_using="convert_to(record::text, 'UTF8')",
        )  # SQLite: the batch's copy casts each record to a BLOB of its text


def downgrade() -> None:
    connection = op.get_bind()
    records = sa.table("game_record", sa.column("game_id"), sa.column("record", sa.LargeBinary()))
    after = -1
    while True:
        rows = connection.execute(
            sa.select(records.c.game_id, records.c.record)
            .where(records.c.game_id > after)
            .order_by(records.c.game_id)
            .limit(CHUNK)
        ).all()
        if not rows:
            break
        unpacked = [
            {"id": game, "plain": gzip.decompress(record)}
            for game, record in rows
            if bytes(record).startswith(b"\x1f\x8b")
        ]
        if unpacked:
            connection.execute(
                records.update()
                .where(records.c.game_id == sa.bindparam("id"))
                .values(record=sa.bindparam("plain")),
                unpacked,
            )
        after = rows[-1][0]
    with op.batch_alter_table("game_record") as batch:
        batch.alter_column(
            "record",
            existing_type=sa.LargeBinary(),
            type_=sa.JSON(),
            existing_nullable=False,
            postgresql_using="convert_from(record, 'UTF8')::json",
        )
    if connection.dialect.name == "sqlite":  # a JSON column there holds JSON as text
        op.execute("UPDATE game_record SET record = CAST(record AS TEXT)")
