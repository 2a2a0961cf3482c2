"""Settings shared by every test package.

Hypothesis's per-example deadline measures wall time, which on a shared two-core machine
running bot processes beside the tests says more about the neighbours than about the code:
property tests pin behaviour here, and speed lives in ``bench/``.

The suite runs on two pytest-xdist workers unless ``-n`` says otherwise (``-n 0`` or
``-p no:xdist`` for one process, as when debugging one test).
"""

import sys
from collections.abc import Generator

import pytest
from hypothesis import settings

settings.register_profile("pitch", deadline=None)
settings.load_profile("pitch")

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
