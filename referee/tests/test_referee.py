"""Real bot processes over real gRPC: complete games, joining by hand, refused hellos."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import grpc
import pytest

from pitch_referee.referee import PlayerSlot, Referee
from pitch_sdk import reference
from pitch_sdk.protocol import messages as pb
from pitch_sdk.replay import check
from pitch_testkit.referee import assert_nothing_left, play_games

pytestmark = pytest.mark.slow


def test_four_bot_processes_play_complete_games_that_replay(tmp_path, random_bot):
    run = play_games(tmp_path / "logs", [random_bot] * 4, games=2)
    for result in run.results:
        record = result.record
        assert record.faults == ()
        assert record.result.termination in ("target", "moon", "hand_cap")
        assert all(player.name == "random" for player in record.players)
        decisions = [d for hand in record.hands for d in hand.decisions if not d.forced]
        assert decisions and all(decision.ms is not None for decision in decisions)
        assert check(record).ok, check(record).discrepancy
    assert_nothing_left(run)


def test_bot_started_by_hand_joins_with_the_printed_address_and_token(tmp_path, random_bot):
    announced: list[str] = []

    async def main() -> dict:
        async with Referee(tmp_path / "logs", announce=announced.append) as referee:
            slots = [PlayerSlot(f"s{seat}", random_bot, "random") for seat in range(3)]
            slots.append(PlayerSlot("by-hand", None, "mine"))
            game = asyncio.create_task(referee.play(slots, game_id="g", seed=1))
            while not announced:
                await asyncio.sleep(0.05)
            address = announced[0].split("PITCH_ADDRESS='")[1].split("'")[0]
            token = announced[0].split("PITCH_TOKEN='")[1].split("'")[0]
            bot = await asyncio.create_subprocess_exec(
                sys.executable, str(reference.folder("random") / "bot.py"),
                "--address", address, "--token", token,
                stderr=subprocess.DEVNULL,
            )  # fmt: skip
            result = await asyncio.wait_for(game, 60)
            await referee.close()
            assert await asyncio.wait_for(bot.wait(), 10) == 0  # told to stop, exits cleanly
            return result.record

    record = asyncio.run(main())
    assert record.faults == () and record.players[3].name == "mine"
    assert check(record).ok


async def _hello_reply(address: str, hello: pb.Hello) -> grpc.aio.AioRpcError:
    async with grpc.aio.insecure_channel(address) as channel:
        play = channel.stream_stream(
            "/pitch.v1.Referee/Play",
            request_serializer=pb.BotMessage.SerializeToString,
            response_deserializer=pb.RefereeMessage.FromString,
        )
        call = play(iter([pb.BotMessage(hello=hello)]))
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            async for _ in call:
                pass
        return refused.value


@pytest.mark.parametrize(
    ("hello", "code", "reason"),
    [
        (pb.Hello(token="nope", protocol_version=1), grpc.StatusCode.UNAUTHENTICATED, "token"),
        (None, grpc.StatusCode.FAILED_PRECONDITION, "protocol version 9"),
    ],
)
def test_hello_with_a_wrong_token_or_protocol_is_refused_with_a_reason(
    tmp_path, hello, code, reason
):
    async def main() -> grpc.aio.AioRpcError:
        async with Referee(tmp_path, announce=lambda _: None) as referee:
            token, future = referee._service.expect()
            sent = hello or pb.Hello(token=token, protocol_version=9)
            error = await _hello_reply(referee.address, sent)
            if hello is None:
                assert "protocol version 9" in str(future.exception())
            return error

    error = asyncio.run(main())
    assert error.code() == code
    assert reason in error.details()


def test_sdk_bot_without_an_address_exits_with_a_clear_message():
    env = {key: value for key, value in os.environ.items() if not key.startswith("PITCH_")}
    done = subprocess.run(
        [sys.executable, str(reference.folder("random") / "bot.py")],
        env=env, capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert done.returncode == 2
    assert "PITCH_ADDRESS" in done.stderr and "Traceback" not in done.stderr


def test_referee_can_serve_on_tcp(tmp_path, random_bot):
    from pitch_referee.referee import RefereeSettings

    async def main() -> tuple[str, dict]:
        settings = RefereeSettings(tcp=True)
        async with Referee(tmp_path, settings, announce=lambda _: None) as referee:
            slots = [PlayerSlot(f"s{seat}", random_bot, "random") for seat in range(4)]
            from pitch_sdk.options import RuleOptions

            result = await referee.play(slots, game_id="g", seed=2, options=RuleOptions(hand_cap=2))
            return referee.address, result.record

    address, record = asyncio.run(main())
    assert address.startswith("127.0.0.1:") and not address.endswith(":0")
    assert record.faults == ()
