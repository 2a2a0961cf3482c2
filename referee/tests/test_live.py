"""Live journals: a game's events in, the record in progress out; listing and staleness."""

from __future__ import annotations

import copy
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from pitch_referee.live import (
    JournalError,
    JournalPublisher,
    JournalReader,
    live_journals,
    sweep,
)
from pitch_sdk.actions import Bid
from pitch_sdk.bots import RandomBot
from pitch_sdk.selfplay import BotPlayer
from pitch_sdk.table import Answer, FaultPolicy, Table, TableEvent, play_in_process


class TimedPlayer(BotPlayer):
    """Answers like its bot, with a time, as a remote seat's answers have."""

    async def decide(self, turn):
        answer = await super().decide(turn)
        return Answer(answer.action, 12.34567)


class Illegal(RandomBot):
    def bid(self, view, legal):
        return Bid(13) if Bid(13) not in legal else Bid(14)


def _publisher(tmp_path: Path) -> JournalPublisher:
    return JournalPublisher.for_match(tmp_path / "match", max_silence_s=30)


def _play_journaled(tmp_path, bots, **table_options):
    """Play a game with a journal, checking after every event that the journal's record
    is the table's record so far; returns the table's final record and the feed."""
    feed = _publisher(tmp_path).feed("pair-00000-a")
    reader = JournalReader(feed.path)
    checked: list[str] = []

    def compare(event: TableEvent) -> None:
        reader.read()
        assert reader.record == table.recorder.record(), type(event).__name__
        checked.append(type(event).__name__)

    players = [TimedPlayer(bot) for bot in bots]
    table = Table(players, watchers=[feed, compare], game_id="pair-00000-a", **table_options)
    final = copy.deepcopy(play_in_process(table.play()).record)
    assert {"Started", "Dealt", "GameOver"} <= set(checked)
    return final, feed, reader, set(checked)


def test_the_journal_gives_the_record_so_far_after_every_event_and_the_final_record_at_the_end(
    tmp_path,
):
    final, _, reader, checked = _play_journaled(tmp_path, [RandomBot(s) for s in range(4)], seed=11)
    assert {"Decided", "HandScored"} <= checked
    reader.read()
    assert reader.finished and reader.record == final
    assert final.hands[0].decisions[0].ms == 12.346  # times are journaled too
    assert final.result is not None


def test_a_forfeit_is_journaled_with_its_fault(tmp_path):
    bots = [RandomBot(0), Illegal(1), RandomBot(2), RandomBot(3)]
    final, _, reader, checked = _play_journaled(tmp_path, bots, seed=5)
    assert "Faulted" in checked and reader.finished and reader.record == final
    assert final.result.termination == "forfeit" and final.faults


def test_substitutes_after_a_fault_are_journaled(tmp_path):
    bots = [RandomBot(0), Illegal(1), RandomBot(2), RandomBot(3)]
    final, _, reader, _ = _play_journaled(
        tmp_path, bots, seed=5, fault_policy=FaultPolicy.SUBSTITUTE
    )
    assert reader.record == final and final.result.termination != "forfeit"


def test_closing_the_feed_removes_the_journal(tmp_path):
    _, feed, _, _ = _play_journaled(tmp_path, [RandomBot(s) for s in range(4)], seed=2)
    assert feed.path.exists()
    feed.close()
    assert not feed.path.exists()


def test_a_reader_never_applies_half_a_line(tmp_path):
    _, feed, _, _ = _play_journaled(tmp_path, [RandomBot(s) for s in range(4)], seed=3)
    whole = feed.path.read_bytes()
    cut = whole.index(b"\n", whole.index(b'"deal"')) - 20  # inside the first deal's line
    partial = tmp_path / "partial.jsonl"
    partial.write_bytes(whole[:cut])
    reader = JournalReader(partial)
    reader.read()
    assert reader.record.hands == ()
    with partial.open("ab") as file:
        file.write(whole[cut:])
    reader.read()
    assert reader.finished and len(reader.record.hands) >= 1


