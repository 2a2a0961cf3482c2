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

Both kernel interfaces are supported: cgroup v2 (one unified hierarchy, where memory and
pids must be enabled for the referee's subtree) and v1 (a hierarchy per controller: memory,
pids, freezer, cpuacct). ``CgroupFactory.detect()`` picks the one this machine can give
the referee, or returns ``None`` (e.g. for an unprivileged user on a v1 machine); the
sandbox then falls back to rlimits, without pausing or CPU accounting.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

_V1_CONTROLLERS = ("memory", "pids", "freezer", "cpuacct")


@dataclass(frozen=True)
class CgroupLimits:
    memory_bytes: int
    processes: int


class Cgroup(Protocol):
    """One bot's control group."""

    def procs_files(self) -> list[Path]:
        """The files a process writes its pid to, to join the group (all hierarchies)."""
        ...

    def freeze(self) -> None: ...

    def thaw(self) -> None: ...

    def cpu_seconds(self) -> float:
        """CPU time used by every process that ever ran in the group."""
        ...

    def out_of_memory(self) -> bool:
        """Whether the kernel's OOM killer has killed a process of the group."""
        ...

    def kill_all(self) -> None:
        """SIGKILL every process in the group, frozen or not."""
        ...

    def remove(self) -> None:
        """Kill what is left and delete the group. Idempotent."""
        ...


class CgroupFactory(Protocol):
    version: int

    def create(self, limits: CgroupLimits) -> Cgroup: ...


def detect() -> CgroupFactory | None:
    """The cgroup interface the referee can use here, or ``None``."""
    mounts = _cgroup_mounts()
    for factory in (_V2Factory.find(mounts), _V1Factory.find(mounts)):
        if factory is not None:
            return factory
    return None


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


def _kill_each(procs: Iterable[Path]) -> None:
    for procs_file in procs:
        with contextlib.suppress(OSError):
            for pid in procs_file.read_text().split():
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(int(pid), signal.SIGKILL)


def _remove_dirs(paths: Iterable[Path]) -> None:
    """rmdir, retrying while the killed processes are still being reaped."""
    deadline = time.monotonic() + 2.0
    for path in paths:
        while path.exists():
            try:
                path.rmdir()
            except FileNotFoundError:
                break
            except OSError:
                if time.monotonic() > deadline:
                    break
                time.sleep(0.01)


def _usable(directory: Path) -> bool:
    """Whether we may create groups in ``directory`` (create and remove a probe)."""
    probe = directory / f"{_new_name()}-probe"
    try:
        probe.mkdir()
        probe.rmdir()
    except OSError:
        return False
    return True


# --- cgroup v2 ------------------------------------------------------------------------


class _V2Factory:
    version = 2

    def __init__(self, parent: Path) -> None:
        self.parent = parent

    @classmethod
    def find(cls, mounts: list[tuple[str, Path, set[str]]]) -> _V2Factory | None:
        """Our own v2 group, if memory and pids can be enabled for groups under it."""
        for kind, mount, _ in mounts:
            if kind != "cgroup2":
                continue
            try:
                parent = mount / _own_path(None)
                available = set((parent / "cgroup.controllers").read_text().split())
            except OSError:
                return None
            if not {"memory", "pids"} <= available or not _usable(parent):
                return None
            try:
                _write(parent / "cgroup.subtree_control", "+memory +pids +cpu")
            except OSError:  # our group holds processes: v2 allows controllers only below
                return None  # leaves, and moving the referee itself is not ours to do
            _sweep(parent)
            return cls(parent)
        return None

    def create(self, limits: CgroupLimits) -> Cgroup:
        path = self.parent / _new_name()
        path.mkdir()
        _write(path / "memory.max", str(limits.memory_bytes))
        with contextlib.suppress(OSError):  # no swap configured: the file may be missing
            _write(path / "memory.swap.max", "0")
        _write(path / "pids.max", str(limits.processes))
        return _V2Cgroup(path)


