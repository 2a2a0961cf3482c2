"""Bot processes: start one, wait for its hello, keep its log, and always clean up.

A ``Launcher`` turns a manifest into a running OS process and the ``SeatControls`` that
go with it; ``LocalLauncher`` runs it directly in the bot's folder, in its own process
group, and ``sandbox.SandboxLauncher`` runs it in a sandbox. ``BotProcess`` owns one
running bot: the process, its controls, its capped log file and its ``BotConnection``.
``close()`` is idempotent and escalates: ask to shut down, wait, SIGTERM the group,
SIGKILL everything the bot started.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import select
import signal
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from pitch_sdk.faults import FaultKind
from pitch_sdk.grpc_io import io_setting
from pitch_sdk.protocol import messages as pb

from .connection import BotConnection, RefereeService
from .errors import BotStartError, BotTerminatedError
from .logindex import LogTag, index_path
from .logtail import clip, exception_line
from .manifest import BotManifest

LOG_CAP_BYTES = 10 * 1024 * 1024
"""What one log file and its index (``logindex``) keep at most, across every process that
writes them (a bot restarted after a fault appends to its seat's file): the default where
a match does not share out a bot's budget (``match.settings.LOG_BUDGET_BYTES``)."""
READ_BYTES = 256 * 1024
"""What one read of a bot's output pipe takes at most (asyncio's own pipe reads: 256 KiB)."""
SETTLE_READS = 8
"""Reads of the output pipe after an answer, at most, to take what the bot wrote before
answering: a pipe holds 64 KiB, and at most 1 MiB if the bot enlarges it."""
SHUTDOWN_GRACE_S = 1.0
TERM_GRACE_S = 1.0
RECENT_OUTPUT_BYTES = 16 * 1024
"""How much of its latest output a process keeps in memory, to name the exception it
died of even when its log file was capped long before."""
OUTPUT_DRAIN_S = 1.0
"""How long a dead process's last output may take to arrive (a child it left may hold
the pipe open)."""

PASSED_THROUGH = ("LANG", "LC_ALL", "LC_CTYPE", "TZ", "PITCH_LOG_LEVEL")
"""What a bot may inherit from the referee's environment: the locale and its log level.
Everything else (a database password in ``PITCH_DB``, say) stays with the referee."""


def bot_environment(env: Mapping[str, str], path: str, home: str, tmp: str) -> dict[str, str]:
    """A bot's whole environment: ``env`` (address, token...) plus an allow-list."""
    inherited = {key: os.environ[key] for key in PASSED_THROUGH if key in os.environ}
    grpc_io = {"GRPC_EXPERIMENTS": io_setting()}  # the referee's I/O path: see grpc_io
    return {**inherited, **grpc_io, "PATH": path, "HOME": home, "TMPDIR": tmp, **env}


class SeatControls:
    """What the referee can do to a running bot besides talking to it.

    The base class is for a plain process: no pausing, no CPU bill, and the kill reaches
    the bot's process group (which a bot can leave). The sandbox's controls reach
    everything the bot started.
    """

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process

    def pause(self) -> None:
        """Between decisions: the bot gets no CPU."""

    def resume(self) -> None:
        """Before a request: the bot may run."""

    def hold(self) -> None:
        """Between matches, while the bot is kept warm: it gets no CPU until ``unhold``."""

    def unhold(self) -> None:
        """The bot is lent to a match (or stopped): it may run again."""

    def cpu_seconds(self) -> float | None:
        """CPU used so far by the bot and its children (``None``: not measured)."""
        return None

    def death_note(self) -> str | None:
        """Why the bot died, when the referee's side knows (e.g. over its memory limit)."""
        return None

    def kill_all(self) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)

    async def release(self) -> None:
        """Free what was held for the bot, once it is dead (without blocking the loop,
        which plays the referee's other games meanwhile)."""


@dataclass
class Launched:
    process: asyncio.subprocess.Process
    controls: SeatControls
    output: int
    """The read end of the pipe the bot's stdout and stderr go to (non-blocking)."""


