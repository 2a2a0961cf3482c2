"""Settings for the engine tests: gRPC's I/O path chosen as the pitch command chooses it (the
helpers are in ``pitch_testkit.hands``)."""

from pitch_sdk.grpc_io import prefer_classic_io

prefer_classic_io()  # as the pitch command does, before anything imports grpc
