"""Ladder test fixtures: a database URL per backend (helpers are in ``pitch_testkit.ladder``).

``db_url`` runs a test on SQLite (a file under ``tmp_path``) and, when
``PITCH_TEST_POSTGRES_URL`` is set, again on PostgreSQL, in a schema of its own that is
dropped afterwards (the URL selects it through libpq's ``options``).
"""

from __future__ import annotations

from pitch_sdk.grpc_io import prefer_classic_io

prefer_classic_io()  # as the pitch command does, before anything imports grpc

# isort: split

from pitch_testkit.ladder import db_url  # noqa: F401  (the fixture, shared)
