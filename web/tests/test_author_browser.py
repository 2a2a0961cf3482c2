"""The author page in a real Chromium: a token shows its author's verdicts and logs, and
only theirs; a bad token is a message in the page."""

from __future__ import annotations

import io
from concurrent.futures import ThreadPoolExecutor

import pytest
from playwright.sync_api import expect

from pitch_ladder.archive import pack
from pitch_ladder.authors import add_author, authenticate
from pitch_ladder.ladder import Ladder
from pitch_ladder.submissions import submit_upload
from pitch_sdk import reference
from pitch_web import create_app
from pitch_web.routes.service import enable_service
from pitch_web.source import LadderSource

# One Chromium at a time: pytest-xdist runs the group on one worker.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("browser")]
GREEDY = reference.folder("greedy")


def test_the_author_page_shows_a_tokens_own_verdicts_and_logs_only(
    tmp_path, page, serve, screenshot
):
    folder = tmp_path / "ladder"
    Ladder.init(folder).close()
    source = LadderSource(folder)
    ladder = source.ladder
    alice, bob = (add_author(ladder, name).token for name in ("alice", "bob"))
    pack(GREEDY, tmp_path / "greedy.tar.gz")
    upload = io.BytesIO((tmp_path / "greedy.tar.gz").read_bytes())
    with ThreadPoolExecutor(1) as apart:  # the smoke test runs its own event loop, and this
        # thread has Playwright's
        verdict = apart.submit(submit_upload, ladder, authenticate(ladder, alice), upload)
        assert verdict.result().accepted
        crasher = tmp_path / "crasher"
        crasher.mkdir()
        (crasher / "bot.toml").write_text(
            'name = "taken"\nversion = "1"\ncommand = "python bot.py"\n'
        )
        (crasher / "bot.py").write_text("import sys\nprint('alice was here', file=sys.stderr)\n")
        pack(crasher, tmp_path / "crasher.tar.gz")
        upload = io.BytesIO((tmp_path / "crasher.tar.gz").read_bytes())
        refused = apart.submit(submit_upload, ladder, authenticate(ladder, alice), upload)
        assert not refused.result().accepted
    app = create_app(source)
    enable_service(app)
    with serve(app) as served:
        page.goto(f"{served.url}/bots/greedy")
        page.get_by_role("link", name="submissions and logs").click()
        page.wait_for_url(f"{served.url}/author")
        page.fill("#token", alice)
        page.click("button[type=submit]")
        verdicts = page.get_by_test_id("verdicts")
        verdicts.locator("tbody tr").first.wait_for()
        assert "greedy" in verdicts.inner_text() and "accepted" in verdicts.inner_text()
        page.get_by_role("button", name="smoke-test logs").click()
        page.get_by_role("link", name="match/logs/worker-0/A1-a-taken.log").click()
        expect(page.get_by_test_id("log-text")).to_contain_text("alice was here")
        screenshot("alice")

        page.click("#forget")
        page.fill("#token", bob)
        page.click("button[type=submit]")
        expect(page.locator("#verdicts-section")).to_be_visible()
        expect(page.get_by_test_id("verdicts").locator("tbody tr")).to_have_count(0)
        expect(page.get_by_test_id("bots")).to_be_hidden()

        page.fill("#token", "pa_0123456789abcdef_" + "x" * 43)
        page.click("button[type=submit]")
        expect(page.get_by_test_id("author-error")).to_contain_text("401: unknown token")
        screenshot("bad-token")
    source.close()
