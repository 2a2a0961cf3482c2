"""A ladder's pool worker keeps its bot processes from one match for the next, on other
deals only: never onto deals a process has played (a quartet's team matches share theirs),
each match's output in that match's logs, and none left when the pool ends."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pitch_ladder.executor import local_pool, play_match
from pitch_referee.match import MatchSettings
from pitch_sdk import reference
from pitch_testkit.bot_copies import script_bot
from pitch_testkit.fair_deals import memory_bot, predictions
from pitch_testkit.sandbox import sandbox_or_skip

pytestmark = pytest.mark.slow

RANDOM = reference.folder("random")
PROCESS = re.compile(r"^PROCESS (\w+) (\S+)$", re.MULTILINE)


def settings(seed: int, sandbox: str) -> dict:
    return MatchSettings(
        games=4, seed=seed, duplicate=True, sandbox=sandbox, rules={"hand_cap": 3}
    ).to_json()


def play_on_one_worker(bot: Path, seeds: list[int], out: Path, sandbox: str = "on") -> list[Path]:
    """The matches of ``bot`` against random on ``seeds``, one after another on a pool of
    one worker (as a ladder plays them); their folders."""
    folders = [out / f"match-{n}" for n in range(len(seeds))]
    with local_pool(1) as pool:
        for seed, folder in zip(seeds, folders, strict=True):
            match = settings(seed, sandbox)
            pool.submit(play_match, str(bot), str(RANDOM), match, str(folder)).result()
    return folders


def processes(match: Path) -> dict[str, set[str]]:
    """The games each process of the identity bot played in ``match``, by its id."""
    played: dict[str, set[str]] = {}
    for log in match.glob("logs/worker-*/*-identity.log"):
        for process, game in PROCESS.findall(log.read_text()):
            played.setdefault(process, set()).add(game)
    return played


def alive(bot: Path) -> list[int]:
    """Processes running ``bot``'s script (the sandbox's included)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            command = (entry / "cmdline").read_bytes() if entry.name.isdigit() else b""
        except OSError:
            continue
        if b"identity_bot.py" in command and str(bot).encode() in command:
            found.append(int(entry.name))
    return found


@pytest.mark.parametrize("sandbox", ["on", "off"])
def test_a_later_match_on_other_deals_plays_with_the_last_matchs_processes(
    tmp_path: Path, sandbox: str
) -> None:
    if sandbox == "on":
        sandbox_or_skip()
    bot = script_bot(tmp_path / "bots", "identity", "identity_bot.py")
    matches = play_on_one_worker(bot, [11, 12], tmp_path, sandbox)
    first, second = (processes(m) for m in matches)
    assert len(first) == len(second) == 4  # both seats, a and b games
    assert set(second) == set(first)
    for process in first:  # and each of them one letter per match
        assert len({game[-1] for game in first[process]}) == 1
        assert len({game[-1] for game in second[process]}) == 1
    assert alive(bot) == []  # stopped when the pool ended, trusted bots too


def test_matches_on_the_same_deals_never_share_a_process(tmp_path: Path):
    sandbox_or_skip()
    bot = script_bot(tmp_path / "bots", "identity", "identity_bot.py")
    first, second = (processes(m) for m in play_on_one_worker(bot, [11, 11], tmp_path))
    assert len(first) == len(second) == 4 and set(first).isdisjoint(second)


def test_a_bot_that_remembers_earlier_matches_names_no_opponents_hand(tmp_path: Path):
    sandbox_or_skip()
    bot = memory_bot(tmp_path / "bots")
    play_on_one_worker(bot, [21, 22, 21], tmp_path / "m")  # the third replays the first's deals
    found = predictions(tmp_path / "m")
    assert found.made >= 8, found
    assert found.hits == 0, found
    assert found.cards_right <= 3 * found.made, found  # chance: about 1.8 cards of 9
