"""The ladder's local process pool: one core per worker, as `pitch match` pins its workers."""

from __future__ import annotations

import os

import pytest

from pitch_ladder.executor import local_executor
from pitch_testkit.ladder import cores_after_a_while


@pytest.mark.skipif(
    not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2,
    reason="needs CPU affinity and two usable cores",
)
@pytest.mark.parametrize("affinity", [True, False])
def test_local_pool_workers_are_pinned_each_to_its_own_core_unless_told_not_to(affinity):
    with local_executor(2, affinity) as pool:
        seen = [future.result() for future in [pool.submit(cores_after_a_while) for _ in "ab"]]
    if affinity:
        assert all(len(cores) == 1 for cores in seen) and seen[0] != seen[1]
    else:
        assert seen == [sorted(os.sched_getaffinity(0))] * 2
