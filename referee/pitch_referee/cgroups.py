"""One control group per bot process: its limits, its pause button, its CPU bill, its kill switch.

A bot process and everything it starts stay in the cgroup the referee put it in, however
they fork or detach (``setsid``, double forks), so the cgroup is the one handle on "this
bot" that a bot cannot escape. Through it the referee:

- limits memory (the kernel's OOM killer then ends the bot, never the referee) and the
  number of processes and threads (a fork bomb stops at the limit);
- freezes the bot between its decisions, so that it cannot take CPU on another seat's
  turn, and thaws it when it is asked;
- reads the CPU time the bot and its children used;
- kills every process in it when the seat is done.

Both kernel interfaces are supported, and the mix of the two that many machines have:
cgroup v2 (one unified hierarchy) and v1 (a hierarchy per controller). Memory and pids
come from whichever hierarchy offers them to the referee. Pausing uses v2's
``cgroup.freeze`` where the unified hierarchy is mounted (a frozen v2 process still dies
of SIGKILL); without it, SIGSTOP and SIGCONT to every process of the group. The v1
freezer is never used: a frozen v1 process cannot die, so a referee killed while its
bots were frozen would leave them frozen for ever. ``detect()`` returns ``None`` where
the referee cannot create groups (e.g. an unprivileged user without a delegated
subtree); the sandbox then falls back to rlimits, without pausing or CPU accounting.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import signal
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

_V1_CONTROLLERS = ("memory", "pids", "cpuacct")
REMOVE_WAIT_S = 2.0
"""How long ``Cgroup.remove`` retries a group folder that its killed processes still hold."""


@dataclass(frozen=True)
class CgroupLimits:
    memory_bytes: int
    processes: int


def detect() -> CgroupFactory | None:
    """The groups the referee can create here, or ``None``."""
    mounts = _cgroup_mounts()
    unified = _unified_parent(mounts)
    v2_controllers = _enable_v2_controllers(unified) if unified else set()
    v1 = {
        controller: parent
        for controller in _V1_CONTROLLERS
        if controller not in v2_controllers
        and (parent := _v1_parent(mounts, controller)) is not None
    }
    if not {"memory", "pids"} <= v2_controllers | set(v1):
        return None
    for parent in {*v1.values(), *([unified] if unified else [])}:
        _sweep(parent)
    return CgroupFactory(v1, unified, v2_controllers)


# --- shared helpers -------------------------------------------------------------------

_names = itertools.count()


def _new_name() -> str:
    """``pitch-<referee pid>-<n>``: the pid lets a later referee sweep up after a killed one."""
    return f"pitch-{os.getpid()}-{next(_names)}"


def _write(path: Path, value: str) -> None:
    path.write_text(value)


def _cgroup_mounts() -> list[tuple[str, Path, set[str]]]:
    """(filesystem type, mount point, mount options) of every cgroup mount."""
    mounts = []
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/mounts").read_text().splitlines():
            fields = line.split()
            if len(fields) >= 4 and fields[2] in ("cgroup", "cgroup2"):
                mounts.append((fields[2], Path(fields[1]), set(fields[3].split(","))))
    return mounts


def _own_path(controller: str | None) -> str:
    """This process's cgroup path in a v1 ``controller``'s hierarchy, or in v2 (``None``)."""
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        names = controllers.split(",") if controllers else []
        if (controller is None and not names) or controller in names:
            return path.lstrip("/")
    raise OSError(f"no {controller or 'v2'} cgroup for this process")


def _sweep(parent: Path) -> None:
    """Delete the empty groups that a killed referee left behind."""
    with contextlib.suppress(OSError):
        for entry in parent.glob("pitch-*-*"):
            pid = entry.name.split("-")[1]
            if pid.isdigit() and not Path(f"/proc/{pid}").exists():
                with contextlib.suppress(OSError):
                    entry.rmdir()


def _rmdir(path: Path) -> bool:
    """Delete the group folder ``path``; whether it is gone (not while processes hold it)."""
    try:
        path.rmdir()
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return True


async def _remove_dirs(paths: Iterable[Path]) -> None:
    """rmdir, retrying while the killed processes are still being reaped: asleep between
    tries, so that the referee's other games go on meanwhile (a group can take a while,
    and after ``REMOVE_WAIT_S`` is left for a later referee's sweep)."""
    deadline = time.monotonic() + REMOVE_WAIT_S
    for path in paths:
        while not _rmdir(path) and time.monotonic() < deadline:
            await asyncio.sleep(0.01)


