"""Rerunning a recorded game against a live bot: would it decide as the record says?

The bot runs as a real process behind a real referee server on a private Unix socket,
exactly as in a match. It plays one seat of the recorded game: it gets the game start,
then at each of that seat's decisions the recorded view, the legal actions and the events
since its last request. Its answer is compared with the recorded action, and the recorded
action is what the engine applies, so the game always follows the record.
"""

from __future__ import annotations

import os
import secrets
import shutil
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pitch_sdk._proto import pitch_pb2 as pb
from pitch_sdk.actions import Action, InvalidActionError
from pitch_sdk.cards import Seat
from pitch_sdk.options import RuleOptions
from pitch_sdk.record import replay
from pitch_sdk.rules import GameState
from pitch_sdk.walk import Dealt, Step, walk
from pitch_sdk.wire import (
    action_from_proto,
    action_to_proto,
    deal_event,
    decided_event,
    hidden_for,
    options_to_proto,
    scored_event,
    view_to_proto,
)

from .connection import start_server, stop_server
from .errors import BotError, BotProtocolError, BotStartError, BotTimeoutError, PitchError
from .game_loop import TimeControl
from .manifest import BotManifest
from .process import BotProcess, LocalLauncher, StartOptions
from .sandbox import SandboxLauncher, SandboxLimits

GAME_ID = "rerun"


@dataclass(frozen=True)
class Finding:
    """A decision where the bot did not answer what the record says."""

    hand: int
    decision: int
    """Counted from 1 within the hand, as replay messages count."""
    kind: str
    """The decision's kind: bid, trump, discard, pickup, stock or play."""
    recorded: str
    answer: str | None
    """The bot's action; ``None`` when it faulted."""
    fault: str | None = None
    """``kind: detail`` of a timeout, crash, malformed or illegal answer."""

    def __str__(self) -> str:
        where = f"hand {self.hand}, decision {self.decision} ({self.kind})"
        if self.fault is not None:
            return f"{where}: recorded {self.recorded}, the bot faulted: {self.fault}"
        return f"{where}: recorded {self.recorded}, the bot answered {self.answer}"


@dataclass
class RerunReport:
    """What a rerun found: the decisions asked, and those answered otherwise."""

    seat: Seat
    bot: str
    decisions: int = 0
    """The seat's decisions in the record that were not forced."""
    findings: list[Finding] = field(default_factory=list)
    not_asked: int = 0
    """Decisions left after the bot went away (crashed or disconnected)."""

    @property
    def differ(self) -> int:
        return sum(finding.fault is None for finding in self.findings)

    @property
    def faults(self) -> int:
        return sum(finding.fault is not None for finding in self.findings)


async def rerun(
    record: dict[str, Any],
    seat: Seat,
    manifest: BotManifest,
    *,
    time_control: TimeControl | None = None,
    log_path: Path | None = None,
    sandbox: SandboxLimits | None = None,
) -> RerunReport:
    """Ask ``manifest``'s bot every non-forced decision of ``seat`` in ``record``.

    ``time_control`` defaults to a match's; ``log_path`` keeps the bot's output;
    ``sandbox``: run the bot in the sandbox with these limits.

    Raises:
        PitchError: the record does not replay, or the bot does not start.
    """
    replayed = replay(record)
    if not replayed.ok:
        raise PitchError(f"the record does not replay: {replayed.discrepancy}")
    time_control = time_control or TimeControl()
    private = tempfile.mkdtemp(prefix="pitch-rerun-")  # mode 0700: only we can connect
    log = log_path or Path(private) / "bot.log"
    server = bot = None
    try:
        server, service, address = await start_server(f"unix:{private}/referee.sock")
        os.chmod(f"{private}/referee.sock", 0o666)  # a sandboxed bot runs as another user
        launcher = SandboxLauncher(sandbox) if sandbox else LocalLauncher()
        try:
            bot = await BotProcess.spawn(manifest, service, address, log, StartOptions(), launcher)
        except BotStartError as error:
            raise PitchError(f"the bot did not start: {error}{_last_words(log)}") from None
        start = _game_start(record, seat, replayed.state.options, time_control)
        bot.send(pb.RefereeMessage(game_start=start))
        return await _Rerun(bot, seat, time_control).run(record)
    finally:
        if bot is not None:
            await bot.close("the rerun is over")
        if server is not None:
            await stop_server(server)
        shutil.rmtree(private, ignore_errors=True)


def _last_words(log: Path) -> str:
    """The bot's last line of output (a Python bot's is its exception), to say why it died."""
    try:
        lines = log.read_text(errors="replace").strip().splitlines()
    except OSError:
        return ""
    return f" (its last output: {lines[-1].strip()})" if lines else ""


