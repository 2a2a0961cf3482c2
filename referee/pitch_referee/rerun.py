"""Rerunning a recorded game against a live bot: would it decide as the record says?

The recorded game is played again at a ``Table``: every seat plays its recorded actions,
and the seat under test also asks the bot, a real process behind a real referee server on
a private Unix socket, exactly as in a match. The bot gets the game start, the events and
the requests it got in the game; its answer is compared with the recorded one, and the
recorded action is what the table applies, so the game always follows the record.
"""

from __future__ import annotations

import os
import secrets
import shutil
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pitch_sdk.actions import Action
from pitch_sdk.cards import SEATS, Card, Seat
from pitch_sdk.deck import deck_for
from pitch_sdk.faults import Fault, FaultKind
from pitch_sdk.gamerecord import GameRecord
from pitch_sdk.options import RuleOptions
from pitch_sdk.replay import check
from pitch_sdk.table import (
    Answer,
    Dealt,
    Decided,
    GameStart,
    SeatEvent,
    Table,
    TableEvent,
    TimeControl,
    Turn,
)
from pitch_sdk.views import PlayerView

from .connection import start_server, stop_server
from .errors import BotStartError, PitchError
from .game_loop import RemotePlayer
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
    view: PlayerView | None = field(default=None, compare=False, repr=False)
    """What the seat knew: its hand, the trick, the score (for showing the context)."""

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
    record: GameRecord,
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
    replayed = check(record)
    if not replayed.ok:
        raise PitchError(f"the record does not replay: {replayed.discrepancy}")
    private = tempfile.mkdtemp(prefix="pitch-rerun-")  # mode 0700: only we can connect
    log = log_path or Path(private) / "bot.log"
    server = bot = None
    try:
        server, service, address = await start_server(f"unix:{private}/referee.sock")
        os.chmod(f"{private}/referee.sock", 0o666)  # a sandboxed bot runs as another user
        launcher = SandboxLauncher(sandbox) if sandbox else LocalLauncher()
        try:
            kept_before = log.stat().st_size if log.is_file() else 0  # appended to
            options = StartOptions(log_cap_bytes=kept_before + StartOptions.log_cap_bytes)
            bot = await BotProcess.spawn(manifest, service, address, log, options, launcher)
        except BotStartError as error:
            raise PitchError(f"the bot did not start: {error}{_last_words(log)}") from None
        return await _replay_with(bot, record, seat, replayed.state.options, time_control)
    finally:
        if bot is not None:
            await bot.close("the rerun is over")
        if server is not None:
            await stop_server(server)
        shutil.rmtree(private, ignore_errors=True)


async def _replay_with(
    bot: BotProcess,
    record: GameRecord,
    seat: Seat,
    options: RuleOptions,
    time_control: TimeControl | None,
) -> RerunReport:
    script = _Script(record)
    report = RerunReport(seat, f"{bot.name} {RemotePlayer(bot).version}".strip())
    players: list[Any] = [_RecordedPlayer(script, _name(record, s)) for s in SEATS]
    players[seat] = _ComparingPlayer(RemotePlayer(bot), players[seat], report)
    table = Table(
        players,
        seed=record.seed or 0,
        options=options,
        first_dealer=record.first_dealer,
        game_id=GAME_ID,
        time_control=time_control or TimeControl(),
        bot_seeds=[_bot_seed(record, s) for s in SEATS],
        decks=script.deck,
        watchers=[script.advance],
    )
    await table.play()
    return report


def _last_words(log: Path) -> str:
    """The bot's last line of output (a Python bot's is its exception), to say why it died."""
    try:
        lines = log.read_text(errors="replace").strip().splitlines()
    except OSError:
        return ""
    return f" (its last output: {lines[-1].strip()})" if lines else ""


def _name(record: GameRecord, seat: Seat) -> str:
    player = record.player(seat)
    return player.name if player is not None else ""


def _bot_seed(record: GameRecord, seat: Seat) -> str:
    """The seed the seat's bot got in the game (records keep it), else a fresh one: never
    the game's own seed, from which the deals follow."""
    player = record.player(seat)
    if player is not None and player.seed:
        return str(player.seed)
    return secrets.token_hex(16)


class _Script:
    """The record's decks and decisions, followed as the table plays them."""

    def __init__(self, record: GameRecord) -> None:
        self.record = record
        self.hands = record.hands
        self.hand, self.index = 1, 0

    def deck(self, number: int) -> list[Card]:
        if number <= len(self.hands):
            return list(self.hands[number - 1].deck)
        return deck_for(self.record.seed or 0, number)  # beyond a forfeited game's end

    def advance(self, event: TableEvent) -> None:
        if isinstance(event, Dealt):
            self.hand, self.index = event.hand, 0
        elif isinstance(event, Decided):
            self.index += 1

    def next_action(self) -> Action:
        """The recorded decision at this point of the game; a fault where the record ends."""
        decisions = self.hands[self.hand - 1].decisions if self.hands else ()
        if self.index < len(decisions):
            return decisions[self.index].action
        for fault in self.record.faults:
            if (fault.hand, fault.decision) == (self.hand, self.index):
                raise Fault(FaultKind(fault.kind), fault.detail)
        raise Fault(FaultKind.DISCONNECTED, "the record ends here")


class _RecordedPlayer:
    """A seat that plays what the record says."""

    def __init__(self, script: _Script, name: str) -> None:
        self.script = script
        self.name = name
        self.version = "recorded"

    def start(self, game: GameStart) -> None:
        pass

    async def decide(self, turn: Turn) -> Answer:
        return Answer(self.script.next_action(), 0.0)

    def observe(self, event: SeatEvent) -> None:
        pass

    def end(self, view: PlayerView) -> None:
        pass


class _ComparingPlayer:
    """The seat under test: the bot is asked, the record is followed, differences noted."""

    def __init__(self, bot: RemotePlayer, recorded: _RecordedPlayer, report: RerunReport) -> None:
        self.bot = bot
        self.recorded = recorded
        self.report = report
        self.name = bot.name
        self.version = bot.version

    def start(self, game: GameStart) -> None:
        self.bot.start(game)

    def observe(self, event: SeatEvent) -> None:
        self.bot.observe(event)

    def end(self, view: PlayerView) -> None:
        self.bot.end(view)

    async def decide(self, turn: Turn) -> Answer:
        recorded = await self.recorded.decide(turn)  # where the record ends: its fault
        self.report.decisions += 1
        if not self.bot.bot.alive:
            self.report.not_asked += 1
            return recorded
        kind = turn.view.decision
        assert kind is not None
        finding = Finding(
            turn.view.hand_number,
            self.recorded.script.index + 1,
            kind.name.lower(),
            str(recorded.action),
            None,
            view=turn.view,
        )
        try:
            answer = await self.bot.decide(turn)
        except Fault as fault:
            self.report.findings.append(replace(finding, fault=f"{fault.kind}: {fault.detail}"))
            return Answer(recorded.action, turn.budget.total_ms)
        if answer.action not in turn.view.legal_actions:
            illegal = f"{FaultKind.ILLEGAL_ACTION}: {answer.action} is not legal here"
            self.report.findings.append(replace(finding, answer=str(answer.action), fault=illegal))
        elif answer.action != recorded.action:
            self.report.findings.append(replace(finding, answer=str(answer.action)))
        return Answer(recorded.action, answer.ms)
