"""A referee run for the referee tests: bot folders from a command, games played through a
real referee, and the checks that it left no folder and no process behind."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from pathlib import Path

from pitch_referee.game_loop import FaultPolicy, GameResult, TimeControl
from pitch_referee.manifest import BotManifest, load_manifest
from pitch_referee.process import StartOptions
from pitch_referee.referee import PlayerSlot, Referee, RefereeSettings
from pitch_referee.sandbox import SandboxLimits
from pitch_sdk.options import RuleOptions

SHORT_GAMES = RuleOptions(hand_cap=3)
QUICK_TIME = TimeControl(limit_ms=300, reserve_ms=300)


def write_bot(folder: Path, command: Sequence[str], name: str = "testbot") -> BotManifest:
    folder.mkdir(parents=True, exist_ok=True)
    quoted = ", ".join(f'"{part}"' for part in command)
    (folder / "bot.toml").write_text(f'name = "{name}"\nversion = "0"\ncommand = [{quoted}]\n')
    return load_manifest(folder)


class Run:
    """The outcome of ``play_games``: results plus what the referee left behind."""

    def __init__(self) -> None:
        self.results: list[GameResult] = []
        self.private_dir: str | None = None
        self.address = ""


def play_games(
    log_dir: Path,
    manifests: Sequence[BotManifest],
    games: int = 1,
    *,
    policy: FaultPolicy = FaultPolicy.FORFEIT,
    time_control: TimeControl = QUICK_TIME,
    start_timeout_s: float = 10.0,
    options: RuleOptions = SHORT_GAMES,
    sandbox: SandboxLimits | None = None,
) -> Run:
    """Play ``games`` games with ``manifests[seat]`` in each seat, through a real referee."""
    settings = RefereeSettings(time_control, policy, StartOptions(start_timeout_s), sandbox=sandbox)
    outcome = Run()

    async def main() -> None:
        async with Referee(log_dir, settings, announce=lambda _: None) as referee:
            outcome.private_dir = referee._own and referee._own.folder
            outcome.address = referee.address
            slots = [
                PlayerSlot(f"seat{seat}", manifests[seat], manifests[seat].name)
                for seat in range(4)
            ]
            for game in range(games):
                result = await referee.play(slots, game_id=f"g{game}", seed=game, options=options)
                outcome.results.append(result)

    asyncio.run(main())
    return outcome


def processes_serving(address: str) -> list[int]:
    """Live processes started for the referee at ``address`` (by their environment)."""
    marker = f"PITCH_ADDRESS={address}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            state = (entry / "stat").read_text().split(")")[-1].split()[0]
        except OSError:
            continue
        if marker in environ.split(b"\0") and state != "Z":
            found.append(int(entry.name))
    return found


def assert_nothing_left(run: Run) -> None:
    assert run.private_dir is not None and not Path(run.private_dir).exists()
    assert processes_serving(run.address) == []
