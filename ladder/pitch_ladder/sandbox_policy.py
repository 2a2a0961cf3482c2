"""Where the ladder may run submitted bots: only in the sandbox, unless the operator trusts
them. Asked before a submission's smoke test, a ``ladder run`` and the service's scheduler.
"""

from __future__ import annotations

from pitch_referee.sandbox import unavailable_reason

from .errors import LadderError


def require_sandbox(trust_bots: bool) -> None:
    """Refuse to run submitted bots where they cannot be sandboxed, unless trusted.

    (Where the machine can, they are sandboxed, trusted or not: the matches' sandbox
    setting is ``auto``.)

    Raises:
        LadderError: the machine cannot sandbox bots and ``trust_bots`` is false.
    """
    reason = unavailable_reason()
    if reason is not None and not trust_bots:
        raise LadderError(
            f"the ladder runs submitted bots only in the sandbox, and this machine cannot "
            f"sandbox them: {reason}; or, if you trust every bot in this ladder, pass --trust-bots"
        )