def _game_start(
    record: dict[str, Any], seat: Seat, options: RuleOptions, time_control: TimeControl
) -> pb.GameStart:
    """The start of the recorded game, as the referee announced it to ``seat``."""
    players = [
        pb.Player(
            seat=player["seat"],
            name=str(player.get("name", "")),
            version=str(player.get("version", "")),
        )
        for player in record.get("players", [])
        if isinstance(player, dict) and isinstance(player.get("seat"), int)
    ]
    return pb.GameStart(
        game_id=GAME_ID,
        seat=seat,
        rules=options_to_proto(options),
        players=players,
        first_dealer=record["first_dealer"],
        time_limit_ms=time_control.limit_ms,
        time_reserve_ms=time_control.reserve_ms,
        seed=_bot_seed(record, seat),
    )


def _bot_seed(record: dict[str, Any], seat: Seat) -> str:
    """The seed the seat's bot got in the game (records keep it), else a fresh one: never
    the game's own seed, from which the deals follow."""
    for player in record.get("players", []):
        if isinstance(player, dict) and player.get("seat") == seat and player.get("seed"):
            return str(player["seed"])
    return secrets.token_hex(16)


class _Rerun:
    """One walk through the record with the bot in ``seat``."""

    def __init__(self, bot: BotProcess, seat: Seat, time_control: TimeControl) -> None:
        assert bot.connection is not None  # a spawned bot has said hello
        self.bot = bot
        self.connection = bot.connection
        self.seat = seat
        self.time_control = time_control
        self.reserve_ms = float(time_control.reserve_ms)
        self.events: list[pb.Event] = []
        """What happened since the bot's last request, as the seat may know it."""
        self.report = RerunReport(seat, f"{bot.name} {self.connection.version}".strip())

    async def run(self, record: dict[str, Any]) -> RerunReport:
        for event in walk(record):
            if isinstance(event, Dealt):
                state = event.state
                self.events.append(deal_event(event.hand, state.dealer, state.hands[self.seat]))
                continue
            if event.seat == self.seat and not event.forced:
                await self._decision(event)
            action = hidden_for(event.action, event.seat, self.seat)
            self.events.append(decided_event(event.hand, event.seat, action, event.forced))
            if len(event.after.hand_results) > len(event.before.hand_results):
                self.events.append(scored_event(event.after.hand_results[-1]))
        return self.report

    async def _decision(self, step: Step) -> None:
        self.report.decisions += 1
        if not self.bot.alive:
            self.report.not_asked += 1
            return
        kind = step.before.decision()
        assert kind is not None
        finding = Finding(step.hand, step.index + 1, kind.name.lower(), str(step.action), None)
        try:
            answer = await self._ask(step.before)
        except (BotError, InvalidActionError) as error:
            fault = f"{await self._fault_kind(error)}: {error}"
            self.report.findings.append(replace(finding, fault=fault))
            return
        if answer not in step.before.legal_actions():
            fault = f"illegal_action: {answer} is not legal here"
            self.report.findings.append(replace(finding, answer=str(answer), fault=fault))
        elif answer != step.action:
            self.report.findings.append(replace(finding, answer=str(answer)))

    async def _ask(self, state: GameState) -> Action:
        """One round trip, timed and paid for like in a match."""
        limit = self.time_control.limit_ms
        request = pb.DecisionRequest(
            game_id=GAME_ID,
            view=view_to_proto(state.view(self.seat)),
            legal_actions=[action_to_proto(action) for action in state.legal_actions()],
            time_limit_ms=limit,
            time_reserve_ms=int(self.reserve_ms),
            events=self.events,
        )
        self.events = []
        try:
            answer, seconds = await self.connection.ask(request, (limit + self.reserve_ms) / 1000)
        except BotTimeoutError:
            self.reserve_ms = 0.0  # the whole reserve went waiting
            raise
        self.reserve_ms = max(0.0, self.reserve_ms - max(0.0, seconds * 1000 - limit))
        if not answer.HasField("action"):
            raise BotProtocolError("the answer holds no action")
        return action_from_proto(answer.action)

    async def _fault_kind(self, error: Exception) -> str:
        """The fault kinds of the record format (``docs/record-format.md``)."""
        if isinstance(error, BotTimeoutError):
            return "timeout"
        if isinstance(error, BotProtocolError):
            return error.kind
        if isinstance(error, InvalidActionError):
            return "malformed"
        return "crashed" if await self.bot.has_exited(within_s=0.5) else "disconnected"