class Launcher(Protocol):
    """Starts a bot's process; the seam where the sandbox plugs in."""

    async def launch(self, manifest: BotManifest, env: Mapping[str, str]) -> Launched: ...


async def spawn(
    manifest: BotManifest,
    argv: list[str],
    cwd: Path | None,
    env: Mapping[str, str] | None = None,
) -> tuple[asyncio.subprocess.Process, int]:
    """Start ``argv`` in a new session, its stdout and stderr on a pipe of ours (not
    asyncio's: ``BotOutput`` reads it at once); returns the process and the pipe's read
    end, non-blocking.

    Raises:
        BotStartError: the command cannot be run.
    """
    output, into = os.pipe()
    try:
        os.set_blocking(output, False)
        process = await asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=into,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
        )
    except OSError as error:
        os.close(output)
        raise BotStartError(
            f"{manifest.name}: cannot run {' '.join(manifest.command)!r}: {error.strerror}"
        ) from None
    except BaseException:
        os.close(output)
        raise
    finally:
        os.close(into)  # the bot's copy is the only one: its end of the pipe ends with it
    return process, output


class LocalLauncher:
    """Runs the bot's command directly, in its folder, in a new process group: for bots
    the user trusts (no limits, the user's files and network)."""

    async def launch(self, manifest: BotManifest, env: Mapping[str, str]) -> Launched:
        home = os.environ.get("HOME", str(manifest.folder))
        full = bot_environment(env, os.environ.get("PATH", os.defpath), home, tempfile.gettempdir())
        process, output = await spawn(manifest, manifest.argv(), manifest.folder, full)
        return Launched(process, SeatControls(process), output)


@dataclass
class StartOptions:
    start_timeout_s: float = 10.0
    """How long a spawned bot has to connect and say hello."""
    log_cap_bytes: int = LOG_CAP_BYTES
    """What the bot's log file keeps at most, whatever it held before (``CappedLog``)."""


