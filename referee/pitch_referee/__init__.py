"""Pitch Arena referee: runs games between bot processes over gRPC."""

import pitch_sdk  # noqa: F401  (first: it chooses gRPC's I/O path before grpc is imported)

__version__ = "0.1.0"