def _usable(directory: Path) -> bool:
    """Whether we may create groups in ``directory`` (create and remove a probe)."""
    probe = directory / f"{_new_name()}-probe"
    try:
        probe.mkdir()
        probe.rmdir()
    except OSError:
        return False
    return True


# --- where the groups go ---------------------------------------------------------------


def _unified_parent(mounts: list[tuple[str, Path, set[str]]]) -> Path | None:
    """Our own group in the v2 hierarchy, if we may create groups under it."""
    for kind, mount, _ in mounts:
        if kind == "cgroup2":
            try:
                parent = mount / _own_path(None)
            except OSError:
                return None
            return parent if _usable(parent) else None
    return None


def _enable_v2_controllers(parent: Path) -> set[str]:
    """Enable memory, pids and cpu for the groups under ``parent``; those that took."""
    try:
        available = set((parent / "cgroup.controllers").read_text().split())
    except OSError:
        return set()
    wanted = available & {"memory", "pids", "cpu"}
    if wanted:
        try:
            _write(parent / "cgroup.subtree_control", " ".join(f"+{c}" for c in sorted(wanted)))
        except OSError:  # our group holds processes: v2 allows controllers only below
            return set()  # leaves, and moving the referee itself is not ours to do
    return wanted


def _v1_parent(mounts: list[tuple[str, Path, set[str]]], controller: str) -> Path | None:
    mount = next((m for kind, m, opts in mounts if kind == "cgroup" and controller in opts), None)
    if mount is None:
        return None
    try:
        parent = mount / _own_path(controller)
    except OSError:
        return None
    return parent if _usable(parent) else None


# --- one bot's groups -------------------------------------------------------------------


class CgroupFactory:
    """Creates a bot's groups: in the v1 hierarchies, the v2 one, or both."""

    def __init__(self, v1: dict[str, Path], unified: Path | None, v2_controllers: set[str]):
        self.v1 = v1
        self.unified = unified
        self.v2_controllers = v2_controllers

    @property
    def description(self) -> str:
        parts = [f"v1 {', '.join(sorted(self.v1))}"] if self.v1 else []
        if self.unified is not None:
            parts.append(f"v2 {', '.join(sorted(self.v2_controllers)) or 'freeze'}")
        return " + ".join(parts)

    def create(self, limits: CgroupLimits) -> Cgroup:
        name = _new_name()
        group = Cgroup(
            {controller: parent / name for controller, parent in self.v1.items()},
            self.unified / name if self.unified else None,
        )
        try:
            for path in group.folders():
                path.mkdir(exist_ok=True)  # v1 controllers mounted together share a folder
            self._limit(group, "memory", limits.memory_bytes)
            self._limit(group, "pids", limits.processes)
        except BaseException:
            for path in group.folders():  # no process has joined it: empty, so removable
                _rmdir(path)
            raise
        return group

    def _limit(self, group: Cgroup, controller: str, value: int) -> None:
        if controller in self.v2_controllers and group.v2 is not None:
            file = {"memory": "memory.max", "pids": "pids.max"}[controller]
            _write(group.v2 / file, str(value))
            if controller == "memory":
                with contextlib.suppress(OSError):  # no swap: the file may be missing
                    _write(group.v2 / "memory.swap.max", "0")
            return
        folder = group.v1[controller]
        if controller == "pids":
            _write(folder / "pids.max", str(value))
            return
        _write(folder / "memory.limit_in_bytes", str(value))
        with contextlib.suppress(OSError):  # present only with swap accounting
            _write(folder / "memory.memsw.limit_in_bytes", str(value))


