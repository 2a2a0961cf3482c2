"""Commands that need no database must not pay for SQLModel, SQLAlchemy or Alembic."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATABASE_PACKAGES = ("sqlmodel", "sqlalchemy", "alembic")

_RUN_AND_LIST_MODULES = """
import sys
from typer.testing import CliRunner
from pitch_cli import app
result = CliRunner().invoke(app, sys.argv[1:])
assert result.exit_code == 0, result.output
print(" ".join(sorted({name.split(".")[0] for name in sys.modules})))
"""


def _top_level_modules_after(*args: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", _RUN_AND_LIST_MODULES, *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return set(done.stdout.split())


def test_replay_imports_no_database_package(tmp_path):
    simulated = _top_level_modules_after(
        "simulate", "--games", "1", "--seed", "3", "--out", str(tmp_path)
    )
    assert not simulated & set(DATABASE_PACKAGES)
    record = next(tmp_path.glob("*.json"))
    assert not _top_level_modules_after("replay", str(record)) & set(DATABASE_PACKAGES)


@pytest.mark.slow
def test_match_imports_no_database_package(tmp_path):
    modules = _top_level_modules_after(
        "match",
        str(ROOT / "sample_bots" / "greedy"),
        str(ROOT / "sample_bots" / "random"),
        "--games", "2", "--seed", "5", "--sandbox", "off", "--out", str(tmp_path / "m"),
    )  # fmt: skip
    assert "pitch_referee" in modules
    assert not modules & set(DATABASE_PACKAGES)
