"""Pitch Arena referee: runs games between bot processes over gRPC."""
