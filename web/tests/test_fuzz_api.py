"""Every route of the OpenAPI description fuzzed by Schemathesis against a real server:
uvicorn on a free port over a ladder on SQLite, and on PostgreSQL when
``PITCH_TEST_POSTGRES_URL`` is set, and over a folder of matches. No answer may be a 5xx,
and every answer must match the schema and content type that ``/docs`` describes.

Both valid and invalid requests are generated (Schemathesis' positive and negative
modes). Requests carry an admin's token, so the service's routes are reached past their 401,
and uploads carry generated bodies (the archive, as ``/docs`` describes it).
Each operation gets ``EXAMPLES`` generated cases (valid and invalid), which keeps a run
near half a minute per server; ``PITCH_FUZZ_EXAMPLES`` raises it for a longer hunt.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
)

from pitch_ladder.authors import add_author
from pitch_sdk.record import write_record
from pitch_testkit.ladder import POSTGRES, fresh_database
from pitch_testkit.samples import build_ladder, game_record, match_folder
from pitch_testkit.served import Served
from pitch_web import create_app
from pitch_web.routes.service import enable_service
from pitch_web.source import FolderSource, LadderSource

pytestmark = pytest.mark.slow

EXAMPLES = int(os.environ.get("PITCH_FUZZ_EXAMPLES", "10"))
CHECKS = [not_a_server_error, response_schema_conformance, content_type_conformance]
ARCHIVES_SENT: list[int] = []
"""The sizes of the upload bodies sent, as ``archive_body`` serialized them."""


@schemathesis.serializer("application/gzip")
def archive_body(context: schemathesis.SerializationContext, value: Any) -> bytes:
    """An upload's body (a binary string, as ``/docs`` describes it), sent as generated."""
    body = value if isinstance(value, bytes) else value.data
    ARCHIVES_SENT.append(len(body))
    return body


@pytest.fixture(
    params=[
        "sqlite",
        pytest.param(
            "postgresql",
            marks=pytest.mark.skipif(not POSTGRES, reason="PITCH_TEST_POSTGRES_URL is not set"),
        ),
        "folder",
    ]
)
def served(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """A real server of the kind ``request.param``: its address and an admin's token."""
    if request.param == "folder":
        folder = tmp_path / "served"
        match_folder(folder / "greedy-vs-random")
        write_record(game_record(seed=9), folder / "loose.json")
        (folder / "corrupt.json").write_text('{"format": "pitch-game-record"')
        with Served(create_app(FolderSource(folder))) as server:
            yield server.url, ""
        return
    with fresh_database(request.param, tmp_path) as url:
        build_ladder(url, tmp_path).close()
        source = LadderSource(tmp_path / "ladder", url)
        token = add_author(source.ladder, "admin", admin=True).token
        app = create_app(source)
        enable_service(app)
        try:
            with Served(app) as server:
                yield server.url, token
        finally:
            source.close()


def test_no_route_answers_a_5xx_or_off_its_schema(served: tuple[str, str]) -> None:
    address, token = served
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    schema = schemathesis.openapi.from_url(f"{address}/api/openapi.json")
    ARCHIVES_SENT.clear()
    failures, operations = [], 0
    for found in schema.get_all_operations():
        operation = found.ok()
        operations += 1
        for mode in _modes(operation):

            @given(case=operation.as_strategy(generation_mode=mode))
            @settings(
                max_examples=EXAMPLES,
                deadline=None,
                phases=[Phase.explicit, Phase.generate],  # a failure shown as found
                suppress_health_check=list(HealthCheck),
                database=None,
            )
            def fuzz(case: Any) -> None:
                case.call_and_validate(headers=headers, checks=CHECKS, timeout=30)

            try:
                fuzz()
            except Unsatisfiable:  # nothing invalid to send
                continue
            except (Exception, BaseExceptionGroup) as error:  # every operation's failures
                failures.append(f"{operation.label} ({mode.value}): {error}")
    assert operations >= 10
    assert not failures, "\n\n".join(failures)
    assert bool(ARCHIVES_SENT) == bool(token), "a ladder's uploads are fuzzed with bodies"


def _modes(operation: Any) -> list[GenerationMode]:
    """Valid requests for every operation; invalid ones where a parameter can be invalid
    (a query, or a number in the path): a text in the path is always valid, and Hypothesis
    would spend its time looking for one that is not."""
    typed = [p for p in operation.path_parameters if p.raw_schema.get("type") != "string"]
    if len(operation.query) or typed:
        return [GenerationMode.POSITIVE, GenerationMode.NEGATIVE]
    return [GenerationMode.POSITIVE]
