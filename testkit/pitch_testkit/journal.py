"""Live games for the web tests: a whole game journaled by a real table in this process, the
journal cut short as a game going on, and the final record where the match writes it."""

from __future__ import annotations

from pathlib import Path

from pitch_referee.live import JournalPublisher, JournalReader
from pitch_sdk.bots import RandomBot
from pitch_sdk.record import write_record
from pitch_sdk.selfplay import BotPlayer
from pitch_sdk.table import Table, play_in_process

MATCH = "m-random"
GAME = "pair-00000-a"
KEY = f"{MATCH}/{GAME}"


def journaled_game(served: Path) -> tuple[Path, dict]:
    """A whole game journaled under ``served/m-random/live/`` by this process (so its
    writer is alive); returns the journal and the final record."""
    feed = JournalPublisher.for_match(served / MATCH, 30).feed(GAME)
    table = Table([BotPlayer(RandomBot(seat)) for seat in range(4)], seed=21, watchers=[feed])
    table.game_id = GAME
    record = play_in_process(table.play()).record
    return feed.path, record


def record_of(journal: Path) -> dict:
    reader = JournalReader(journal)
    reader.read()
    return reader.record


def write_final(served: Path, record: dict) -> None:
    """The record, where the match writes it once the game is over."""
    games = served / MATCH / "games"
    games.mkdir(parents=True, exist_ok=True)
    write_record(record, games / f"{GAME}.json.gz")


def cut_after_deal(journal: Path, deal: int) -> None:
    """Leave the journal as it was just after its ``deal``-th deal: a game going on."""
    lines = journal.read_text().splitlines()
    deals = [n for n, line in enumerate(lines) if line.startswith('{"event":"deal"')]
    journal.write_text("\n".join(lines[: deals[deal - 1] + 3]) + "\n")
