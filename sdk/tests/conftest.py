"""Make the test helpers (``pitch_testkit``) importable under ``--import-mode=importlib``."""

from pitch_sdk.grpc_io import prefer_classic_io

prefer_classic_io()  # as the pitch command does, before anything imports grpc

# isort: split

import sys
from pathlib import Path

_HERE = str(Path(__file__).parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
