"""What a player can do wrong at the table, as one list of kinds.

Records, match summaries, the referee and ``pitch rerun`` all speak of faults by these
names (``docs/record-format.md``), so they live in one enum, next to the game driver that
applies the fault policy.
"""

from __future__ import annotations

import enum


class FaultKind(enum.StrEnum):
    """A fault's kind; its value is the name records use."""

    START_FAILED = "start_failed"
    """The bot's command could not run, or its process exited before it said hello."""
    NO_HELLO = "no_hello"
    """The process ran but never connected and said hello in time."""
    TIMEOUT = "timeout"
    """No answer within the decision's limit plus what was left of the reserve."""
    DISCONNECTED = "disconnected"
    """The bot closed its stream while its process lived on."""
    CRASHED = "crashed"
    """The bot's process died (an exception, a signal, the memory limit)."""
    MALFORMED = "malformed"
    """The answer cannot be read as an action at all."""
    WRONG_REQUEST = "wrong_request"
    """The answer names a request that was never asked."""
    STALE_ANSWER = "stale_answer"
    """A second answer to a request already answered, while a newer request waits."""
    OVERSIZED = "oversized"
    """The message is over the size limit."""
    ILLEGAL_ACTION = "illegal_action"
    """A well-formed action that is not one of the legal actions of this decision."""

    @property
    def needs_restart(self) -> bool:
        """After this, the bot cannot play on: it is replaced before the next game."""
        return self in _RESTART


_RESTART = frozenset(
    {
        FaultKind.START_FAILED,
        FaultKind.NO_HELLO,
        FaultKind.TIMEOUT,
        FaultKind.CRASHED,
        FaultKind.DISCONNECTED,
    }
)


class Fault(Exception):
    """A player's fault, raised by a player at the table for the driver to record."""

    def __init__(self, kind: FaultKind, detail: str, *, log: str | None = None) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        """What kind of fault it is."""
        self.detail = detail
        """What happened, in words, for the record."""
        self.log = log
        """Where the bot's own output is kept, when it has a log file."""
