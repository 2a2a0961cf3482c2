"""Commands load only what they need: no database without a ladder, no gRPC without a bot.

``pitch --help`` lists every command without importing any command module (``COMMANDS``
in ``pitch_cli``): its one-line helps are kept equal to the commands' own here.
"""

from __future__ import annotations

import inspect
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from pitch_cli import COMMANDS, app, load_command
from pitch_sdk import reference

DATABASE_PACKAGES = {"sqlmodel", "sqlalchemy", "alembic"}
GRPC_PACKAGES = {"grpc", "google"}  # google: protobuf, which only the wire code needs
REFEREE_AT_WORK = {"pitch_referee.conformance", "pitch_referee.match", "pitch_referee.connection"}

_RUN_AND_LIST_MODULES = """
import sys
from typer.testing import CliRunner
from pitch_cli import app
result = CliRunner().invoke(app, sys.argv[1:])
assert result.exit_code == 0, result.output
print(" ".join(sorted(sys.modules)))
"""


def _modules_after(*args: str) -> set[str]:
    """Every module a fresh interpreter has loaded after running ``pitch ARGS``."""
    done = subprocess.run(
        [sys.executable, "-c", _RUN_AND_LIST_MODULES, *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return set(done.stdout.split())


def _top_level(modules: set[str]) -> set[str]:
    return {name.split(".")[0] for name in modules}


def test_help_imports_no_command_module_database_or_grpc():
    modules = _modules_after("--help")
    assert not _top_level(modules) & (DATABASE_PACKAGES | GRPC_PACKAGES)
    assert not modules & REFEREE_AT_WORK
    commands = {f"pitch_cli.{entry.module}" for entry in COMMANDS.values()}
    assert not modules & commands


@pytest.mark.parametrize("command", [(), ("ladder",), ("match",)])
def test_help_screens_skip_typers_rich_help_formatter(command):
    """Rich's help formatter costs 0.3 s before the first line (bench/startup.py)."""
    modules = _modules_after(*command, "--help")
    assert "typer.rich_utils" not in modules
    assert "markdown_it" not in _top_level(modules)


def test_check_help_imports_no_grpc():
    modules = _modules_after("check", "--help")
    assert "pitch_cli.check" in modules
    assert not _top_level(modules) & (DATABASE_PACKAGES | GRPC_PACKAGES)
    assert not modules & REFEREE_AT_WORK


def test_replay_imports_no_database_package_and_no_grpc(tmp_path):
    simulated = _modules_after("simulate", "--games", "1", "--seed", "3", "--out", str(tmp_path))
    assert not _top_level(simulated) & (DATABASE_PACKAGES | GRPC_PACKAGES)
    record = next(tmp_path.glob("*.json*"))
    replayed = _modules_after("replay", str(record))
    assert "pitch_cli.replay" in replayed
    assert not _top_level(replayed) & (DATABASE_PACKAGES | GRPC_PACKAGES)


@pytest.mark.slow
def test_match_imports_no_database_package(tmp_path):
    modules = _modules_after(
        "match",
        str(reference.folder("greedy")),
        str(reference.folder("random")),
        "--games", "2", "--seed", "5", "--sandbox", "off", "--out", str(tmp_path / "m"),
    )  # fmt: skip
    assert "pitch_referee" in _top_level(modules)
    assert not _top_level(modules) & DATABASE_PACKAGES


@pytest.mark.parametrize("name", list(COMMANDS))
def test_each_listed_help_is_the_first_line_of_the_commands_own(name):
    command = load_command(name)
    assert command.name == name
    first_line = inspect.cleandoc(command.help or "").splitlines()[0]
    assert COMMANDS[name].help == first_line


def test_help_lists_every_command_with_its_line():
    result = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "200"}, terminal_width=200)
    assert result.exit_code == 0, result.output
    rows = {tuple(line.strip("│ ").split(None, 1)) for line in result.output.splitlines()}
    for name, entry in COMMANDS.items():
        assert (name, entry.help) in rows


def test_a_mistyped_command_is_answered_with_the_likely_one():
    result = CliRunner().invoke(app, ["chek"])
    assert result.exit_code == 2
    assert "'check'" in result.output
