"""Pitch Arena SDK: cards, the rules engine, player views, and the bot SDK."""

import os

# gRPC's EventEngine I/O path hands every message between its own thread and Python's,
# which costs a third of the CPU per decision in a protocol that carries one message at a
# time (see bench/RESULTS.md). Its classic I/O path is used unless the user set
# GRPC_EXPERIMENTS. gRPC reads the setting when it is imported, so it is set here, before
# any part of the SDK (or the referee, which imports the SDK first) imports grpc.
os.environ.setdefault("GRPC_EXPERIMENTS", "-event_engine_client,-event_engine_listener")
