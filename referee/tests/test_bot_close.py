"""Stopping a bot is not cut short by a cancelled caller: a match stopped mid-game cancels
the game, and a bot being stopped at that moment (a restart after a fault) must still be
stopped, its pipe released, before the referee's event loop ends."""

from __future__ import annotations

import asyncio

import pytest

from pitch_referee.process import StartOptions
from pitch_referee.referee import PlayerSlot, Referee, RefereeSettings

pytestmark = pytest.mark.slow


def test_a_cancelled_close_of_a_stubborn_bot_is_finished_by_the_referees_close(
    tmp_path, misbehaving
):
    stubborn = misbehaving("ignore_shutdown")  # ignores the shutdown and SIGTERM

    async def main() -> tuple[int | None, bool]:
        async with Referee(tmp_path / "logs", RefereeSettings(), announce=lambda _: None) as ref:
            bot = await ref.bot(PlayerSlot("seat1", stubborn, stubborn.name))
            process = bot.process
            assert process is not None
            closing = asyncio.ensure_future(bot.close("the match stopped"))
            await asyncio.sleep(0.1)  # it has asked the bot to stop, and waits for it
            closing.cancel()
            with pytest.raises(asyncio.CancelledError):
                await closing
        return process.returncode, process._transport.is_closing()

    returncode, released = asyncio.run(main())
    assert returncode is not None, "the bot was still running when the referee had closed"
    assert released, "its pipe would be left for the garbage collector, after the loop"


def test_a_game_stopped_while_its_bots_start_ends_only_when_every_start_has(
    tmp_path, random_bot, misbehaving
):
    """Two bots that never say hello, one of them deaf to SIGTERM: stopped, the game must
    wait for both to be stopped, not return when the first is and leave the other's stop
    to be cut short when the event loop closes."""
    quiet, stubborn = misbehaving("never_connect"), misbehaving("never_connect_stubborn")
    settings = RefereeSettings(start=StartOptions(start_timeout_s=30))

    async def main() -> list[str]:
        async with Referee(tmp_path / "logs", settings, announce=lambda _: None) as ref:
            seats = [
                PlayerSlot(f"seat{seat}", manifest, manifest.name)
                for seat, manifest in enumerate([random_bot, quiet, random_bot, stubborn])
            ]
            game = asyncio.ensure_future(ref.play(seats, game_id="g", seed=1))
            await asyncio.sleep(1.5)  # the random bots are up; the other two never will be
            game.cancel()
            with pytest.raises(asyncio.CancelledError):
                await game
            return [
                task.get_coro().__qualname__
                for task in asyncio.all_tasks()
                if task.get_coro().__qualname__ in {"Referee.bot", "BotProcess._stop"}
            ]

    assert asyncio.run(main()) == [], "a bot's start or stop outlived its game"
