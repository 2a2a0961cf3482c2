"""Records kept gzip-compressed (``models.PackedRecord``, migration 0013): stored as the
bytes given, read back as the records; rows stored as JSON before the migration read the
same after it, and going down unpacks them again, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import create_engine, text
from sqlmodel import SQLModel

from pitch_ladder.database import alembic_config, database_url, migrate
from pitch_ladder.importer import Importer
from pitch_ladder.ladder import Ladder
from pitch_ladder.models import PackedRecord, packed
from pitch_ladder.pending import PendingMatches
from pitch_ladder.schedule_writer import schedule_rounds
from pitch_referee.match import MatchFolder
from pitch_sdk.record import GZIP_MAGIC, record_bytes
from pitch_testkit.ladder import GREEDY, RANDOM, honest_record

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@given(st.dictionaries(st.text(), JSON_VALUES, max_size=6))
def test_a_record_reads_back_the_same_from_packed_bytes_a_json_object_or_plain_json(
    record: dict[str, object],
) -> None:
    column = PackedRecord()
    plain = json.dumps(record, indent=1).encode()
    for given_as in (packed(plain), record):
        stored = column.process_bind_param(given_as, None)  # type: ignore[arg-type]
        assert stored is not None and stored.startswith(GZIP_MAGIC)
        assert column.process_result_value(stored, None) == record  # type: ignore[arg-type]
    assert column.process_result_value(plain, None) == record  # type: ignore[arg-type]


def _ladder_with_games(tmp_path: Path, db_url: str) -> Ladder:
    """A ladder with one stored match of two games, imported as a run imports them."""
    ladder = Ladder.init(tmp_path / "ladder", db_url)
    ladder.submit(GREEDY)
    ladder.submit(RANDOM)
    schedule_rounds(ladder.engine, 1, 2, {"hand_cap": 2})
    match = next(iter(PendingMatches(ladder.engine)))
    folder = MatchFolder(ladder.folder / match.folder)
    folder.games_dir.mkdir(parents=True)
    for spec in match.specs.values():
        data = record_bytes(honest_record(match, spec), compress=False)
        folder.record_path(spec).write_bytes(data)
    stored = Importer(ladder.folder, ladder.engine, print).store([match], [])
    assert stored.games == 2
    return ladder


def _raw(url: str, binary: bool) -> dict[int, bytes]:
    """Each game's record column as the database holds it, as bytes: a ``binary`` column
    (since migration 0013) or a JSON one (before)."""
    engine = create_engine(url)
    textual = "record::text" if engine.dialect.name == "postgresql" else "record"
    with engine.connect() as connection:
        query = f"SELECT game_id, {'record' if binary else textual} FROM game_record"
        rows = connection.execute(text(query)).all()
    engine.dispose()
    return {game: value if binary else value.encode() for game, value in rows}


def test_migration_0013_keeps_json_records_readable_and_going_down_unpacks_them(
    tmp_path: Path, db_url: str
) -> None:
    ladder = _ladder_with_games(tmp_path, db_url)
    numbers = [game.id for game in ladder.games()]
    records = {number: ladder.game(number).record for number in numbers}
    ladder.close()
    url = database_url(tmp_path, db_url)
    assert all(value.startswith(GZIP_MAGIC) for value in _raw(url, binary=True).values())

    engine = create_engine(url)
    config = alembic_config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0012")
    down = _raw(url, binary=False)
    assert {game: json.loads(value) for game, value in down.items()} == {
        number: record.to_json() for number, record in records.items()
    }
    migrate(engine)  # as the next command does
    with engine.connect() as connection:
        assert compare_metadata(MigrationContext.configure(connection), SQLModel.metadata) == []
    engine.dispose()
    assert _raw(url, binary=True) == down  # the JSON rows are kept as they were, as bytes

    with Ladder.open(tmp_path / "ladder", db_url) as reopened:
        assert {number: reopened.game(number).record for number in numbers} == records
