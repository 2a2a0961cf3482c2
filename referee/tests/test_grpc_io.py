"""Importing the SDK or the referee leaves the environment alone; programs choose gRPC's
I/O path, and the referee hands its choice to the bots it starts."""

from __future__ import annotations

import os
import subprocess
import sys

from pitch_referee.process import bot_environment
from pitch_sdk.grpc_io import CLASSIC_IO

_IMPORT_AND_PRINT = """
import os
import pitch_sdk.run, pitch_sdk.selfplay, pitch_referee.referee, pitch_referee.match
print(os.environ.get("GRPC_EXPERIMENTS", "unset"))
"""


def test_importing_the_libraries_does_not_change_the_environment():
    env = {key: value for key, value in os.environ.items() if key != "GRPC_EXPERIMENTS"}
    done = subprocess.run(
        [sys.executable, "-c", _IMPORT_AND_PRINT], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "unset"


def test_the_pitch_command_chooses_the_classic_io_path_unless_the_user_did():
    program = "import pitch_cli, os; print(os.environ['GRPC_EXPERIMENTS'])"
    env = {key: value for key, value in os.environ.items() if key != "GRPC_EXPERIMENTS"}
    chosen = subprocess.run(
        [sys.executable, "-c", program], env=env, capture_output=True, text=True
    )
    assert chosen.stdout.strip() == CLASSIC_IO
    users = subprocess.run(
        [sys.executable, "-c", program], env=env | {"GRPC_EXPERIMENTS": ""}, capture_output=True,
        text=True,
    )  # fmt: skip
    assert users.stdout.strip() == ""


def test_bots_started_by_the_referee_get_its_io_path():
    env = bot_environment({"PITCH_TOKEN": "t"}, "/usr/bin", "/tmp", "/tmp")
    assert env["GRPC_EXPERIMENTS"] == os.environ.get("GRPC_EXPERIMENTS", CLASSIC_IO)
