"""Worker processes: pinned round robin to the cores (bots inherit it); dying with the parent."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from pitch_referee.workers import usable_cores

needs_two_cores = pytest.mark.skipif(
    not hasattr(os, "sched_setaffinity") or len(usable_cores()) < 2,
    reason="needs CPU affinity and two usable cores",
)


@needs_two_cores
def test_pin_to_core_goes_round_robin_and_the_processes_it_starts_inherit_the_pin():
    cores = usable_cores()[:2]
    script = textwrap.dedent(f"""
        import os, subprocess, sys
        from pitch_referee.workers import pin_to_core
        pin_to_core(3, {cores!r})
        print(sorted(os.sched_getaffinity(0)), flush=True)
        child = "import os; print(sorted(os.sched_getaffinity(0)))"
        subprocess.run([sys.executable, "-c", child], check=True)
    """)
    output = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    assert output.split("\n")[:2] == [str([cores[1]])] * 2


def test_usable_cores_are_the_cores_this_process_may_run_on():
    cores = usable_cores()
    assert cores and cores == sorted(set(cores))
    if hasattr(os, "sched_getaffinity"):
        assert set(cores) == os.sched_getaffinity(0)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_worker_dies_with_its_parent_even_when_the_parent_is_killed(tmp_path):
    pid_file = tmp_path / "worker.pid"
    worker = textwrap.dedent(f"""
        import os, sys, time
        from pitch_referee.workers import die_with_parent
        die_with_parent(int(sys.argv[1]))
        open({str(pid_file)!r}, "w").write(str(os.getpid()))
        time.sleep(60)
    """)
    parent = textwrap.dedent(f"""
        import os, subprocess, sys, time
        subprocess.Popen([sys.executable, "-c", {worker!r}, str(os.getpid())])
        time.sleep(60)
    """)
    process = subprocess.Popen([sys.executable, "-c", parent])
    deadline = time.monotonic() + 30
    while not pid_file.exists() or not pid_file.read_text():
        assert time.monotonic() < deadline, "the worker never started"
        time.sleep(0.02)
    worker_pid = int(pid_file.read_text())
    process.kill()
    process.wait()
    deadline = time.monotonic() + 10
    while _alive(worker_pid):
        assert time.monotonic() < deadline, "the worker outlived its parent"
        time.sleep(0.02)


def _alive(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie left for init to reap counts as dead)."""
    try:
        status = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return status[status.rindex(")") + 2] != "Z"
