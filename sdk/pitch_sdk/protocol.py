"""The gRPC contract's generated code (``proto/pitch/v1/pitch.proto``), for programs that
speak it from the other side of a bot: the referee, and tests or benchmarks that play a
referee's or a bot's part by hand.

A Python bot needs none of it (``pitch_sdk.run`` speaks the protocol for a ``Bot``); the
conversions between these messages and the engine's types are ``pitch_sdk.wire``'s. The
modules themselves are generated (``proto/generate.py``) into ``pitch_sdk._proto``, which
nothing outside the SDK imports.
"""

from ._proto import pitch_pb2 as messages
from ._proto import pitch_pb2_grpc as services

__all__ = ["messages", "services"]
