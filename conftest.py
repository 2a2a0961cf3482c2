"""Settings shared by every test package.

Hypothesis's per-example deadline measures wall time, which on a shared two-core machine
running bot processes beside the tests says more about the neighbours than about the code:
property tests pin behaviour here, and speed lives in ``bench/``.

Under CI (``CI`` set, as ``.ci/run`` sets it) Hypothesis draws the same examples on every
run (``derandomize``): the gate then fails only on a change, never on a new random draw;
a run by hand keeps exploring, and a failure it finds is a test to add.

The suite runs on two pytest-xdist workers unless ``-n`` says otherwise (``-n 0`` or
``-p no:xdist`` for one process, as when debugging one test).
"""

import os
import signal
import sys
from collections.abc import Generator

import pytest
from hypothesis import settings

settings.register_profile("pitch", deadline=None)
settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "pitch")

WORKERS = 2
"""One worker a core of the two-core machines the suite runs on."""


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """Two workers by default: set here, not in ``addopts``, so that ``-p no:xdist`` still
    parses; a worker (which has ``workerinput``) and ``--pdb`` stay in one process."""
    if (
        config.pluginmanager.has_plugin("xdist")
        and not hasattr(config, "workerinput")
        and config.option.numprocesses is None
        and not config.option.usepdb
    ):
        config.option.numprocesses = WORKERS
        if config.option.dist == "no":
            config.option.dist = "loadgroup"


DEEPEST_TREE = 20_000
"""Frames enough for ``shutil.rmtree`` (one a folder) through trees far deeper than the
1,101 folders of the archive and scratch tests."""


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_sessionfinish(session: pytest.Session) -> Generator[None, object, object]:
    """Let pytest's clean-up of old temporary folders remove deep ones: it removes them
    with the recursive ``shutil.rmtree``, which raised RecursionError on a tree that an
    interrupted test had left (and then on every later run, since the tree stays)."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, DEEPEST_TREE))
    try:
        return (yield)
    finally:
        sys.setrecursionlimit(limit)


@pytest.fixture(autouse=True)
def _ctrl_c_as_a_terminal_sends_it() -> Generator[None, None, None]:
    """Each test starts with Ctrl-C handled as a fresh Python handles it. A worker's set-up
    run in the test's own process (pools ignore SIGINT in their workers) would otherwise
    leave SIGINT ignored in this pytest worker, and every process a later test starts
    inherits that: its ``pitch match`` would shrug off the Ctrl-C the test sends."""
    yield
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        signal.signal(signal.SIGINT, signal.default_int_handler)