class Cgroup:
    """One bot's control group (a folder per hierarchy it lives in)."""

    def __init__(self, v1: dict[str, Path], v2: Path | None) -> None:
        self.v1 = v1
        self.v2 = v2
        self._cpu_in_v1 = "cpuacct" in v1
        self._cpu_file = v1["cpuacct"] / "cpuacct.usage" if self._cpu_in_v1 else None
        if self._cpu_file is None and v2 is not None:
            self._cpu_file = v2 / "cpu.stat"
        self._cpu_fd: int | None = None
        self._freeze_fd: int | None = None
        """The files read or written at every decision, kept open: opening one (and
        building its path) costs several times the read or write (``bench/RESULTS.md``)."""

    def folders(self) -> list[Path]:
        return list(dict.fromkeys([*self.v1.values(), *([self.v2] if self.v2 else [])]))

    def procs_files(self) -> list[Path]:
        """The files a process writes its pid to, to join the group in every hierarchy."""
        return [folder / "cgroup.procs" for folder in self.folders()]

    def freeze(self) -> None:
        """Between decisions: no process of the group runs until ``thaw``."""
        if self.v2 is not None:
            self._set_frozen(b"1")
        else:
            self._signal_all(signal.SIGSTOP)

    def thaw(self) -> None:
        if self.v2 is not None:
            self._set_frozen(b"0")
        else:
            self._signal_all(signal.SIGCONT)

    def _set_frozen(self, value: bytes) -> None:
        if self._freeze_fd is None:
            assert self.v2 is not None
            self._freeze_fd = os.open(self.v2 / "cgroup.freeze", os.O_WRONLY)
        os.write(self._freeze_fd, value)

    def cpu_seconds(self) -> float:
        """CPU time used by every process that ever ran in the group (read twice a
        decision, so one ``pread`` of a file kept open).

        Raises:
            OSError: the group is gone.
        """
        if self._cpu_fd is None:
            if self._cpu_file is None:
                raise OSError("no CPU accounting for this group")
            self._cpu_fd = os.open(self._cpu_file, os.O_RDONLY)
        data = os.pread(self._cpu_fd, 4096, 0)
        if self._cpu_in_v1:
            return int(data) / 1e9
        return _value(data.decode(), "usage_usec") / 1e6

    def out_of_memory(self) -> bool:
        """Whether the kernel's OOM killer has killed a process of the group."""
        with contextlib.suppress(OSError, ValueError):
            if "memory" in self.v1:
                return _stat(self.v1["memory"] / "memory.oom_control", "oom_kill") > 0
            if self.v2 is not None:
                return _stat(self.v2 / "memory.events", "oom_kill") > 0
        return False

    def kill_all(self) -> None:
        """SIGKILL every process in the group, paused or not."""
        if self.v2 is not None:
            with contextlib.suppress(OSError):  # cgroup.kill: Linux 5.14 and later
                _write(self.v2 / "cgroup.kill", "1")
                return
        self._signal_all(signal.SIGSTOP)  # stopped processes cannot fork while we kill
        self._signal_all(signal.SIGKILL)

    async def remove(self) -> None:
        """Kill what is left and delete the group's folders. Idempotent."""
        for descriptor in (self._cpu_fd, self._freeze_fd):
            if descriptor is not None:
                os.close(descriptor)
        self._cpu_fd = self._freeze_fd = None
        if any(folder.exists() for folder in self.folders()):
            self.kill_all()
            await _remove_dirs(self.folders())

    def _signal_all(self, sig: signal.Signals) -> None:
        """Signal every process, again until no new one appears (a fork during the pass
        would otherwise escape it)."""
        done: set[int] = set()
        for _ in range(100):
            pids = self._pids() - done
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, sig)
            done |= pids

    def _pids(self) -> set[int]:
        with contextlib.suppress(OSError):
            return {int(pid) for pid in self.procs_files()[0].read_text().split()}
        return set()


def _stat(path: Path, key: str) -> int:
    """A value from a flat-keyed cgroup file (``key value`` lines)."""
    return _value(path.read_text(), key)


def _value(text: str, key: str) -> int:
    """The value of ``key`` in a flat-keyed cgroup file's ``text`` (0 if absent)."""
    for line in text.splitlines():
        name, value = line.split()
        if name == key:
            return int(value)
    return 0
