"""Pitch Arena referee: runs games between bot processes over gRPC."""

__version__ = "0.1.0"
