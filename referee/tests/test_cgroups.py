"""A bot's cgroup as the referee reads it at every decision: its CPU bill and its pause.

These run against the machine's real cgroups (as root or in a delegated subtree): the
accounting is read from files kept open, so the tests check that what those reads say
follows what the group's processes do, in each hierarchy the group lives in.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import time

import pytest

from pitch_referee import cgroups

pytestmark = pytest.mark.xdist_group("sandbox")

BURN = "import time\nend = time.process_time() + 0.2\nwhile time.process_time() < end: pass\n"


@pytest.fixture
def group():
    factory = cgroups.detect()
    if factory is None:
        if os.environ.get("PITCH_REQUIRE_SANDBOX"):
            pytest.fail("the cgroup tests must run here: the referee cannot create cgroups")
        pytest.skip("the referee cannot create cgroups here")
    made = factory.create(cgroups.CgroupLimits(memory_bytes=256 << 20, processes=16))
    yield made
    asyncio.run(made.remove())


def run_in(group: cgroups.Cgroup, code: str) -> None:
    """Run ``code`` in a Python process that joined ``group`` first, to its end."""
    joins = " && ".join(f"echo $$ > {procs}" for procs in group.procs_files())
    subprocess.run(["/bin/sh", "-c", f'{joins} && exec "$0" -c "$1"', "python3", code], check=True)


def hierarchies(group: cgroups.Cgroup) -> list[cgroups.Cgroup]:
    """The group as read through each accounting it has: v1 ``cpuacct``, v2 ``cpu.stat``."""
    views = []
    if "cpuacct" in group.v1:
        views.append(group)
    if group.v2 is not None and (group.v2 / "cpu.stat").exists():
        views.append(cgroups.Cgroup({}, group.v2))
    return views


def test_the_cpu_bill_counts_what_the_groups_processes_burn_in_every_hierarchy(group):
    views = hierarchies(group)
    assert views, "the group has no CPU accounting"
    before = [view.cpu_seconds() for view in views]  # opens the files kept for later reads
    run_in(group, BURN)
    for view, start in zip(views, before, strict=True):
        used = view.cpu_seconds() - start
        assert 0.15 < used < 2.0, used  # 0.2 s burnt, plus an interpreter's start


def test_the_cpu_bill_of_an_idle_group_does_not_move(group):
    run_in(group, "pass")
    views = hierarchies(group)
    first = [view.cpu_seconds() for view in views]
    time.sleep(0.05)
    assert [view.cpu_seconds() for view in views] == first


def test_a_removed_groups_bill_is_an_error_not_a_stale_number(group):
    """The seat's controls turn this error into 'not measured' (``None``)."""
    group.cpu_seconds()
    asyncio.run(group.remove())
    with pytest.raises(OSError):
        group.cpu_seconds()


def test_a_frozen_group_runs_nothing_until_thawed(group):
    if group.v2 is None:
        pytest.skip("no v2 hierarchy: the group is paused by signals")
    joins = " && ".join(f"echo $$ > {procs}" for procs in group.procs_files())
    spinner = subprocess.Popen(["/bin/sh", "-c", f"{joins} && exec python3 -c 'while 1: pass'"])
    try:
        time.sleep(0.2)
        group.freeze()
        time.sleep(0.05)  # a freeze takes effect as each thread next enters the kernel
        frozen_at = group.cpu_seconds()
        time.sleep(0.2)
        assert group.cpu_seconds() - frozen_at < 0.01
        group.thaw()
        deadline = time.monotonic() + 10  # thawed, it spins again (a loaded machine is slow)
        while group.cpu_seconds() - frozen_at < 0.05:
            assert time.monotonic() < deadline, "the thawed group never ran"
            time.sleep(0.05)
    finally:
        spinner.kill()
        spinner.wait()
