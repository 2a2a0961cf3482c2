"""The sandbox every untrusted bot process runs in: bubblewrap namespaces plus a cgroup.

A sandboxed bot, and everything it starts:

- lives in its own PID, network, IPC, UTS and mount namespaces: it sees no other process
  (so it can neither signal nor read the referee, its partner or the opponents), and has
  no network at all, not even loopback; its one channel is the referee's Unix socket,
  bound in at ``/run/pitch/referee.sock``;
- sees the system read-only (``/usr``, ``/etc``, the Python environment that holds
  ``pitch_sdk``, Node if installed), its own folder read-only at ``/bot`` (its working
  folder), and a private size-limited ``/tmp`` (also ``$HOME``) that is gone when it exits;
  no ladder, database, record, other bot's folder or home folder;
- runs as an unprivileged user: with the referee running as root, bubblewrap sets up the
  namespaces and then drops to ``nobody`` with no capabilities (a user namespace made by
  root would map the bot back to root outside); otherwise inside a user namespace, as the
  referee's own user, which the namespaces above keep away from everything else;
- gets the environment ``process.bot_environment`` builds, never the referee's;
- is limited in memory, processes and open files, frozen between its decisions, and
  killed with everything it started when its seat is done (``cgroups.py``; where no cgroup
  can be had, memory is capped per process with ``RLIMIT_DATA`` and there is no pausing
  or CPU accounting).

``SandboxLauncher`` is a ``process.Launcher``: the referee uses it where it would start a
bot directly, and nothing else changes for the bot or the referee.
"""

from __future__ import annotations

import asyncio
import enum
import functools
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import pitch_sdk

from . import cgroups
from .errors import BotStartError
from .manifest import BotManifest
from .process import Launched, SeatControls, bot_environment, spawn

SOCKET_IN_SANDBOX = "/run/pitch/referee.sock"
BOT_FOLDER_IN_SANDBOX = "/bot"
SCRATCH = "/tmp"
NOBODY = 65534
IDLE_CPU_ALLOWANCE_S = 0.002
"""CPU a bot may use between two of its decisions before it is frozen between them."""
INSTALL_HINT = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap)"


class SandboxMode(enum.StrEnum):
    ON = "on"
    """Sandbox every bot, or refuse to start when the machine cannot."""
    OFF = "off"
    """Run bots as plain processes: for bots you trust (your own)."""
    AUTO = "auto"
    """On when the machine can, else off with a warning."""


@dataclass(frozen=True)
class SandboxLimits:
    memory_mb: int = 1024
    """Memory of the bot and all its processes together (and its scratch files)."""
    processes: int = 64
    """Processes and threads together."""
    open_files: int = 256
    """Per process."""
    scratch_mb: int = 64
    """The private ``/tmp``."""

    def __post_init__(self) -> None:
        if min(self.memory_mb, self.processes, self.open_files, self.scratch_mb) < 1:
            raise ValueError("sandbox limits must be positive")


class SandboxUnavailableError(RuntimeError):
    """The machine cannot sandbox bots; the message says why and what to install."""


@functools.cache
def unavailable_reason() -> str | None:
    """Why bots cannot be sandboxed here (``None``: they can). Tried once per process."""
    if not sys.platform.startswith("linux"):
        return f"the sandbox needs Linux (this is {sys.platform})"
    if shutil.which("bwrap") is None:
        return f"bubblewrap (bwrap) is not installed: {INSTALL_HINT}"
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        return "setpriv (util-linux) is missing: the sandbox needs it to drop root"
    probe = [*_namespace_arguments(), "--ro-bind", "/", "/", "--", "true"]
    try:
        subprocess.run(probe, capture_output=True, timeout=10, check=True)
    except (OSError, subprocess.SubprocessError) as error:
        detail = getattr(error, "stderr", b"") or b""
        first = detail.decode(errors="replace").strip().splitlines()[:1]
        return (
            "bubblewrap cannot create namespaces here"
            + (f" ({first[0]})" if first else "")
            + ": the kernel may forbid unprivileged user namespaces"
        )
    return None