def test_a_journal_that_the_game_cannot_follow_is_a_journal_error(tmp_path):
    _, feed, _, _ = _play_journaled(tmp_path, [RandomBot(s) for s in range(4)], seed=4)
    lines = feed.path.read_text().splitlines()
    decision = next(n for n, line in enumerate(lines) if '"decide"' in line)
    lines[decision] = json.dumps({"event": "decide", "seat": 9, "action": "bid 4"})
    broken = tmp_path / "broken.jsonl"
    broken.write_text("\n".join(lines) + "\n")
    with pytest.raises(JournalError, match="out of turn"):
        JournalReader(broken).read()
    not_a_journal = tmp_path / "other.jsonl"
    not_a_journal.write_text('{"hello": 1}\n')
    with pytest.raises(JournalError, match="not a pitch live journal"):
        JournalReader(not_a_journal).read()


WRITER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from pitch_referee.live import JournalPublisher
    from pitch_sdk.table import Started

    feed = JournalPublisher(Path(sys.argv[1]), 30).feed("pair-00007-b")
    heading = {"rules": {}, "seed": 1, "first_dealer": 0,
               "players": [{"seat": s, "name": "slow", "version": "1"} for s in range(4)]}
    feed(Started("pair-00007-b", heading))
    print("written", flush=True)
    time.sleep(60)
    """
)


def test_a_journal_whose_writer_was_killed_is_not_live_and_is_swept(tmp_path):
    match = tmp_path / "served" / "some-match"
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(match / "live")], stdout=subprocess.PIPE, text=True
    )
    try:
        assert writer.stdout is not None and writer.stdout.readline() == "written\n"
        assert [j.game for j in live_journals(tmp_path / "served")] == ["pair-00007-b"]
        assert sweep(match) == []  # its writer is alive
    finally:
        os.kill(writer.pid, signal.SIGKILL)
        writer.wait()
    assert live_journals(tmp_path / "served") == []
    assert [path.name for path in sweep(match)] == ["pair-00007-b.jsonl"]
    assert not (match / "live" / "pair-00007-b.jsonl").exists()


def test_a_journal_from_another_host_is_live_until_it_is_silent_too_long(tmp_path):
    _, feed, _, _ = _play_journaled(tmp_path, [RandomBot(s) for s in range(4)], seed=6)
    lines = feed.path.read_text().splitlines()
    header = json.loads(lines[0]) | {"host": "elsewhere", "pid": 1}
    running = tmp_path / "served" / "m" / "live" / "pair-00001-a.jsonl"
    running.parent.mkdir(parents=True)
    running.write_text("\n".join([json.dumps(header), *lines[1:4]]) + "\n")
    assert [j.game for j in live_journals(tmp_path / "served")] == ["pair-00001-a"]
    quiet = time.time() - 31
    os.utime(running, (quiet, quiet))
    assert live_journals(tmp_path / "served") == []


def test_a_finished_journal_is_not_listed_and_a_live_one_says_where_the_game_is(tmp_path):
    _, feed, _, _ = _play_journaled(tmp_path, [RandomBot(s) for s in range(4)], seed=8)
    assert live_journals(tmp_path) == []  # over: its end line is written
    lines = feed.path.read_text().splitlines()
    second_deal = [n for n, line in enumerate(lines) if '"event":"deal"' in line][1]
    feed.path.write_text("\n".join(lines[: second_deal + 1]) + "\n")
    (journal,) = live_journals(tmp_path)
    scored = json.loads(next(line for line in lines if '"scored"' in line))
    assert (journal.hand, journal.scores, journal.game) == (2, scored["scores"], "pair-00000-a")
    assert [p["name"] for p in journal.players] == ["random"] * 4


def test_a_journal_that_cannot_be_written_is_given_up_and_the_game_goes_on(tmp_path):
    (tmp_path / "match").mkdir()
    (tmp_path / "match" / "live").write_text("a file where the journals' folder would be")
    feed = _publisher(tmp_path).feed("pair-00000-a")
    table = Table([BotPlayer(RandomBot(s)) for s in range(4)], seed=1, watchers=[feed])
    record = play_in_process(table.play()).record
    assert record.result is not None
    feed.close()
