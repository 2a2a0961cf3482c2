"""The uploads' check queue on a real server: a queued check whose client has gone is
dropped before it starts, and Ctrl-C (SIGINT) with uploads checking and queued ends
the server within the documented time, its sandboxed bots killed."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from pitch_ladder.archive import pack
from pitch_ladder.authors import add_author
from pitch_ladder.ladder import Ladder
from pitch_testkit.processes import post_upload, start
from pitch_web import create_app
from pitch_web.checks import CheckQueue, Stopping
from pitch_web.routes.service import ServiceSettings, close_service, enable_service
from pitch_web.source import LadderSource

pytestmark = pytest.mark.slow
STOP_BOUND_S = 15.0
"""Ctrl-C to exit; the docs promise 30 s (the scheduler's step); no step plays here."""
SLOW_BOT = """\
import time

time.sleep({sleep})  # each start of the bot takes this long: its check takes twice that
from pitch_sdk.bots import RandomBot
from pitch_sdk.run import run

raise SystemExit(run(RandomBot()))
"""


def _slow_bot(tmp_path: Path, name: str, sleep: float) -> bytes:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "bot.toml").write_text(
        f'name = "{name}"\nversion = "1"\ncommand = ["python", "bot.py"]\n'
    )
    (folder / "bot.py").write_text(SLOW_BOT.format(sleep=sleep))
    pack(folder, tmp_path / f"{name}.tar.gz")
    return (tmp_path / f"{name}.tar.gz").read_bytes()


def _wait(condition, what: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.05)


def test_a_queued_check_whose_client_left_is_dropped_before_it_starts(
    tmp_path: Path, serve
) -> None:
    folder = tmp_path / "ladder"
    with Ladder.init(folder) as ladder:
        tokens = {name: add_author(ladder, name).token for name in ("alice", "bob")}
    source = LadderSource(folder)
    app = create_app(source)
    enable_service(app, ServiceSettings(checks_at_once=1))
    checks = app.state.checks
    slow, other = _slow_bot(tmp_path, "slow", 3), _slow_bot(tmp_path, "other", 0)
    try:
        with serve(app) as served:
            address = served.url + "/"
            first: list[tuple[int, dict]] = []
            sender = threading.Thread(
                target=lambda: first.append(post_upload(address, tokens["alice"], slow, 120))
            )
            sender.start()
            _wait(lambda: checks.running == 1, "the first check to start")
            host, port = served.url.removeprefix("http://").split(":")
            leaving = socket.create_connection((host, int(port)))
            leaving.sendall(
                b"POST /api/submissions HTTP/1.1\r\nHost: arena\r\n"
                + f"Authorization: Bearer {tokens['bob']}\r\n".encode()
                + f"Content-Length: {len(other)}\r\n\r\n".encode()
                + other
            )
            _wait(lambda: checks.ready == 1, "the second upload to wait for its check")
            leaving.close()  # pitch submit killed while its upload waits
            _wait(lambda: checks.dropped == 1, "the waiting check to be dropped", 10)
            sender.join(120)
            assert first and first[0][0] == 201, first
            time.sleep(0.5)
            assert (checks.started, checks.running, checks.waiting) == (1, 0, 0)
            bob = urllib.request.Request(
                f"{address}api/submissions", headers={"Authorization": f"Bearer {tokens['bob']}"}
            )
            with urllib.request.urlopen(bob, timeout=30) as answer:
                assert json.loads(answer.read()) == [], "bob's upload was never checked"
    finally:
        close_service(app)
        source.close()


def test_close_kills_the_check_processes_that_it_lists_and_stops_their_checks() -> None:
    async def check_then_close() -> tuple[list, list]:
        queue = CheckQueue(workers=1, queued=1)
        never = asyncio.Event()
        with queue.ticket(author=1, per_author=1) as ticket:
            running = asyncio.ensure_future(ticket.run(never.wait, time.sleep, 120))
            while not (queue.running and queue.processes()):
                await asyncio.sleep(0.05)
            workers = queue.processes()
            queue.close()
            with pytest.raises(Stopping):
                await running
        return workers, queue.processes()

    workers, left = asyncio.run(check_then_close())
    assert len(workers) == 1 and not workers[0].is_alive()
    assert left == []


def _processes_mentioning(text: str) -> list[str]:
    """The command lines of this machine's processes that mention ``text``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if text in command:
            found.append(f"{entry.name}: {command}")
    return found


def test_ctrl_c_with_uploads_checking_and_queued_stops_within_the_bound(tmp_path: Path) -> None:
    folder = tmp_path / "ladder"
    with Ladder.init(folder) as ladder:
        tokens = [add_author(ladder, f"author{n}").token for n in range(4)]
    config = tmp_path / "arena.toml"
    config.write_text("[limits]\nchecks_at_once = 1\n")
    bodies = [_slow_bot(tmp_path, f"slow{n}", 8) for n in range(4)]
    process, address = start(
        "serve", "--ladder", folder, "--port", "0", "--no-scheduler", "--config", config
    )
    answers: list[tuple[int, dict]] = []
    senders = [
        threading.Thread(
            target=lambda n=n: answers.append(post_upload(address, tokens[n], bodies[n], 120))
        )
        for n in range(4)
    ]
    try:
        for sender in senders:
            sender.start()
        # The first check's bot is sleeping in its sandbox; three uploads wait behind it.
        _wait(lambda: _bot_running(folder), "the first check's bot", 60)
        time.sleep(1.0)
        started = time.monotonic()
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
        stopped_in = time.monotonic() - started
    finally:
        if process.poll() is None:
            process.kill()
    for sender in senders:
        sender.join(30)
    print(f"SIGINT to exit: {stopped_in:.1f} s")
    assert stopped_in <= STOP_BOUND_S, f"SIGINT took {stopped_in:.1f} s"
    assert process.returncode == 0 and "Traceback" not in err, err
    assert "stopped" in out
    assert all(status in (0, 503) for status, _ in answers), answers
    time.sleep(1.0)
    assert _processes_mentioning(str(folder)) == [], "a check's process or bot outlived serve"


def _bot_running(folder: Path) -> bool:
    """Whether a bot of an upload is running: a process started from the ladder's folder."""
    return bool(_processes_mentioning(str(folder / "tmp")))
