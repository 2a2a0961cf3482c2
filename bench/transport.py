"""Transport cost: the referee's round trip per decision against a bare gRPC floor.

Run by hand: ``uv run python bench/transport.py``. Results go in ``bench/RESULTS.md``.

- floor: a bidirectional-stream ping-pong between two Python processes, using the same
  server and client (grpc.aio on both sides, as the referee and the SDK) and the same
  message types, with empty views: what any Python referee would pay.
- referee: four random sample bots playing through the referee; wall time divided by
  the number of non-forced decisions (each is one round trip carrying a full view).
- spawn to hello: starting the random sample bot until the referee has its hello.
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import grpc

from pitch_referee.connection import start_server, stop_server
from pitch_referee.manifest import load_manifest
from pitch_referee.process import BotProcess, LocalLauncher, StartOptions
from pitch_referee.referee import PlayerSlot, Referee
from pitch_sdk._proto import pitch_pb2 as pb
from pitch_sdk._proto import pitch_pb2_grpc
from pitch_sdk.options import RuleOptions

ROOT = Path(__file__).resolve().parents[1]
RANDOM_BOT = ROOT / "sample_bots" / "random"


async def echo_client(address: str, token: str) -> None:
    """The floor's bot side: answer every request at once, nothing else (grpc.aio, as the SDK)."""
    async with grpc.aio.insecure_channel(address) as channel:
        call = pitch_pb2_grpc.RefereeStub(channel).Play(wait_for_ready=True)
        hello = pb.Hello(token=token, name="echo", version="0", protocol_version=1)
        await call.write(pb.BotMessage(hello=hello))
        while (message := await call.read()) is not grpc.aio.EOF:
            if message.WhichOneof("message") == "request":
                answer = pb.Answer(request_id=message.request.request_id, action=pb.Action(bid=0))
                await call.write(pb.BotMessage(answer=answer))
            elif message.WhichOneof("message") == "shutdown":
                break
        call.cancel()


async def floor(round_trips: int) -> float:
    """Seconds per bare round trip."""
    with tempfile.TemporaryDirectory() as private:
        server, service, address = await start_server(f"unix:{private}/floor.sock")
        token, hello = service.expect()
        client = subprocess.Popen([sys.executable, __file__, "--echo-client", address, token])
        connection = await asyncio.wait_for(hello, 30)
        request = pb.DecisionRequest(game_id="floor")
        for _ in range(200):  # warm up
            await connection.ask(request, 5)
        started = time.perf_counter()
        for _ in range(round_trips):
            await connection.ask(request, 5)
        elapsed = time.perf_counter() - started
        connection.send(pb.RefereeMessage(shutdown=pb.Shutdown(reason="done")))
        await asyncio.to_thread(client.wait, 10)  # keep the loop serving meanwhile
        await stop_server(server)
    return elapsed / round_trips


async def referee_per_decision(games: int) -> tuple[float, int]:
    """Seconds per non-forced decision through the referee, and how many were timed."""
    manifest = load_manifest(RANDOM_BOT)
    slots = [PlayerSlot(f"s{seat}", manifest, "random") for seat in range(4)]
    with tempfile.TemporaryDirectory() as logs:
        async with Referee(Path(logs), announce=lambda _: None) as referee:
            await referee.play(slots, game_id="warm", seed=0, options=RuleOptions(hand_cap=2))
            decisions, elapsed = 0, 0.0
            for game in range(games):
                started = time.perf_counter()
                result = await referee.play(
                    slots, game_id=f"g{game}", seed=game + 1, options=RuleOptions(hand_cap=20)
                )
                elapsed += time.perf_counter() - started
                decisions += sum(
                    not decision["forced"]
                    for hand in result.record["hands"]
                    for decision in hand["decisions"]
                )
    return elapsed / decisions, decisions


async def spawn_to_hello(times: int) -> list[float]:
    manifest = load_manifest(RANDOM_BOT)
    samples = []
    with tempfile.TemporaryDirectory() as private:
        server, service, address = await start_server(f"unix:{private}/spawn.sock")
        for attempt in range(times):
            started = time.perf_counter()
            bot = await BotProcess.spawn(
                manifest,
                service,
                address,
                Path(private) / f"{attempt}.log",
                StartOptions(),
                LocalLauncher(),
            )
            samples.append(time.perf_counter() - started)
            await bot.close()
        await stop_server(server)
    return samples


async def main(games: int, round_trips: int) -> None:
    bare = await floor(round_trips)
    per_decision, decisions = await referee_per_decision(games)
    spawns = sorted(await spawn_to_hello(10))
    print(f"floor (bare gRPC round trip): {bare * 1e6:8.1f} us over {round_trips} round trips")
    print(f"referee per decision:         {per_decision * 1e6:8.1f} us over {decisions} decisions")
    print(f"ratio referee/floor:          {per_decision / bare:8.2f}")
    print(
        f"spawn to hello (10 starts):   median {spawns[5] * 1000:.0f} ms, "
        f"min {spawns[0] * 1000:.0f} ms, max {spawns[-1] * 1000:.0f} ms"
    )


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--echo-client":
        asyncio.run(echo_client(sys.argv[2], sys.argv[3]))
        raise SystemExit(0)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--round-trips", type=int, default=3000)
    args = parser.parse_args()
    asyncio.run(main(args.games, args.round_trips))
