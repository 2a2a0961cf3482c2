"""Sandbox cost: a bot's start, and a game's speed, with the sandbox on and off.

Run by hand: ``uv run python bench/sandbox.py``. Results go in ``bench/RESULTS.md``.
Everything is measured in one run, on and off interleaved, and reported as ratios.

- spawn to hello: starting the random reference bot until the referee has its hello, as a
  plain process and in the sandbox (bubblewrap, a cgroup, setpriv). Target: at most
  50 ms more. Then its close (shutdown, exit, and in the sandbox the cgroup's removal).
- games per second: games between four greedy bots, through a referee with the sandbox
  off and one with it on, both with their bots started, playing the same games in turn
  game by game; with the CPU per decision of the referee process and of the bots (each
  bot's cgroup on, its process off). The ratio on/off is taken round by round, and game
  by game (the same deal on both sides, a moment apart). Target: the sandbox
  costs at most 10%. The CPU figures wait for no core, so a loaded machine, which
  swings the games per second of a round by 2x, moves them far less.
- pausing: what stopping a bot between its decisions costs per decision, by each
  method the kernel offers: v2 ``cgroup.freeze``, and SIGSTOP/SIGCONT to each of the
  group's processes (the fallback without a v2 hierarchy).
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

from pitch_referee import cgroups
from pitch_referee.connection import start_server, stop_server
from pitch_referee.manifest import load_manifest
from pitch_referee.process import BotProcess, Launcher, LocalLauncher, StartOptions
from pitch_referee.referee import PlayerSlot, Referee, RefereeSettings
from pitch_referee.sandbox import SandboxLauncher, SandboxLimits, unavailable_reason
from pitch_sdk.options import RuleOptions

RANDOM_BOT = load_manifest(reference.folder("random"))
GREEDY_BOT = load_manifest(reference.folder("greedy"))


async def spawn_to_hello(launcher: Launcher, folder: Path) -> tuple[float, float]:
    """Seconds from asking for the bot to its hello, and from asking it to stop to its end."""
    server, service, address = await start_server(f"unix:{folder}/referee.sock")
    os.chmod(f"{folder}/referee.sock", 0o666)
    try:
        started = time.perf_counter()
        bot = await BotProcess.spawn(
            RANDOM_BOT, service, address, folder / "bot.log", StartOptions(), launcher
        )
        elapsed = time.perf_counter() - started
        started = time.perf_counter()
        await bot.close()
        return elapsed, time.perf_counter() - started
    finally:
        await stop_server(server)


def spawn_times(launcher: Launcher, runs: int) -> list[tuple[float, float]]:
    times = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as folder:
            times.append(asyncio.run(spawn_to_hello(launcher, Path(folder))))
    return times


@dataclass
class Speed:
    """One side of a round: games per second, and CPU per non-forced decision (us)."""

    games_per_s: float
    referee_us: float
    bots_us: float


def bot_cpu(bot: BotProcess) -> float:
    """CPU seconds of a live bot: its cgroup's in the sandbox, else its process's."""
    if (seconds := bot.cpu_seconds()) is not None:
        return seconds
    assert bot.process is not None
    fields = Path(f"/proc/{bot.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Side:
    """One referee, sandboxed or not, with its four greedy bots started; its games are
    timed one at a time, so that the two sides can alternate game by game."""

    def __init__(self, referee: Referee) -> None:
        self.referee = referee
        self.slots = [PlayerSlot(f"s{seat}", GREEDY_BOT, "greedy") for seat in range(4)]
        self.seconds = self.referee_cpu = self.bots_cpu = 0.0
        self.decisions = 0
        self.per_decision: list[float] = []
        """Each game's seconds per non-forced decision."""

    async def play(self, game: int) -> None:
        bots = [await self.referee.bot(slot) for slot in self.slots]
        bots_cpu = sum(bot_cpu(bot) for bot in bots)
        started, cpu = time.perf_counter(), time.process_time()
        result = await self.referee.play(
            self.slots, game_id=f"g{game}", seed=game, options=RuleOptions()
        )
        seconds = time.perf_counter() - started
        self.referee_cpu += time.process_time() - cpu
        self.bots_cpu += sum(bot_cpu(bot) for bot in bots) - bots_cpu
        decisions = sum(
            not decision.forced for hand in result.record.hands for decision in hand.decisions
        )
        self.seconds += seconds
        self.decisions += decisions
        self.per_decision.append(seconds / decisions)

    def speed(self, games: int) -> Speed:
        return Speed(
            games / self.seconds,
            self.referee_cpu / self.decisions * 1e6,
            self.bots_cpu / self.decisions * 1e6,
        )