class _V2Cgroup:
    def __init__(self, path: Path) -> None:
        self.path = path

    def procs_files(self) -> list[Path]:
        return [self.path / "cgroup.procs"]

    def freeze(self) -> None:
        _write(self.path / "cgroup.freeze", "1")

    def thaw(self) -> None:
        _write(self.path / "cgroup.freeze", "0")

    def cpu_seconds(self) -> float:
        for line in (self.path / "cpu.stat").read_text().splitlines():
            key, value = line.split()
            if key == "usage_usec":
                return int(value) / 1e6
        return 0.0

    def out_of_memory(self) -> bool:
        with contextlib.suppress(OSError):
            for line in (self.path / "memory.events").read_text().splitlines():
                key, value = line.split()
                if key == "oom_kill":
                    return int(value) > 0
        return False

    def kill_all(self) -> None:
        try:
            _write(self.path / "cgroup.kill", "1")
        except OSError:  # before Linux 5.14
            self.freeze()
            _kill_each(self.procs_files())
            self.thaw()

    def remove(self) -> None:
        if self.path.exists():
            self.kill_all()
            _remove_dirs([self.path])


# --- cgroup v1 ------------------------------------------------------------------------


class _V1Factory:
    version = 1

    def __init__(self, parents: dict[str, Path]) -> None:
        self.parents = parents

    @classmethod
    def find(cls, mounts: list[tuple[str, Path, set[str]]]) -> _V1Factory | None:
        """Our own group in each of the four v1 hierarchies, if we may create groups there."""
        parents = {}
        for controller in _V1_CONTROLLERS:
            mount = next(
                (m for kind, m, opts in mounts if kind == "cgroup" and controller in opts), None
            )
            if mount is None:
                return None
            try:
                parents[controller] = mount / _own_path(controller)
            except OSError:
                return None
            if not _usable(parents[controller]):
                return None
        for parent in set(parents.values()):
            _sweep(parent)
        return cls(parents)

    def create(self, limits: CgroupLimits) -> Cgroup:
        name = _new_name()
        paths = {controller: parent / name for controller, parent in self.parents.items()}
        group = _V1Cgroup(paths)
        try:
            for path in paths.values():
                path.mkdir(exist_ok=True)  # controllers mounted together share a folder
            _write(paths["memory"] / "memory.limit_in_bytes", str(limits.memory_bytes))
            with contextlib.suppress(OSError):  # present only with swap accounting
                _write(paths["memory"] / "memory.memsw.limit_in_bytes", str(limits.memory_bytes))
            _write(paths["pids"] / "pids.max", str(limits.processes))
        except BaseException:
            group.remove()
            raise
        return group


class _V1Cgroup:
    def __init__(self, paths: dict[str, Path]) -> None:
        self.paths = paths

    def procs_files(self) -> list[Path]:
        return [path / "cgroup.procs" for path in dict.fromkeys(self.paths.values())]

    def freeze(self) -> None:
        _write(self.paths["freezer"] / "freezer.state", "FROZEN")

    def thaw(self) -> None:
        _write(self.paths["freezer"] / "freezer.state", "THAWED")

    def cpu_seconds(self) -> float:
        return int((self.paths["cpuacct"] / "cpuacct.usage").read_text()) / 1e9

    def out_of_memory(self) -> bool:
        with contextlib.suppress(OSError):
            for line in (self.paths["memory"] / "memory.oom_control").read_text().splitlines():
                key, value = line.split()
                if key == "oom_kill":
                    return int(value) > 0
        return False

    def kill_all(self) -> None:
        # Frozen first, so that nothing forks between reading the list and the kill.
        with contextlib.suppress(OSError):
            self.freeze()
        _kill_each([self.paths["freezer"] / "cgroup.procs"])
        with contextlib.suppress(OSError):
            self.thaw()  # a frozen process cannot die

    def remove(self) -> None:
        if any(path.exists() for path in self.paths.values()):
            self.kill_all()
            _remove_dirs(dict.fromkeys(self.paths.values()))
