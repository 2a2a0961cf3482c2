"""Pinning a worker to a core: round robin over the usable cores, inherited by its bots."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from pitch_referee.affinity import usable_cores

needs_two_cores = pytest.mark.skipif(
    not hasattr(os, "sched_setaffinity") or len(usable_cores()) < 2,
    reason="needs CPU affinity and two usable cores",
)


@needs_two_cores
def test_pin_to_core_goes_round_robin_and_the_processes_it_starts_inherit_the_pin():
    cores = usable_cores()[:2]
    script = textwrap.dedent(f"""
        import os, subprocess, sys
        from pitch_referee.affinity import pin_to_core
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
