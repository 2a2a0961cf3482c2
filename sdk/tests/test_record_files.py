"""Record files: plain JSON or gzip-compressed, told apart by their first bytes."""

from __future__ import annotations

import gzip
import json

import pytest

from pitch_sdk.bots import RandomBot
from pitch_sdk.gamerecord import GameRecord, RecordError
from pitch_sdk.options import RuleOptions
from pitch_sdk.record import GZIP_MAGIC, load_record, write_record
from pitch_sdk.replay import check
from pitch_sdk.selfplay import play_game


def _game() -> GameRecord:
    return play_game([RandomBot(f"3:{seat}") for seat in range(4)], 3, RuleOptions(hand_cap=3))


def test_a_record_named_json_gz_is_written_compressed_and_reads_back_the_same(tmp_path):
    record = _game()
    path = tmp_path / "game.json.gz"
    write_record(record, path)
    data = path.read_bytes()
    assert data.startswith(GZIP_MAGIC)
    assert (
        json.loads(gzip.decompress(data)) == record.to_json()
    )  # gzip, then JSON: any tool reads it
    assert load_record(path) == record and check(load_record(path)).ok
    assert [p.name for p in tmp_path.iterdir()] == ["game.json.gz"]  # no temporary file left
    plain = tmp_path / "game.json"
    write_record(record, plain)
    assert plain.read_text().startswith('{\n "format": "pitch-game-record"')
    assert len(data) * 5 < plain.stat().st_size


def test_the_same_record_compresses_to_the_same_bytes(tmp_path):
    record = _game()
    write_record(record, tmp_path / "one.json.gz")
    write_record(record, tmp_path / "two.json.gz")
    assert (tmp_path / "one.json.gz").read_bytes() == (tmp_path / "two.json.gz").read_bytes()


def test_load_record_tells_gzip_by_its_magic_bytes_whatever_the_name(tmp_path):
    record = _game()
    write_record(record, tmp_path / "compressed.json", compress=True)
    write_record(record, tmp_path / "plain.json.gz", compress=False)
    assert (tmp_path / "compressed.json").read_bytes().startswith(GZIP_MAGIC)
    assert not (tmp_path / "plain.json.gz").read_bytes().startswith(GZIP_MAGIC)
    assert load_record(tmp_path / "compressed.json") == record
    assert load_record(tmp_path / "plain.json.gz") == record


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],  # cut short
        lambda data: data[:10] + bytes(len(data) - 10),  # zeros after the header
        lambda data: gzip.compress(b"not json"),
        lambda data: gzip.compress(b'{"format": "something else"}'),
    ],
)
def test_a_damaged_compressed_record_is_a_record_error_naming_the_file(tmp_path, damage):
    path = tmp_path / "game.json.gz"
    write_record(_game(), path)
    path.write_bytes(damage(path.read_bytes()))
    with pytest.raises(RecordError, match=r"game\.json\.gz"):
        load_record(path)