def resolve(mode: SandboxMode, warn: Callable[[str], None]) -> bool:
    """Whether to sandbox, for ``mode`` on this machine.

    Raises:
        SandboxUnavailableError: ``mode`` is on and the machine cannot sandbox.
    """
    if mode is SandboxMode.OFF:
        return False
    reason = unavailable_reason()
    if reason is None:
        return True
    if mode is SandboxMode.ON:
        raise SandboxUnavailableError(f"cannot sandbox bots: {reason}")
    warn(f"warning: bots run without a sandbox: {reason}")
    return False


class SandboxLauncher:
    """Starts each bot in its own sandbox (see the module docstring)."""

    def __init__(self, limits: SandboxLimits | None = None) -> None:
        self.limits = limits or SandboxLimits()
        self.cgroups = cgroups.detect()
        self._runtime = _runtime_binds()

    async def launch(self, manifest: BotManifest, env: Mapping[str, str]) -> Launched:
        address = env["PITCH_ADDRESS"]
        if not address.startswith("unix:"):
            raise BotStartError(
                f"{manifest.name}: a sandboxed bot can reach the referee only on a Unix socket"
            )
        socket = address.removeprefix("unix:").removeprefix("//")
        inner = {**env, "PITCH_ADDRESS": f"unix:{SOCKET_IN_SANDBOX}"}
        group = self.cgroups.create(self._cgroup_limits()) if self.cgroups else None
        argv = self._command(
            manifest, socket, bot_environment(inner, self._path(), SCRATCH, SCRATCH)
        )
        try:
            process, output = await spawn(manifest, [*self._enter(group), *argv], None)
        except BaseException:
            if group is not None:
                await group.remove()
            raise
        return Launched(process, _SandboxControls(process, group, self.limits), output)

    def _cgroup_limits(self) -> cgroups.CgroupLimits:
        memory = (self.limits.memory_mb + self.limits.scratch_mb) * 1024 * 1024
        return cgroups.CgroupLimits(memory_bytes=memory, processes=self.limits.processes)

    @staticmethod
    def _path() -> str:
        """The referee's interpreter first, so that ``python`` means what it means outside."""
        entries = [str(Path(sys.executable).parent), *os.environ.get("PATH", "").split(":")]
        return ":".join(dict.fromkeys(entry for entry in entries if entry))

    def _command(self, manifest: BotManifest, socket: str, env: Mapping[str, str]) -> list[str]:
        scratch_bytes = self.limits.scratch_mb * 1024 * 1024
        argv = [*_namespace_arguments(), "--hostname", "pitch-bot"]
        argv += _system_binds()
        argv += ["--proc", "/proc", "--dev", "/dev"]
        # The scratch first: the runtime may live under /tmp too (a clone there), and a
        # later mount would hide it.
        argv += ["--size", str(scratch_bytes), "--tmpfs", SCRATCH, "--chmod", "1777", SCRATCH]
        argv += _directories_for([*self._runtime, "/run/pitch/x"])
        for path in self._runtime:
            argv += ["--ro-bind", path, path]
        argv += ["--ro-bind", str(manifest.folder), BOT_FOLDER_IN_SANDBOX]
        argv += ["--bind", socket, SOCKET_IN_SANDBOX, "--chdir", BOT_FOLDER_IN_SANDBOX]
        argv += ["--clearenv"]
        for key, value in env.items():
            argv += ["--setenv", key, value]
        argv.append("--")
        if os.geteuid() == 0:
            argv += [
                "setpriv",
                f"--reuid={NOBODY}",
                f"--regid={NOBODY}",
                "--clear-groups",
                "--inh-caps=-all",
                "--bounding-set=-all",
                "--",
            ]
        return argv + manifest.argv()

    def _enter(self, group: cgroups.Cgroup | None) -> list[str]:
        """A shell prefix that joins the cgroup and sets the rlimits, then runs bwrap.

        (Done by a shell rather than a ``preexec_fn``, which would make Python fork the
        referee, gRPC threads and all, instead of using vfork.)
        """
        steps = (
            [f"echo $$ > {shlex.quote(str(path))}" for path in group.procs_files()] if group else []
        )
        steps += [f"ulimit -n {self.limits.open_files}", "ulimit -c 0"]
        if group is None:  # no cgroup: a per-process cap is the best there is
            steps.append(f"ulimit -d {self.limits.memory_mb * 1024}")
        return ["/bin/sh", "-c", " && ".join([*steps, 'exec "$@"']), "pitch-sandbox"]


