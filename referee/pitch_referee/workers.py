"""How a worker process (of a match, or of the ladder's pool) sets itself up.

It dies with its parent, so that a killed ``pitch match`` or ``pitch ladder run`` leaves
nothing playing into its folders. And it may be pinned, with its referee and the bots it
starts, to one core.

Why pin: a game is a chain of round trips between five processes, and only one of them
works at a time. Left to the kernel, two such chains share two cores badly: a woken bot
is often queued behind the referee that woke it while the other core idles. Pinned, each
worker's chain owns a core and the cores stay busy: on two cores, two pinned workers play
about 1.65 times the games of one, against 1.2 times unpinned (``bench/RESULTS.md``).
fastchess offers the same as ``-use-affinity``. Bots inherit the pin because child
processes inherit their parent's CPU affinity.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys


def usable_cores() -> list[int]:
    """The cores this process may run on (all of them where the OS cannot say)."""
    if hasattr(os, "sched_getaffinity"):
        return sorted(os.sched_getaffinity(0))
    return list(range(os.cpu_count() or 1))


def pin_to_core(index: int, cores: list[int] | None = None) -> None:
    """Run this process, and the processes it starts, on core ``index`` (round robin).

    ``cores`` are the cores to choose from, as the parent saw them (default: this
    process's). Does nothing where the OS has no CPU affinity (macOS, Windows).
    """
    if not hasattr(os, "sched_setaffinity"):
        return
    cores = cores or usable_cores()
    os.sched_setaffinity(0, {cores[index % len(cores)]})


def leave_interrupts_to_parent() -> None:
    """Ignore Ctrl-C (SIGINT) in this worker: a terminal sends it to the whole process
    group, and the parent stops its workers itself, between or in the middle of games,
    so that it can say what was kept and how to go on."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def die_with_parent(parent: int) -> None:
    """Have the kernel kill this process when ``parent`` exits (Linux; elsewhere nothing)."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        if os.getppid() != parent:  # the parent died before the line above
            os._exit(1)
