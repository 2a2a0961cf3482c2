"""What can go wrong with a bot process, as exceptions the game loop turns into faults.

``grpc.RpcError`` never escapes ``connection.py``; everything a bot does wrong arrives
as one of these.
"""

from __future__ import annotations

from pitch_sdk.faults import FaultKind


class PitchError(Exception):
    """A problem the user can fix; the ``pitch`` command prints the message on one line."""


class BotError(RuntimeError):
    """A bot misbehaved or could not be run."""


class ManifestError(BotError):
    """A bot folder's ``bot.toml`` is missing or wrong; the message names the field."""


class BotStartError(BotError):
    """The bot did not start: its command failed, it exited, or it sent no hello in time."""

    def __init__(self, message: str, kind: FaultKind = FaultKind.START_FAILED) -> None:
        super().__init__(message)
        self.kind = kind
        """``start_failed`` (could not run, or exited first) or ``no_hello`` (never connected)."""


class BotTerminatedError(BotError):
    """The bot's process ended or its stream closed while it was needed."""


class BotTimeoutError(BotError):
    """The bot did not answer within its limit plus what was left of its reserve."""


class BotProtocolError(BotError):
    """The bot sent something the protocol does not allow (malformed, wrong request id)."""

    def __init__(self, message: str, kind: FaultKind = FaultKind.MALFORMED) -> None:
        super().__init__(message)
        self.kind = kind
