"""Ratings kept up to date as games are stored, so that no read replays every game.

Each game gets its match's round and versions (to find games in the Elo order by index),
each Elo history row the rating before its game (where a replay from that game on
starts), and four derived tables appear: ``version_rating`` (each version's current Elo
and results), ``pair_total`` (the games between two versions, summed: what the
Bradley-Terry fit reads) and ``fit_rating``/``fit_state`` (the last fit, computed on the
first read after a change). The existing games are replayed once here to fill them.

Revision ID: 0004
Revises: 0003
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from pitch_ladder.ratings import INITIAL_RATING, elo_step

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_CHUNK = 10_000


def upgrade() -> None:
    op.create_table(
        "fit_state",
        sa.Column("through_game_id", sa.Integer(), nullable=True),
        sa.Column("fitted_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("id", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_fit_state")),
    )
    op.create_table(
        "fit_rating",
        sa.Column("version_id", sa.Integer(), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("lower", sa.Float(), nullable=False),
        sa.Column("upper", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("group_index", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["version_id"], ["bot_version.id"], name=op.f("fk_fit_rating_version_id_bot_version")
        ),
        sa.PrimaryKeyConstraint("version_id", name=op.f("pk_fit_rating")),
    )
    op.create_table(
        "pair_total",
        sa.Column("a_version_id", sa.Integer(), nullable=False),
        sa.Column("b_version_id", sa.Integer(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("a_points", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["a_version_id"],
            ["bot_version.id"],
            name=op.f("fk_pair_total_a_version_id_bot_version"),
        ),
        sa.ForeignKeyConstraint(
            ["b_version_id"],
            ["bot_version.id"],
            name=op.f("fk_pair_total_b_version_id_bot_version"),
        ),
        sa.PrimaryKeyConstraint("a_version_id", "b_version_id", name=op.f("pk_pair_total")),
    )
    op.create_table(
        "version_rating",
        sa.Column("version_id", sa.Integer(), nullable=False),
        sa.Column("elo", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("losses", sa.Integer(), nullable=False),
        sa.Column("draws", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["version_id"],
            ["bot_version.id"],
            name=op.f("fk_version_rating_version_id_bot_version"),
        ),
        sa.PrimaryKeyConstraint("version_id", name=op.f("pk_version_rating")),
    )

    with op.batch_alter_table("game") as batch_op:
        batch_op.add_column(sa.Column("round", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("a_version_id", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("b_version_id", sa.Integer(), nullable=True))
    game = sa.table(
        "game",
        sa.column("id"),
        sa.column("match_id"),
        sa.column("game_id"),
        sa.column("a_score"),
        sa.column("round"),
        sa.column("a_version_id"),
        sa.column("b_version_id"),
    )
    match = sa.table(
        "match",
        sa.column("id"),
        sa.column("round"),
        sa.column("a_version_id"),
        sa.column("b_version_id"),
    )
    of_match = match.c.id == game.c.match_id
    op.execute(
        game.update().values(
            round=sa.select(match.c.round).where(of_match).scalar_subquery(),
            a_version_id=sa.select(match.c.a_version_id).where(of_match).scalar_subquery(),
            b_version_id=sa.select(match.c.b_version_id).where(of_match).scalar_subquery(),
        )
    )
    with op.batch_alter_table("game") as batch_op:
        batch_op.alter_column("round", existing_type=sa.Integer(), nullable=False)
        batch_op.alter_column("a_version_id", existing_type=sa.Integer(), nullable=False)
        batch_op.alter_column("b_version_id", existing_type=sa.Integer(), nullable=False)
        batch_op.create_index("ix_game_round_match_id", ["round", "match_id"], unique=False)
        batch_op.create_foreign_key(
            batch_op.f("fk_game_a_version_id_bot_version"), "bot_version", ["a_version_id"], ["id"]
        )
        batch_op.create_foreign_key(
            batch_op.f("fk_game_b_version_id_bot_version"), "bot_version", ["b_version_id"], ["id"]
        )

    # The history is written again below, with the rating before each game.
    op.execute(sa.table("rating_history").delete())
    with op.batch_alter_table("rating_history", recreate="always") as batch_op:
        batch_op.add_column(sa.Column("rating_before", sa.Float(), nullable=False))
    _replay(game)


def _replay(game: sa.TableClause) -> None:
    """Every stored game in the Elo order (round, match id, game id): the Elo history,
    each version's Elo and results, and the games summed per pair of versions."""
    connection = op.get_bind()
    rows = connection.execute(
        sa.select(
            game.c.round,
            game.c.match_id,
            game.c.game_id,
            game.c.id,
            game.c.a_version_id,
            game.c.b_version_id,
            game.c.a_score,
        )
    ).all()
    rows = sorted(rows, key=lambda row: (row[0], row[1], row[2]))
    elo: dict[int, float] = {}
    results: dict[int, list[int]] = {}  # version: games, wins, losses, draws
    pairs: dict[tuple[int, int], list[float]] = {}  # (low, high): games, low's points
    history = []
    for *_, number, a, b, score in rows:
        before_a, before_b = elo.get(a, INITIAL_RATING), elo.get(b, INITIAL_RATING)
        elo[a], elo[b] = elo_step(before_a, before_b, score)
        history += [
            {"version_id": a, "game_id": number, "rating": elo[a], "rating_before": before_a},
            {"version_id": b, "game_id": number, "rating": elo[b], "rating_before": before_b},
        ]
        for version, mine in ((a, score), (b, 1.0 - score)):
            counts = results.setdefault(version, [0, 0, 0, 0])
            counts[0] += 1
            counts[{1.0: 1, 0.0: 2}.get(mine, 3)] += 1
        low, high, points = (a, b, score) if a < b else (b, a, 1.0 - score)
        pair = pairs.setdefault((low, high), [0, 0.0])
        pair[0] += 1
        pair[1] += points
    _insert("rating_history", history)
    _insert(
        "version_rating",
        [
            {"version_id": v, "elo": elo[v], "games": g, "wins": w, "losses": lo, "draws": d}
            for v, (g, w, lo, d) in results.items()
        ],
    )
    _insert(
        "pair_total",
        [
            {"a_version_id": low, "b_version_id": high, "games": g, "a_points": points}
            for (low, high), (g, points) in pairs.items()
        ],
    )


def _insert(name: str, rows: list[dict]) -> None:
    if not rows:
        return
    table = sa.table(name, *(sa.column(key) for key in rows[0]))
    for start in range(0, len(rows), _CHUNK):
        op.get_bind().execute(table.insert(), rows[start : start + _CHUNK])


def downgrade() -> None:
    with op.batch_alter_table("rating_history") as batch_op:
        batch_op.drop_column("rating_before")
    with op.batch_alter_table("game") as batch_op:
        batch_op.drop_constraint(batch_op.f("fk_game_a_version_id_bot_version"), type_="foreignkey")
        batch_op.drop_constraint(batch_op.f("fk_game_b_version_id_bot_version"), type_="foreignkey")
        batch_op.drop_index("ix_game_round_match_id")
        batch_op.drop_column("b_version_id")
        batch_op.drop_column("a_version_id")
        batch_op.drop_column("round")
    op.drop_table("version_rating")
    op.drop_table("pair_total")
    op.drop_table("fit_rating")
    op.drop_table("fit_state")
