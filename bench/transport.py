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

The rotating floor and the referee alternate ``--rounds`` times, and the ratio is taken
round by round (the median is the figure: on a shared machine one round may be slowed
by another's job); each round also splits its time per round trip into the referee
process's CPU and the bots' CPU (``/proc``), which a loaded machine inflates less than
the wall time.
"""

from __future__ import annotations

from pitch_sdk import reference
from pitch_sdk.grpc_io import prefer_classic_io

prefer_classic_io()  # before grpc loads (GRPC_EXPERIMENTS= measures the EventEngine path)

# isort: split
import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import grpc

from pitch_referee.connection import start_server, stop_server
from pitch_referee.manifest import load_manifest
from pitch_referee.process import BotProcess, LocalLauncher, StartOptions
from pitch_referee.referee import PlayerSlot, Referee
from pitch_sdk.options import RuleOptions
from pitch_sdk.protocol import messages as pb
from pitch_sdk.protocol import services

RANDOM_BOT = reference.folder("random")


async def echo_client(address: str, token: str) -> None:
    """The floor's bot side: answer every request at once, nothing else (grpc.aio, as the SDK)."""
    async with grpc.aio.insecure_channel(address) as channel:
        call = services.RefereeStub(channel).Play(wait_for_ready=True)
        hello = pb.Hello(token=token, name="echo", version="0", protocol_version=1)
        await call.write(pb.BotMessage(hello=hello))
        while (message := await call.read()) is not grpc.aio.EOF:
            if message.WhichOneof("message") == "request":
                answer = pb.Answer(request_id=message.request.request_id, action=pb.Action(bid=0))
                await call.write(pb.BotMessage(answer=answer))
            elif message.WhichOneof("message") == "shutdown":
                break
        call.cancel()


@dataclass
class Cost:
    """Per round trip: wall seconds, the referee process's CPU and the bots' CPU."""

    wall: float
    referee_cpu: float
    bots_cpu: float


def process_cpu(pid: int) -> float:
    """CPU seconds a live process has used (``/proc/PID/stat``: user + system)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def floor(round_trips: int, clients: int = 1) -> Cost:
    """The cost of a bare round trip, asking ``clients`` echo processes in turn."""
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
        bots_before = sum(process_cpu(process.pid) for process in processes)
        cpu_before, started = time.process_time(), time.perf_counter()
        for turn in range(round_trips):
            await connections[turn % clients].ask(request, 5)
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_before
        bots = sum(process_cpu(process.pid) for process in processes) - bots_before
        for connection, process in zip(connections, processes, strict=True):
            connection.send(pb.RefereeMessage(shutdown=pb.Shutdown(reason="done")))
            await asyncio.to_thread(process.wait, 10)  # keep the loop serving meanwhile
        await stop_server(server)
    return Cost(elapsed / round_trips, cpu / round_trips, bots / round_trips)


async def referee_per_decision(games: int) -> tuple[Cost, int]:
    """The cost of a non-forced decision through the referee, and how many were timed."""
    manifest = load_manifest(RANDOM_BOT)
    slots = [PlayerSlot(f"s{seat}", manifest, "random") for seat in range(4)]
    with tempfile.TemporaryDirectory() as logs:
        async with Referee(Path(logs), announce=lambda _: None) as referee:
            await referee.play(slots, game_id="warm", seed=0, options=RuleOptions(hand_cap=2))
            pids = [(await referee.bot(slot)).process.pid for slot in slots]
            bots_before = sum(process_cpu(pid) for pid in pids)
            decisions, elapsed, cpu = 0, 0.0, 0.0
            for game in range(games):
                cpu_before, started = time.process_time(), time.perf_counter()
                result = await referee.play(
                    slots, game_id=f"g{game}", seed=game + 1, options=RuleOptions(hand_cap=20)
                )
                elapsed += time.perf_counter() - started
                cpu += time.process_time() - cpu_before
                decisions += sum(
                    not decision.forced
                    for hand in result.record.hands
                    for decision in hand.decisions
                )
            bots = sum(process_cpu(pid) for pid in pids) - bots_before
    return Cost(elapsed / decisions, cpu / decisions, bots / decisions), decisions


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


def _cpu(cost: Cost) -> float:
    return cost.referee_cpu + cost.bots_cpu


def _us(cost: Cost) -> str:
    return (
        f"{cost.wall * 1e6:7.1f} us (CPU: referee {cost.referee_cpu * 1e6:5.1f}, "
        f"bots {cost.bots_cpu * 1e6:5.1f})"
    )


async def main(games: int, round_trips: int, rounds: int) -> None:
    bare = (await floor(round_trips)).wall
    pairs = []
    for _ in range(rounds):  # interleaved: each round's ratio sees one state of the machine
        rotating = await floor(round_trips, clients=4)
        per_decision, decisions = await referee_per_decision(games)
        pairs.append((rotating, per_decision))
    spawns = sorted(await spawn_to_hello(10))
    print(f"gRPC I/O: GRPC_EXPERIMENTS={os.environ.get('GRPC_EXPERIMENTS')!r}")
    print(f"floor (bare gRPC round trip): {bare * 1e6:8.1f} us over {round_trips} round trips")
    for number, (rotating, per_decision) in enumerate(pairs, 1):
        print(f"round {number}: floor rotating over 4 bots {_us(rotating)}")
        print(f"         referee per decision       {_us(per_decision)} over {decisions}")
        print(
            f"         referee / rotating floor: wall {per_decision.wall / rotating.wall:.2f}, "
            f"CPU {_cpu(per_decision) / _cpu(rotating):.2f}"
        )
    ratios = [decision.wall / rotating.wall for rotating, decision in pairs]
    cpu_ratios = [_cpu(decision) / _cpu(rotating) for rotating, decision in pairs]
    print(
        f"ratio referee/rotating floor, median of {rounds} rounds: wall "
        f"{statistics.median(ratios):.2f} (range {min(ratios):.2f} to {max(ratios):.2f}), "
        f"CPU {statistics.median(cpu_ratios):.2f}"
    )
    median = statistics.median(decision.wall for _, decision in pairs)
    print(f"ratio referee/floor (median):  {median / bare:8.2f}")
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
    parser.add_argument("--rounds", type=int, default=3, help="rotating floor/referee pairs")
    args = parser.parse_args()
    asyncio.run(main(args.games, args.round_trips, args.rounds))
