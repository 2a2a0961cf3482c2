"""Records a cluster's owner vouched for: stored from the bytes vouched for, without
reading the file or a second replay, while their file is the one written; checked in full
once it is not."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pitch_ladder import importer
from pitch_ladder.importer import REJECTED, Importer
from pitch_ladder.ladder import Ladder
from pitch_ladder.models import packed
from pitch_ladder.pending import PendingMatch, PendingMatches
from pitch_ladder.schedule_writer import schedule_rounds
from pitch_ladder.vouched import VouchedRecords
from pitch_referee.match import GameOutcome, GameSpec, MatchFolder
from pitch_sdk.record import record_bytes, write_record_bytes
from pitch_testkit.ladder import GREEDY, RANDOM, honest_record

NOW = datetime(2026, 12, 3, tzinfo=UTC)
OUTCOME = GameOutcome(GameSpec(0, "a", "1.0", 0), 1.0, 13, 0, 0, termination="score")


@given(st.binary(max_size=64), st.booleans())
def test_a_vouched_record_is_handed_over_once_and_only_while_its_file_is_the_one_written(
    tmp_path_factory: pytest.TempPathFactory, written: bytes, rewritten: bool
) -> None:
    vouched = VouchedRecords()
    path = tmp_path_factory.mktemp("games") / "pair-00000-a.json"
    write_record_bytes(written, path, partial(vouched.vouch, path, packed(written), OUTCOME, NOW))
    if rewritten:  # replaced by another file, even of the same bytes
        path.with_name("other").write_bytes(written)
        path.with_name("other").replace(path)
    taken = vouched.take(path)
    assert (taken is not None) == (not rewritten)
    assert taken is None or (taken.outcome is OUTCOME and taken.packed == packed(written))
    assert vouched.take(path) is None and len(vouched) == 0


def _match(tmp_path: Path) -> tuple[Ladder, PendingMatch]:
    ladder = Ladder.init(tmp_path / "ladder")
    ladder.submit(GREEDY)
    ladder.submit(RANDOM)
    schedule_rounds(ladder.engine, 1, 2, {"hand_cap": 2})
    return ladder, next(iter(PendingMatches(ladder.engine)))


def _written(
    ladder: Ladder, match: PendingMatch, spec: GameSpec, vouched: VouchedRecords
) -> tuple[Path, bytes, GameOutcome]:
    """``spec``'s honest record, written into ``match``'s folder as the owner writes a
    worker's, and vouched for; its outcome."""
    path = MatchFolder(ladder.folder / match.folder).record_path(spec)
    path.parent.mkdir(parents=True, exist_ok=True)
    record = honest_record(match, spec)
    data = record_bytes(record, compress=False)
    outcome = GameOutcome.from_record(spec, record)
    write_record_bytes(data, path, partial(vouched.vouch, path, packed(data), outcome, NOW))
    return path, data, outcome


def test_a_vouched_record_whose_file_is_unchanged_is_stored_without_reading_or_replaying_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ladder, match = _match(tmp_path)
    spec = next(iter(match.specs.values()))
    vouched = VouchedRecords()
    _, data, outcome = _written(ladder, match, spec, vouched)

    def no_replay(*_args: Any) -> str:
        raise AssertionError("a vouched record was replayed again")

    def no_read(*_args: Any) -> bytes:
        raise AssertionError("a vouched record's file was read")

    monkeypatch.setattr(importer, "refusal", no_replay)
    monkeypatch.setattr(Path, "read_bytes", no_read)
    store = Importer(ladder.folder, ladder.engine, lambda text: pytest.fail(text))
    store.vouched = vouched
    found = store.new_records(match)
    assert [(new.outcome, new.packed, new.finished_at) for new in found] == [
        (outcome, packed(data), NOW)
    ]
    ladder.close()


def test_a_vouched_record_changed_on_disk_is_checked_in_full_and_refused(
    tmp_path: Path,
) -> None:
    ladder, match = _match(tmp_path)
    spec = next(iter(match.specs.values()))
    vouched = VouchedRecords()
    path, _, _ = _written(ladder, match, spec, vouched)
    honest = honest_record(match, spec)
    forged = replace(honest, hands=honest.hands[:1])  # a hand left out
    path.write_bytes(record_bytes(forged, compress=False))

    problems: list[str] = []
    store = Importer(ladder.folder, ladder.engine, problems.append)
    store.vouched = vouched
    assert store.new_records(match) == []
    assert "refused: the engine disagrees" in problems[0]
    assert path.with_name(path.stem + REJECTED).exists() and len(vouched) == 0
    ladder.close()
