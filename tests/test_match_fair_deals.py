"""No bot plays both sides of a deal: the two games of a duplicate pair never share a bot
process, so a bot that remembers game a cannot name its opponents' cards in game b."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from pitch_cli import app
from pitch_referee.match import Entrant, Job, MatchSettings, schedule
from pitch_referee.match.schedule import process_slots, seats
from pitch_sdk import reference
from pitch_testkit.fair_deals import memory_bot, predictions
from pitch_testkit.sandbox import sandbox_or_skip

RANDOM = reference.folder("random")
GREEDY = reference.folder("greedy")


def _pitch(*args: object) -> str:
    result = CliRunner().invoke(app, [str(arg) for arg in args])
    assert result.exit_code == 0, f"{result.output}{result.exception!r}"
    return result.output


def test_the_two_games_of_a_pair_seat_eight_processes_and_the_partners_bots_in_them():
    a, b = Entrant.from_argument(str(GREEDY)), Entrant.from_argument(str(RANDOM))
    job = Job(a, b, MatchSettings(), Path("m"), False, None, a_partner=b)  # type: ignore[arg-type]
    slots = process_slots(job.seat_entrants())
    game_a, game_b = schedule(MatchSettings(games=2, seed=1))
    in_a, in_b = seats(game_a, slots), seats(game_b, slots)
    assert [slot.key for slot in in_a] == ["A1-a", "B1-a", "A2-a", "B2-a"]
    assert [slot.key for slot in in_b] == ["B1-b", "A1-b", "B2-b", "A2-b"]
    assert {slot.key for slot in in_a}.isdisjoint(slot.key for slot in in_b)
    assert [slot.name for slot in in_a] == ["greedy", "random", "random", "random"]
    assert [slot.name for slot in in_b] == ["random", "greedy", "random", "random"]


@pytest.mark.slow
@pytest.mark.parametrize("concurrency", [1, 2], ids=["thread-worker", "process-workers"])
def test_a_bot_that_remembers_game_a_names_no_opponents_hand_in_game_b(
    tmp_path: Path, concurrency: int
) -> None:
    sandbox_or_skip()
    bot = memory_bot(tmp_path / "bots")
    out = tmp_path / "m"
    _pitch("match", bot, RANDOM, "--games", "4", "--seed", "20", "--rule", "hand_cap=3",
           "--sandbox", "on", "--concurrency", concurrency, "--out", out)  # fmt: skip
    found = predictions(out)
    # The bot sits in two seats of every b game and predicts at each hand it bids in.
    assert found.made >= 4, found
    assert (found.from_memory, found.hits) == (0, 0), found
    assert found.cards_right <= 3 * found.made, found  # chance: about 1.8 cards of 9
    logs = sorted(path.name for path in (out / "logs").rglob("*.log"))
    assert {name[:5] for name in logs} <= {"A1-a-", "A2-a-", "A1-b-", "A2-b-"} | {
        "B1-a-",
        "B2-a-",
        "B1-b-",
        "B2-b-",
    }
    assert "A1-a-memory.log" in logs and "A1-b-memory.log" in logs