class _SandboxControls(SeatControls):
    def __init__(
        self,
        process: asyncio.subprocess.Process,
        group: cgroups.Cgroup | None,
        limits: SandboxLimits,
    ) -> None:
        super().__init__(process)
        self.group = group
        self.limits = limits
        self.frozen_between_decisions = False
        self._cpu_at_pause: float | None = None

    def pause(self) -> None:
        """Freeze a bot that has shown it works between its decisions; watch the others.

        Freezing costs every decision about a tenth of a game's speed (``bench/sandbox.py``),
        because each of the bot's threads must be woken to freeze and again to thaw. An
        honest bot sleeps between decisions anyway, so it is only watched: its CPU is
        read here and again at the next request, and one that used more than
        ``IDLE_CPU_ALLOWANCE_S`` in between is frozen between its decisions from then
        on. A burner thus gets at most one window of another seat's turn.
        """
        if self.group is None:
            return
        if self.frozen_between_decisions:
            self.group.freeze()
        else:
            self._cpu_at_pause = self.cpu_seconds()

    def resume(self) -> None:
        if self.group is None:
            return
        if self.frozen_between_decisions:
            self.group.thaw()
            return
        now, before = self.cpu_seconds(), self._cpu_at_pause
        if now is not None and before is not None and now - before > IDLE_CPU_ALLOWANCE_S:
            self.frozen_between_decisions = True

    def hold(self) -> None:
        if self.group is not None:
            self.group.freeze()

    def unhold(self) -> None:
        if self.group is not None:
            self.group.thaw()

    def cpu_seconds(self) -> float | None:
        if self.group is None:
            return None
        try:
            return self.group.cpu_seconds()
        except OSError:  # the group is gone: the seat was released
            return None

    def death_note(self) -> str | None:
        if self.group is not None and self.group.out_of_memory():
            return f"killed by the kernel: over its memory limit ({self.limits.memory_mb} MB)"
        return None

    def kill_all(self) -> None:
        super().kill_all()
        if self.group is not None:
            self.group.kill_all()

    async def release(self) -> None:
        if self.group is not None:
            await self.group.remove()


def _namespace_arguments() -> list[str]:
    """bwrap's namespaces; as root, the capabilities setpriv needs to drop to nobody."""
    common = [
        "bwrap",
        "--unshare-pid",
        "--unshare-net",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--die-with-parent",
        "--new-session",
    ]
    if os.geteuid() == 0:
        return [*common, "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    return [*common, "--unshare-user"]


def _system_binds() -> list[str]:
    """``/usr`` and ``/etc`` read-only, and the top-level links or folders into ``/usr``."""
    argv = ["--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc"]
    for name in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        path = Path(name)
        if path.is_symlink():
            argv += ["--symlink", os.readlink(path), name]
        elif path.is_dir():
            argv += ["--ro-bind", name, name]
    return argv


def _runtime_binds() -> list[str]:
    """Folders outside /usr that the bots' runtimes need: Python with pitch_sdk, Node."""
    candidates = [
        sys.base_prefix,
        sys.prefix,
        str(Path(sys.executable).resolve().parents[1]),
        str(Path(pitch_sdk.__file__).resolve().parents[1]),  # an editable install's source
    ]
    node = shutil.which("node")
    if node is not None:
        candidates.append(str(Path(node).resolve().parents[1]))
    chosen: list[str] = []
    for path in sorted({os.path.realpath(p) for p in candidates}, key=len):
        inside_system = path == "/usr" or path.startswith(("/usr/", "/etc/"))
        if not inside_system and not any(_within(path, parent) for parent in chosen):
            chosen.append(path)
    return chosen


def _within(path: str, parent: str) -> bool:
    return path == parent or path.startswith(parent.rstrip("/") + "/")


def _directories_for(paths: list[str]) -> list[str]:
    """Create the parents of the bind targets world-readable, so that ``nobody`` can pass.

    (bwrap would otherwise create them with its own umask, closed to other users.)
    """
    parents = {
        str(parent) for path in paths for parent in Path(path).parents if parent != Path("/")
    }
    argv = []
    for parent in sorted(parents, key=lambda p: (p.count("/"), p)):
        if parent != SCRATCH and not any(_within(parent, system) for system in ("/usr", "/etc")):
            argv += ["--perms", "0755", "--dir", parent]
    return argv
