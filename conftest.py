"""Settings shared by every test package.

Hypothesis's per-example deadline measures wall time, which on a shared two-core machine
running bot processes beside the tests says more about the neighbours than about the code:
property tests pin behaviour here, and speed lives in ``bench/``.
"""

from hypothesis import settings

settings.register_profile("pitch", deadline=None)
settings.load_profile("pitch")