async def games_per_second(games: int) -> tuple[Side, Side]:
    """The same ``games`` played off and on the sandbox, alternating game by game (which
    side goes first alternates too), each side's bots started before the first."""
    with tempfile.TemporaryDirectory() as logs:
        settings = [RefereeSettings(sandbox=None), RefereeSettings(sandbox=SandboxLimits())]
        referees = [Referee(Path(logs) / str(n), s, announce=print) for n, s in enumerate(settings)]
        async with referees[0], referees[1]:
            off, on = Side(referees[0]), Side(referees[1])
            for side in (off, on):
                await side.referee.play(side.slots, game_id="warm-up", seed="warm-up")
            for game in range(games):
                for side in (off, on) if game % 2 == 0 else (on, off):
                    await side.play(game)
    return off, on


def _cpu(speed: Speed) -> float:
    return speed.referee_us + speed.bots_us


def pause_cost(group: cgroups.Cgroup, rounds: int) -> float:
    """Microseconds per freeze and thaw pair, on a group holding one sleeping process."""
    joins = " && ".join(f"echo $$ > {procs}" for procs in group.procs_files())
    sleeper = subprocess.Popen(["/bin/sh", "-c", f"{joins} && exec sleep 60"])
    time.sleep(0.2)
    started = time.perf_counter()
    for _ in range(rounds):
        group.freeze()
        group.thaw()
    elapsed = time.perf_counter() - started
    sleeper.kill()
    sleeper.wait()
    return elapsed / rounds * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spawns", type=int, default=20)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3, help="on/off alternations of games")
    args = parser.parse_args()
    if (reason := unavailable_reason()) is not None:
        sys.exit(f"cannot measure the sandbox here: {reason}")

    plain, boxed = [], []
    for _ in range(args.spawns):  # interleaved, so both see the same machine
        plain += spawn_times(LocalLauncher(), 1)
        boxed += spawn_times(SandboxLauncher(), 1)
    for step, what in enumerate(("spawn to hello", "close")):
        plain_ms = statistics.median(times[step] for times in plain) * 1000
        boxed_ms = statistics.median(times[step] for times in boxed) * 1000
        print(
            f"{what}, median of {args.spawns}: plain {plain_ms:.1f} ms, sandbox "
            f"{boxed_ms:.1f} ms: +{boxed_ms - plain_ms:.1f} ms ({boxed_ms / plain_ms:.2f}x)"
        )

    rounds, pairs = [], []
    for _ in range(args.rounds):
        off_side, on_side = asyncio.run(games_per_second(args.games))
        off, on = off_side.speed(args.games), on_side.speed(args.games)
        rounds.append((off, on))
        pairs += [b / a for a, b in zip(off_side.per_decision, on_side.per_decision, strict=True)]
        print(
            f"  round: off {off.games_per_s:.2f} games/s (CPU a decision: referee "
            f"{off.referee_us:.0f} us, bots {off.bots_us:.0f} us), on {on.games_per_s:.2f} "
            f"({on.referee_us:.0f}, {on.bots_us:.0f}): "
            f"on/off {on.games_per_s / off.games_per_s:.3f}"
        )
    ratios = [on.games_per_s / off.games_per_s for off, on in rounds]
    cpu_ratios = [_cpu(on) / _cpu(off) for off, on in rounds]
    referee = statistics.median(on.referee_us - off.referee_us for off, on in rounds)
    bots = statistics.median(on.bots_us - off.bots_us for off, on in rounds)
    print(
        f"games per second, greedy x4, {args.rounds} rounds of {args.games} games on and off: "
        f"on/off median {statistics.median(ratios):.3f} (range {min(ratios):.3f} to "
        f"{max(ratios):.3f}): the sandbox costs {(1 - statistics.median(ratios)) * 100:.1f}%"
    )
    print(
        f"time a decision, each game on against the same game off: on/off median "
        f"{statistics.median(pairs):.3f} over {len(pairs)} pairs (quartiles "
        f"{statistics.quantiles(pairs, n=4)[0]:.3f} to {statistics.quantiles(pairs, n=4)[2]:.3f})"
    )
    print(
        f"CPU a decision (referee + bots), on/off median {statistics.median(cpu_ratios):.3f} "
        f"(range {min(cpu_ratios):.3f} to {max(cpu_ratios):.3f}): the referee's "
        f"{referee:+.0f} us, the bots' {bots:+.0f} us a decision"
    )

    factory = cgroups.detect()
    if factory is None:
        print("pausing: no cgroups here, bots are not paused")
        return
    print(f"cgroups: {factory.description}")
    group = factory.create(cgroups.CgroupLimits(1 << 30, 64))
    try:
        if group.v2 is not None:
            print(f"pause+resume by cgroup.freeze: {pause_cost(group, 2000):.1f} us")
        signals = cgroups.Cgroup(group.v1, None)  # the same group, paused by signals
        print(f"pause+resume by SIGSTOP/SIGCONT: {pause_cost(signals, 2000):.1f} us")
    finally:
        asyncio.run(group.remove())


if __name__ == "__main__":
    main()
