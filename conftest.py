"""Settings shared by every test package.

Hypothesis's per-example deadline measures wall time, which on a shared two-core machine
running bot processes beside the tests says more about the neighbours than about the code:
property tests pin behaviour here, and speed lives in ``bench/``.

The suite runs on two pytest-xdist workers unless ``-n`` says otherwise (``-n 0`` or
``-p no:xdist`` for one process, as when debugging one test).
"""

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
