"""Stopping a bot is not cut short by a cancelled caller: a match stopped mid-game cancels
the game, and a bot being stopped at that moment (a restart after a fault) must still be
stopped, its pipe released, before the referee's event loop ends."""

from __future__ import annotations

import asyncio

import pytest

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