class BotProcess:
    """One running bot (spawned, or started by hand) and its connection."""

    def __init__(self, name: str, log_path: Path | None, log_name: str | None = None) -> None:
        self.name = name
        self.log_path = log_path
        """The file the bot's output goes to."""
        self.log_name = log_name or (str(log_path) if log_path else None)
        """How records and messages name that file: relative to the match folder where
        the bot plays in one (``Referee.log_base``), never a path of the server's disk."""
        self.connection: BotConnection | None = None
        self.process: asyncio.subprocess.Process | None = None
        self.controls: SeatControls | None = None
        self._log: CappedLog | None = None
        self._output: BotOutput | None = None
        self._watch_task: asyncio.Task[None] | None = None
        self.recent_output = bytearray()
        """The end of this process's output (``RECENT_OUTPUT_BYTES``), whatever the log kept."""
        self._closing: asyncio.Future[None] | None = None
        self.start_error: BotStartError | None = None
        """Set when the bot could not be started; it then plays no decision."""
        self.hello_mismatch: str | None = None
        """One line where the bot's Hello names it otherwise than its bot.toml (which wins)."""
        self.log_place: Callable[[], LogTag] | None = None
        """Where the bot's game stands, asked of its seat (``RemotePlayer.log_tag``) when
        the bot writes: its lines are indexed under that tag (``logindex``)."""
        self.deals_seen: set[str] = set()
        """The deals this process has played (a match's seed: ``Referee.deals``), so that
        a process kept warm never plays a deal it has seen (``warm.WarmBots``)."""

    @classmethod
    async def spawn(
        cls,
        manifest: BotManifest,
        service: RefereeService,
        address: str,
        log_path: Path,
        options: StartOptions,
        launcher: Launcher,
        log_name: str | None = None,
    ) -> BotProcess:
        """Start the bot and wait for its hello; ``log_name``: how messages name its log
        (default: ``log_path`` as given).

        Raises:
            BotStartError: the command failed, the bot exited, or no hello came in time;
                the process is gone when this is raised.
        """
        bot = cls(manifest.name, log_path, log_name)
        if missing := manifest.missing_packages():
            raise BotStartError(missing)
        token, hello = service.expect()
        try:
            env = {"PITCH_ADDRESS": address, "PITCH_TOKEN": token, "PYTHONUNBUFFERED": "1"}
            launched = await launcher.launch(manifest, env)
            bot.process, bot.controls = launched.process, launched.controls
            try:
                bot._log = CappedLog(log_path, options.log_cap_bytes)
            except BaseException:
                os.close(launched.output)
                raise
            bot._output = BotOutput(launched.output, bot._log, bot._tag, bot.recent_output)
            bot.connection = await bot._await_hello(hello, options.start_timeout_s)
            bot.hello_mismatch = manifest.hello_mismatch(
                bot.connection.name, bot.connection.version
            )
            bot.controls.pause()
        except BaseException:
            service.forget(token)
            await bot.close()
            raise
        bot._watch_task = asyncio.create_task(bot._watch_exit())
        return bot

    def _tag(self) -> LogTag | None:
        return self.log_place() if self.log_place is not None else None

    async def _await_hello(
        self, hello: asyncio.Future[BotConnection], limit_s: float
    ) -> BotConnection:
        assert self.process is not None
        exited = asyncio.ensure_future(self.process.wait())
        try:
            waited: set[asyncio.Future[Any]] = {hello, exited}  # a bot and a process result
            done, _ = await asyncio.wait(
                waited, timeout=limit_s, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            exited.cancel()
        if hello in done:
            return hello.result()
        hello.cancel()
        where = f"; see {self.log_name}" if self.log_name else ""
        if exited in done:
            raise BotStartError(
                f"{self.name} exited with status {self.process.returncode} before its hello{where}"
            )
        message = f"{self.name} sent no hello within {limit_s:g} s{where}"
        raise BotStartError(message, FaultKind.NO_HELLO)

    async def _watch_exit(self) -> None:
        """Notice a dead process at once, not at the next decision's timeout."""
        if self.process is None or self.connection is None:
            return
        status = await self.process.wait()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.connection.closed.wait(), 0.5)
        self.connection.lost(f"the bot's process exited with status {status}")

    def move_log(self, path: Path, name: str, cap: int) -> None:
        """Send the output that comes next to ``path`` (a later match's log: ``name`` is
        how its records name it), capped at ``cap``. What the process wrote before, the
        log of its last match keeps."""
        self.log_path, self.log_name = path, name
        if self._log is not None:
            self._log.move(path, cap)

    @classmethod
    def failed(
        cls, name: str, error: BotStartError, log_path: Path | None, log_name: str | None = None
    ) -> BotProcess:
        """A seat whose bot could not start: the game records the fault and moves on."""
        bot = cls(name, log_path, log_name)
        bot.start_error = error
        return bot

    async def has_exited(self, within_s: float) -> bool:
        """Whether the process ends within ``within_s`` (a bot started by hand never does).

        A bot paused between decisions is resumed first: paused, a dying one could not
        finish dying.
        """
        if self.process is None:
            return False
        if self.controls is not None:
            self.controls.resume()
        return await _exited(self.process, within_s)

    async def crash_note(self) -> str:
        """What the ended process died of: the referee's note (``death_note``) or its exit
        status, then the exception line its output ends with, when it has one."""
        assert self.process is not None and self.process.returncode is not None
        if self._output is not None:  # its last words may still be in the pipe
            await self._output.wait_closed(OUTPUT_DRAIN_S)
        status = f"the bot's process exited with status {self.process.returncode}"
        lines = [clip(line) for line in self.recent_output.decode(errors="replace").splitlines()]
        exception = exception_line(lines)
        note = self.death_note() or status
        return f"{note}: {exception}" if exception else note

    @property
    def alive(self) -> bool:
        connection_up = self.connection is not None and not self.connection.closed.is_set()
        return connection_up and (self.process is None or self.process.returncode is None)

    def send(self, message: pb.RefereeMessage | bytes) -> None:
        """Send ``message`` (or a ``RefereeMessage``'s bytes: ``framing``) to the bot."""
        if self.connection is not None:
            self.connection.send(message)

    async def ask(
        self, request: pb.DecisionRequest, timeout_s: float, *, encoded: bytes = b""
    ) -> tuple[pb.Answer, float]:
        """``BotConnection.ask``, with the bot running only while it is asked.

        Raises:
            BotError: as ``BotConnection.ask``.
        """
        if self.connection is None:
            raise BotTerminatedError("the bot is not connected")
        if self.controls is not None:
            self.controls.resume()
        try:
            return await self.connection.ask(request, timeout_s, encoded=encoded)
        finally:
            if self.controls is not None:
                self.controls.pause()

    def settle_log(self) -> None:
        """Take what the bot wrote before its answer into its log, under the tag in force
        (``log_place``): those bytes are in the pipe before the answer is sent, so one
        read now finds them (or finds the pipe empty), without waiting for the loop."""
        if self._output is not None:
            self._output.settle(SETTLE_READS)

    def cpu_seconds(self) -> float | None:
        """CPU used so far by the bot and everything it started, where it is measured."""
        return self.controls.cpu_seconds() if self.controls is not None else None

    def death_note(self) -> str | None:
        """Why the process died, when the referee knows more than its exit status."""
        return self.controls.death_note() if self.controls is not None else None

    async def close(self, reason: str = "the match is over") -> None:
        """Stop the bot: ask, wait, TERM its process group, then KILL everything it started.

        Idempotent. The stopping runs as a task of its own, which a cancelled caller (a
        game stopped mid-way) does not cut short: a later ``close`` waits for it to end.
        """
        if self._closing is None:
            self._closing = asyncio.ensure_future(self._stop(reason))
        await asyncio.shield(self._closing)

    async def _stop(self, reason: str) -> None:
        if self.controls is not None:
            self.controls.resume()  # a frozen bot could neither read the shutdown nor die
        if self.connection is not None:
            self.connection.send(pb.RefereeMessage(shutdown=pb.Shutdown(reason=reason)))
        process = self.process
        if process is None and self.connection is not None:  # started by hand: no process
            # to wait for, but its stream must carry the shutdown before the server stops
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.connection.closed.wait(), SHUTDOWN_GRACE_S)
        grace = SHUTDOWN_GRACE_S if self.connection else 0
        if process is not None and not await _exited(process, grace):
            _signal_group(process.pid, signal.SIGTERM)
            if not await _exited(process, TERM_GRACE_S):
                _signal_group(process.pid, signal.SIGKILL)
                await process.wait()
        if self.controls is not None:
            self.controls.kill_all()  # whatever the bot left behind
            await self.controls.release()
        if self.connection is not None:
            self.connection.lost("closed by the referee")
        if self._watch_task is not None:
            self._watch_task.cancel()
        if self._output is not None:
            await self._output.wait_closed(2.0)
            self._output.close()  # a child that outlived the kill may hold it open
        if process is not None:
            # Release its pipe now, while the event loop runs: a pipe still open when the
            # loop has closed is closed by the garbage collector, which then fails ("Event
            # loop is closed") into the match's stderr. Process has no public close.
            process._transport.close()  # type: ignore[attr-defined]


