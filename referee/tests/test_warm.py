"""Bot processes kept warm between matches: lent again only for other deals, each
match's output in that match's logs, and a process that died while idle replaced."""

from __future__ import annotations

import asyncio
import functools
import os
import signal
from pathlib import Path

import pytest

from pitch_referee.manifest import BotManifest
from pitch_referee.referee import PlayerSlot, Referee, RefereeSettings
from pitch_referee.sandbox import SandboxLimits, unavailable_reason
from pitch_referee.warm import WarmBots
from pitch_testkit import recording_bot
from pitch_testkit.referee import QUICK_TIME, SHORT_GAMES, processes_serving, write_bot

pytestmark = pytest.mark.slow


def recording_folder(where: Path, name: str = "recording") -> BotManifest:
    """A bot whose log names every game it is told of (``start``, then the game id)."""
    return write_bot(where / name, ["python", str(recording_bot.SCRIPT)], name)


class Matches:
    """Matches played one after another at referees that borrow from one ``WarmBots``."""

    def __init__(self, warm: WarmBots, root: Path, manifests: list[BotManifest]) -> None:
        self.warm = warm
        self.root = root
        self.slots = [PlayerSlot(f"S{seat}", manifest, manifest.name) for seat, manifest in
                      enumerate(manifests)]  # fmt: skip

    async def play(self, match: str, deals: str) -> tuple[list[int], list[dict]]:
        """Play one game of match ``match`` on ``deals``: the pids of its seats' processes
        and its record's faults."""
        settings = RefereeSettings(QUICK_TIME)
        async with Referee(
            self.root / match, settings, announce=print, warm=self.warm, deals=deals
        ) as referee:
            result = await referee.play(
                self.slots, game_id=f"{match}-game", seed=deals, options=SHORT_GAMES
            )
            pids = [(await referee.bot(slot)).process.pid for slot in self.slots]
        return pids, result.record.faults


def play(tmp_path: Path, scenario) -> None:
    async def main() -> None:
        async with WarmBots() as warm:
            await scenario(warm, Matches(warm, tmp_path / "logs", [recording_folder(tmp_path)] * 4))
        assert processes_serving(warm.address) == []

    asyncio.run(main())


def test_a_match_on_other_deals_borrows_the_last_matchs_processes(tmp_path: Path) -> None:
    async def scenario(warm: WarmBots, matches: Matches) -> None:
        first, _ = await matches.play("m1", deals="1")
        assert warm.idle == 4
        second, faults = await matches.play("m2", deals="2")
        assert sorted(second) == sorted(first) and faults == ()

    play(tmp_path, scenario)


def test_a_process_never_plays_deals_it_has_played_in_an_earlier_match(tmp_path: Path) -> None:
    async def scenario(warm: WarmBots, matches: Matches) -> None:
        first, _ = await matches.play("m1", deals="7")
        again, _ = await matches.play("m1-again", deals="7")  # a quartet's next team match
        assert set(again).isdisjoint(first)
        assert warm.idle == 8  # both sets kept, for matches on other deals

    play(tmp_path, scenario)


def test_each_match_logs_what_its_borrowed_processes_wrote_during_it(tmp_path: Path) -> None:
    async def scenario(warm: WarmBots, matches: Matches) -> None:
        await matches.play("m1", deals="1")
        await matches.play("m2", deals="2")

    play(tmp_path, scenario)
    for match, other in (("m1", "m2"), ("m2", "m1")):
        logs = sorted((tmp_path / "logs" / match).glob("S*-recording.log"))
        assert len(logs) == 4
        for log in logs:
            text = log.read_text()
            assert f'"{match}-game"' in text and f'"{other}-game"' not in text, log


def test_a_process_that_died_while_idle_is_replaced_and_costs_no_game(tmp_path: Path) -> None:
    async def scenario(warm: WarmBots, matches: Matches) -> None:
        first, _ = await matches.play("m1", deals="1")
        os.kill(first[2], signal.SIGKILL)
        await asyncio.sleep(0.5)
        second, faults = await matches.play("m2", deals="2")
        assert faults == ()
        assert len(set(second) & set(first)) == 3 and first[2] not in second

    play(tmp_path, scenario)


def test_a_game_stopped_mid_way_leaves_no_process_warm(tmp_path: Path) -> None:
    class Stop(Exception):
        """What stops the game (as a cancelled one stops): it leaves the table at once."""

    def stop_at_the_tenth_event(events: list[object], event: object) -> None:
        events.append(event)
        if len(events) == 10:
            raise Stop

    async def scenario(warm: WarmBots, matches: Matches) -> None:
        events: list[object] = []
        async with Referee(tmp_path / "stopped", warm=warm, deals="1", announce=print) as referee:
            with pytest.raises(Stop):
                await referee.play(
                    matches.slots,
                    game_id="g",
                    seed=1,
                    watchers=[functools.partial(stop_at_the_tenth_event, events)],
                )
        assert warm.idle == 0

    play(tmp_path, scenario)


def test_another_bot_gets_a_process_of_its_own(tmp_path: Path) -> None:
    async def scenario(warm: WarmBots, matches: Matches) -> None:
        first, _ = await matches.play("m1", deals="1")
        other = recording_folder(tmp_path, "other")
        matches.slots = [PlayerSlot(f"S{seat}", other, "other") for seat in range(4)]
        second, _ = await matches.play("m2", deals="2")
        assert set(second).isdisjoint(first)

    play(tmp_path, scenario)


BURNS_AFTER_ITS_GAMES = """
import os, sys
from pitch_sdk.bots import RandomBot
from pitch_sdk.run import run

class Burner(RandomBot):
    name = "burner"

    def on_game_end(self, view):
        if os.fork() == 0:  # honest during its games, then spins while it waits
            os.execv(sys.executable, [sys.executable, "-c", "while True: pass"])

raise SystemExit(run(Burner()))
"""


def test_a_sandboxed_process_kept_warm_gets_no_cpu_while_it_waits(tmp_path: Path) -> None:
    if (reason := unavailable_reason()) is not None:
        if os.environ.get("PITCH_REQUIRE_SANDBOX"):
            pytest.fail(f"the sandbox must run here: {reason}")
        pytest.skip(reason)
    sandbox = SandboxLimits()
    folder = tmp_path / "burner"
    folder.mkdir()
    (folder / "bot.py").write_text(BURNS_AFTER_ITS_GAMES)
    burner = write_bot(folder, ["python", "bot.py"], "burner")

    async def main() -> None:
        async with WarmBots() as warm:
            settings = RefereeSettings(QUICK_TIME, sandbox=sandbox)
            slot = PlayerSlot("S0", burner, "burner")
            others = [PlayerSlot(f"S{seat}", burner, "burner") for seat in (1, 2, 3)]
            async with Referee(tmp_path / "m1", settings, warm=warm, deals="1") as referee:
                await referee.play([slot, *others], game_id="g", seed=1, options=SHORT_GAMES)
                kept = await referee.bot(slot)
            await asyncio.sleep(1)  # the spinner started on GameEnd, if it runs at all
            before = kept.cpu_seconds()
            await asyncio.sleep(2)
            after = kept.cpu_seconds()
            assert before is not None and after is not None
            assert after - before < 0.1, (before, after)

    asyncio.run(main())
