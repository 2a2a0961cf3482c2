"""The sandbox for the end-to-end tests of whole bots, where bubblewrap can run."""

from __future__ import annotations

import os

import pytest

from pitch_referee.sandbox import SandboxLimits, unavailable_reason


def sandbox_or_skip() -> SandboxLimits:
    """The sandbox's limits; skips the test where bubblewrap cannot run, unless
    ``PITCH_REQUIRE_SANDBOX`` is set (as ``.ci/run`` does): then the test fails."""
    reason = unavailable_reason()
    if reason is not None:
        if os.environ.get("PITCH_REQUIRE_SANDBOX"):
            pytest.fail(f"the sandbox must run here: {reason}")
        pytest.skip(reason)
    return SandboxLimits()