async def _exited(process: asyncio.subprocess.Process, within_s: float) -> bool:
    try:
        await asyncio.wait_for(process.wait(), within_s)
    except TimeoutError:
        return False
    return True


def _signal_group(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


class CappedLog:
    """A bot's log file and its index (``logindex``), which together keep at most ``cap``
    bytes, whatever they held before: the cap is the files', not the process's (a bot
    restarted after a fault, or a match resumed, appends to what its seat wrote before, and
    no more). A process kept warm for a later match moves to that match's files (``move``)."""

    def __init__(self, path: Path, cap: int) -> None:
        self._open(path, cap)

    def _open(self, path: Path, cap: int) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.file = path.open("ab")
        self.index = index_path(path)
        self.offset = self.file.tell()
        self.written = self.offset + (self.index.stat().st_size if self.index.exists() else 0)
        self.cap = cap
        self.indexed: LogTag | None = None
        self.line_start = True

    def move(self, path: Path, cap: int) -> None:
        """Write what comes next into ``path`` (and its index), capped at ``cap``."""
        self.file.close()
        self._open(path, cap)

    def write(self, chunk: bytes, tag: LogTag | None = None) -> None:
        """Keep ``chunk`` up to the cap, indexing where its first line under a new ``tag``
        starts; say so once in the file when the cap is reached."""
        if self.written >= self.cap:
            return
        kept = chunk[: self.cap - self.written]
        start = 0 if self.line_start else kept.find(b"\n") + 1 or len(kept)
        if tag is not None and tag != self.indexed and start < len(kept):
            entry = tag.entry(self.offset + start)
            with self.index.open("ab") as entries:  # opened only by a bot that logs in games
                entries.write(entry)
            self.written += len(entry)
            self.indexed = tag
            kept = kept[: max(0, self.cap - self.written)]
        self.file.write(kept)
        self.offset += len(kept)
        self.written += len(kept)
        self.line_start = kept.endswith(b"\n")
        if self.written >= self.cap:
            self.file.write(
                f"\n[pitch referee: log truncated at {self.cap} bytes; "
                "further output was discarded]\n".encode()
            )
        self.file.flush()


class BotOutput:
    """A bot's output pipe, read by the event loop as bytes come (no task of its own):
    each read goes into the log at once, under the tag in force (``tag()``), and
    ``recent`` keeps the last ``RECENT_OUTPUT_BYTES`` of it, whatever the log kept.
    Beyond the log's cap the output is still read, and dropped. ``settle`` takes what
    is in the pipe now: after an answer, what the bot wrote before it."""

    def __init__(
        self,
        fd: int,
        log: CappedLog,
        tag: Callable[[], LogTag | None],
        recent: bytearray,
    ) -> None:
        self.fd: int | None = fd
        self.log: CappedLog | None = log
        self.tag = tag
        self.recent = recent
        self._loop = asyncio.get_running_loop()
        self._closed: asyncio.Future[None] = self._loop.create_future()
        self._loop.add_reader(fd, self.take, 1)
        self._readable = select.poll()
        self._readable.register(fd, select.POLLIN)

    def settle(self, reads: int) -> None:
        """``take`` if the pipe holds anything now: asked after every answer, and mostly
        empty, where a read that finds nothing costs three times the look."""
        if self.fd is not None and self._readable.poll(0):
            self.take(reads)

    def take(self, reads: int) -> None:
        """Read the pipe until it is empty, at most ``reads`` times; close it at its end."""
        for _ in range(reads):
            if self.fd is None:
                return
            try:
                chunk = os.read(self.fd, READ_BYTES)
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            if not chunk:
                self.close()
                return
            self.recent += chunk
            del self.recent[:-RECENT_OUTPUT_BYTES]
            if self.log is not None:
                try:
                    self.log.write(chunk, self.tag())
                except OSError:  # a full disk, say: the rest is read and dropped, and
                    self.log.file.close()  # what fails for it is the record's write
                    self.log = None

    def close(self) -> None:
        """Stop reading and close the pipe and the log file. Idempotent."""
        if self.fd is None:
            return
        self._loop.remove_reader(self.fd)
        os.close(self.fd)
        self.fd = None
        if self.log is not None:
            self.log.file.close()
        self._closed.set_result(None)

    async def wait_closed(self, within_s: float) -> None:
        """Wait until every process holding the pipe's other end is gone (or ``within_s``)."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self._closed), within_s)
