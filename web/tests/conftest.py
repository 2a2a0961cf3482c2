"""Fixtures for the web tests: an application served on 127.0.0.1, and a real Chromium.

The browser is Debian's ``chromium`` driven by Playwright (browser builds cannot be
downloaded here). Without it the browser tests skip, unless ``PITCH_REQUIRE_BROWSER`` is
set (as ``.ci/run`` does), where they fail. Screenshots go to ``PITCH_ARTIFACTS`` (by
default ``web/tests/artifacts``), for a person to look at.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pitch_testkit.ladder import db_url  # noqa: F401  (the fixture, shared)
from pitch_testkit.served import Served

CHROMIUM = os.environ.get("PITCH_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = Path(os.environ.get("PITCH_ARTIFACTS", Path(__file__).parent / "artifacts"))


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A headless Chromium for one test module: Playwright's sync API keeps an event loop
    running while it is open, and tests after it that call ``asyncio.run`` would fail."""
    if not Path(CHROMIUM).exists():
        if os.environ.get("PITCH_REQUIRE_BROWSER"):
            pytest.fail(f"no Chromium at {CHROMIUM}: install Debian's chromium package")
        pytest.skip("no Chromium: install Debian's chromium package to run the browser tests")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh page (its own context), closed after the test."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture
def screenshot(page: Any, request: pytest.FixtureRequest) -> Any:
    """``screenshot("name")`` saves the page as ARTIFACTS/<test>-<name>.png."""

    def save(name: str) -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{request.node.name}-{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return save


@pytest.fixture
def serve() -> Any:
    """``with serve(app) as served:`` runs ``app`` on a free port; ``served.url``."""
    return Served
