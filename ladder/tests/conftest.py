"""Ladder test fixtures: a database URL per backend (helpers are in ``ladder_testkit``).

``db_url`` runs a test on SQLite (a file under ``tmp_path``) and, when
``PITCH_TEST_POSTGRES_URL`` is set, again on PostgreSQL, in a schema of its own that is
dropped afterwards (the URL selects it through libpq's ``options``).
"""

from __future__ import annotations

from pitch_sdk.grpc_io import prefer_classic_io

prefer_classic_io()  # as the pitch command does, before anything imports grpc

# isort: split

import os
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from sqlalchemy import create_engine, text

from pitch_ladder.database import database_url

_HERE = str(Path(__file__).parent)
if _HERE not in sys.path:  # ladder_testkit, under --import-mode=importlib
    sys.path.insert(0, _HERE)

POSTGRES = os.environ.get("PITCH_TEST_POSTGRES_URL")


@pytest.fixture(
    params=[
        "sqlite",
        pytest.param(
            "postgresql",
            marks=pytest.mark.skipif(not POSTGRES, reason="PITCH_TEST_POSTGRES_URL is not set"),
        ),
    ]
)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database URL for a fresh, empty ladder database."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'test-ladder.db'}"
        return
    assert POSTGRES
    schema = f"ladder_test_{uuid.uuid4().hex[:12]}"
    admin = create_engine(database_url(tmp_path, POSTGRES))
    with admin.begin() as connection:
        connection.execute(text(f"CREATE SCHEMA {schema}"))
    separator = "&" if "?" in POSTGRES else "?"
    try:
        yield f"{POSTGRES}{separator}options={quote(f'-csearch_path={schema}')}"
    finally:
        with admin.begin() as connection:
            connection.execute(text(f"DROP SCHEMA {schema} CASCADE"))
        admin.dispose()
