"""Which of gRPC's two I/O paths a program uses.

gRPC's EventEngine path hands every message between its own thread and Python's, which
costs a third of the CPU per decision in a protocol that carries one message at a time
(``bench/RESULTS.md``); its classic path does not. gRPC reads the choice from
``GRPC_EXPERIMENTS`` when it is first imported, so a program makes it first thing: the
``pitch`` command does, and the referee passes it on to the bots it starts. Importing the
SDK changes nothing.
"""

from __future__ import annotations

import os

CLASSIC_IO = "-event_engine_client,-event_engine_listener"
"""The ``GRPC_EXPERIMENTS`` value that turns EventEngine off for clients and listeners."""


def io_setting() -> str:
    """The ``GRPC_EXPERIMENTS`` value this program uses: the user's, else the classic path."""
    return os.environ.get("GRPC_EXPERIMENTS", CLASSIC_IO)


def prefer_classic_io() -> None:
    """Use the classic path in this process unless the user chose; call it before grpc loads."""
    os.environ["GRPC_EXPERIMENTS"] = io_setting()
