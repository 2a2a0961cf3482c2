"""Transport cost: the referee's round trip per decision against a bare gRPC floor.

Run by hand: ``uv run python bench/transport.py``. Results go in ``bench/RESULTS.md``.
``GRPC_EXPERIMENTS= uv run python bench/transport.py`` measures gRPC's EventEngine I/O
path instead of the classic one the SDK chooses (see ``pitch_sdk/__init__.py``).

- floor: a bidirectional-stream ping-pong between two Python processes, using the same
  server and client (grpc.aio on both sides, as the referee and the SDK) and the same
  message types, with empty views: what any Python referee would pay.
- rotating floor: the same echo, asked of four client processes in turn, as a game asks
  its four seats: what one process per seat costs before any work.
- referee: four random reference bots playing through the referee; wall time divided by
  the number of non-forced decisions (each is one round trip carrying a full view).
- spawn to hello: starting the random reference bot until the referee has its hello.
"""

from __future__ import annotations

from pitch_sdk import reference
from pitch_sdk.grpc_io import prefer_classic_io

prefer_classic_io()  # before grpc loads (GRPC_EXPERIMENTS= measures the EventEngine path)

# isort: split
import argparse
import asyncio
import os
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

RANDOM_BOT = reference.folder("random")


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


async def floor(round_trips: int, clients: int = 1) -> float:
    """Seconds per bare round trip, asking ``clients`` echo processes in turn."""
    with tempfile.TemporaryDirectory() as private:
        server, service, address = await start_server(f"unix:{private}/floor.sock")
        connections, processes = [], []
        for _ in range(clients):
            token, hello = service.expect()
            command = [sys.executable, __file__, "--echo-client", address, token]
            processes.append(subprocess.Popen(command))
            connections.append(await asyncio.wait_for(hello, 30))
        request = pb.DecisionRequest(game_id="floor")
        for turn in range(200):  # warm up
            await connections[turn % clients].ask(request, 5)
        started = time.perf_counter()
        for turn in range(round_trips):
            await connections[turn % clients].ask(request, 5)
        elapsed = time.perf_counter() - started
        for connection, process in zip(connections, processes, strict=True):
            connection.send(pb.RefereeMessage(shutdown=pb.Shutdown(reason="done")))
            await asyncio.to_thread(process.wait, 10)  # keep the loop serving meanwhile
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


def bytecode_cached() -> bool:
    """Whether bots import grpc from compiled bytecode (else every start compiles it)."""
    return any(Path(grpc.__file__).parent.glob("__pycache__/__init__.*.pyc"))


async def main(games: int, round_trips: int) -> None:
    bare = await floor(round_trips)
    rotating = await floor(round_trips, clients=4)
    per_decision, decisions = await referee_per_decision(games)
    spawns = sorted(await spawn_to_hello(10))
    print(f"gRPC I/O: GRPC_EXPERIMENTS={os.environ.get('GRPC_EXPERIMENTS')!r}")
    print(f"floor (bare gRPC round trip): {bare * 1e6:8.1f} us over {round_trips} round trips")
    print(f"floor rotating over 4 bots:   {rotating * 1e6:8.1f} us ({rotating / bare:.2f} x floor)")
    print(f"referee per decision:         {per_decision * 1e6:8.1f} us over {decisions} decisions")
    print(f"ratio referee/floor:          {per_decision / bare:8.2f}")
    print(f"ratio referee/rotating floor: {per_decision / rotating:8.2f}")
    print(
        f"spawn to hello (10 starts):   median {spawns[5] * 1000:.0f} ms, "
        f"min {spawns[0] * 1000:.0f} ms, max {spawns[-1] * 1000:.0f} ms"
    )
    if not bytecode_cached():
        print(
            "  (grpc's bytecode is not cached, so every bot start compiled it: "
            "run `uv sync --compile-bytecode` to measure what an installed bot pays)"
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
