"""Every page of the site in a real Chromium under the site's Content-Security-Policy: no
violation reported, no script error, and each page still does its job; ``/docs`` shows
the API's operations with the network cut off (only the server itself answers)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from pitch_testkit.journal import cut_after_deal, journaled_game
from pitch_testkit.samples import build_ladder, match_folder
from pitch_web import create_app
from pitch_web.routes.service import enable_service
from pitch_web.source import FolderSource, LadderSource

# One Chromium at a time: pytest-xdist runs the group on one worker.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("browser")]

WATCH = """() => {
  window.__violations = [];
  document.addEventListener("securitypolicyviolation", (event) => {
    const where = `${event.sourceFile}:${event.lineNumber}`;
    window.__violations.push(`${event.violatedDirective} ${event.blockedURI} ${where}`);
  });
}"""


class Watched:
    """A page whose CSP violations, script errors and console errors are collected."""

    def __init__(self, page: Any, base: str) -> None:
        self.page, self.base = page, base
        self.errors: list[str] = []
        page.add_init_script(f"({WATCH})()")
        page.on("pageerror", lambda error: self.errors.append(f"pageerror: {error}"))
        page.on("console", self._console)

    def _console(self, message: Any) -> None:
        text = message.text
        if message.type == "error" and "status of 4" not in text:  # 404/422 pages are meant
            self.errors.append(f"console: {text}")

    def visit(self, path: str, ready: str | None = None) -> Any:
        """Open ``path``, wait for ``ready`` (a selector) if given, then check the page."""
        response = self.page.goto(self.base + path)
        assert "default-src 'self'" in response.headers["content-security-policy"], path
        if ready:
            self.page.locator(ready).first.wait_for(timeout=15_000)
        self.page.wait_for_load_state("networkidle") if not path.startswith("/live/") else None
        self.check(path)
        return self.page

    def check(self, path: str) -> None:
        violations = self.page.evaluate("window.__violations || []")
        assert violations == [], (path, violations)
        assert self.errors == [], (path, self.errors)


def test_every_ladder_page_runs_under_the_policy(tmp_path, page, serve, screenshot):
    build_ladder(f"sqlite:///{tmp_path / 'ladder' / 'ladder.db'}", tmp_path).close()
    source = LadderSource(tmp_path / "ladder")
    app = create_app(source)
    enable_service(app)
    with serve(app) as served:
        watched = Watched(page, served.url)
        watched.visit("/", "figure svg")
        expect(page.locator("table.data tbody tr")).to_have_count(3)
        watched.visit("/bots/alpha", "figure svg")
        watched.visit("/matches", "table.data tbody tr")
        watched.visit("/matches/1", "table.data tbody tr")
        watched.visit("/games?bot=alpha&result=lost", "table.data tbody tr")
        watched.visit("/view/4", "[data-testid=hand-0]")
        page.keyboard.press("ArrowRight")
        page.get_by_test_id("play").click()
        page.get_by_test_id("play").click()
        watched.check("/view/4 stepped")
        watched.visit("/live")
        watched.visit("/author", "#token")
        page.fill("#token", "pa_0123456789abcdef_" + "x" * 43)
        page.click("button[type=submit]")
        expect(page.get_by_test_id("author-error")).to_contain_text("401")
        watched.check("/author with a bad token")
        watched.visit("/bots/nobody", "section.error")
        watched.visit("/games?fault=maybe", "section.error")
        watched.visit("/docs", ".opblock")
        screenshot("docs")
    source.close()


def test_every_folder_page_and_a_live_game_run_under_the_policy(tmp_path, page, serve, screenshot):
    served_folder = tmp_path / "served"
    match_folder(served_folder / "greedy-vs-random")
    (served_folder / "corrupt.json").write_text('{"format": "pitch-game-record"')
    journal, _record = journaled_game(served_folder)
    cut_after_deal(journal, 2)
    with serve(create_app(FolderSource(served_folder))) as served:
        watched = Watched(page, served.url)
        watched.visit("/", "table.data tbody tr")
        watched.visit("/matches/greedy-vs-random", "table.data tbody tr")
        watched.visit("/view/greedy-vs-random/games/pair-00000-a.json.gz", "[data-testid=hand-0]")
        watched.visit("/view/corrupt.json", "section.error")
        watched.visit("/live", "table.data tbody tr")
        watched.visit("/live/m-random/pair-00000-a", "[data-testid=hand-0]")
        page.wait_for_timeout(500)  # the event stream has connected and sent the timeline
        watched.check("/live/m-random/pair-00000-a, following")
        screenshot("live")
        watched.visit("/nothing-here", "section.error")


def test_docs_show_the_apis_operations_with_the_network_cut_off(tmp_path, page, serve):
    build_ladder(f"sqlite:///{tmp_path / 'ladder' / 'ladder.db'}", tmp_path).close()
    source = LadderSource(tmp_path / "ladder")
    app = create_app(source)
    enable_service(app)
    refused: list[str] = []

    def only_the_server(route: Any) -> None:
        if urlsplit(route.request.url).hostname in ("127.0.0.1", "localhost"):
            route.continue_()
        else:
            refused.append(route.request.url)
            route.abort()

    page.route("**/*", only_the_server)
    with serve(app) as served:
        watched = Watched(page, served.url)
        watched.visit("/docs", ".opblock")
        shown = page.locator(".opblock-summary-path").all_inner_texts()
        for path in ("/api/standings", "/api/games", "/api/bots/{name}", "/api/submissions"):
            assert any(text.replace("\u200b", "") == path for text in shown), (path, shown)
        page.locator(".opblock-summary-path", has_text="/api/standings").first.click()
        page.get_by_role("button", name="Try it out").click()
        page.get_by_role("button", name="Execute").click()
        expect(
            page.locator(".live-responses-table tbody .response-col_status").first
        ).to_contain_text("200")
        watched.check("/docs, tried")
    assert refused == []
    source.close()
