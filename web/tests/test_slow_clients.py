"""Slow clients against a real ``pitch serve``: connections that trickle a request's
headers a byte at a time, or send nothing, are cut within ``[server] header_timeout_s``;
an upload whose body trickles gets a 408 within ``body_timeout_s``; and meanwhile a
normal request still answers."""

from __future__ import annotations

import select
import socket
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from pitch_ladder.authors import add_author
from pitch_ladder.ladder import Ladder
from pitch_testkit.processes import start, stop

# Wall-time measurements: pytest-xdist runs the group on one worker, never two at once.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("timing")]
HEADER_TIMEOUT_S = 2.0
BODY_TIMEOUT_S = 3.0
SLACK_S = 2.5
"""How much later than its timeout a connection may be cut (a loaded 2-core machine)."""
CLIENTS = 50
SETTINGS = f"""
[server]
header_timeout_s = {HEADER_TIMEOUT_S}
body_timeout_s = {BODY_TIMEOUT_S}
keep_alive_s = 2
max_connections = 200
"""


@pytest.fixture
def served(tmp_path: Path):
    folder = tmp_path / "ladder"
    with Ladder.init(folder) as ladder:
        token = add_author(ladder, "alice").token
    config = tmp_path / "arena.toml"
    config.write_text(SETTINGS)
    process, address = start(
        "serve", "--ladder", folder, "--port", "0", "--no-scheduler", "--config", config
    )
    try:
        yield address, token
    finally:
        code, _, err = stop(process)
        assert code == 0 and "Traceback" not in err, err


def _connect(address: str) -> socket.socket:
    host, port = address.removeprefix("http://").rstrip("/").split(":")
    return socket.create_connection((host, int(port)), timeout=5)


def _closed(connection: socket.socket) -> bool:
    """Whether the server has closed ``connection`` (what it sent before is skipped)."""
    while select.select([connection], [], [], 0)[0]:
        try:
            if not connection.recv(65536):
                return True
        except OSError:
            return True
    return False


def _trickle(connections: list[socket.socket], request: bytes, seconds: float) -> dict[int, float]:
    """Send ``request`` a byte at a time (every 0.1 s, round and round) on every connection
    for up to ``seconds``: when each was closed, by its index."""
    started = time.monotonic()
    cut: dict[int, float] = {}
    sent = 0
    while len(cut) < len(connections) and time.monotonic() - started < seconds:
        for index, connection in enumerate(connections):
            if index in cut:
                continue
            try:
                connection.sendall(request[sent % len(request) : sent % len(request) + 1])
            except OSError:
                cut[index] = time.monotonic() - started
                continue
            if _closed(connection):
                cut[index] = time.monotonic() - started
        sent += 1
        time.sleep(0.1)
    return cut


def test_connections_trickling_their_headers_are_cut_while_a_normal_request_answers(
    served,
) -> None:
    address, _ = served
    idle = _connect(address)  # says nothing at all
    connections = [_connect(address) for _ in range(CLIENTS)]
    endless = b"GET /api/standings HTTP/1.1\r\nHost: arena\r\n" + b"X-Slow: yes\r\n" * 1000
    started = time.monotonic()
    answered = []

    def read_meanwhile() -> None:
        before = time.monotonic()
        with urllib.request.urlopen(f"{address}api/health", timeout=10) as answer:
            assert answer.status == 200
        answered.append(time.monotonic() - before)

    reader = threading.Thread(target=read_meanwhile)
    reader.start()
    cut = _trickle(connections, endless, HEADER_TIMEOUT_S + SLACK_S + 5)
    reader.join()
    assert len(cut) == CLIENTS, f"{CLIENTS - len(cut)} trickling connections were never cut"
    assert max(cut.values()) <= HEADER_TIMEOUT_S + SLACK_S, sorted(cut.values())
    assert min(cut.values()) >= HEADER_TIMEOUT_S - 0.5, "cut by the timeout, not refused"
    assert answered and answered[0] < 2.0, "a normal request answered meanwhile"
    assert _closed(idle) or time.monotonic() - started > HEADER_TIMEOUT_S
    deadline = time.monotonic() + SLACK_S
    while not _closed(idle):
        assert time.monotonic() < deadline, "a connection that sent nothing was never cut"
        time.sleep(0.1)
    for connection in [idle, *connections]:
        connection.close()


def test_an_upload_whose_body_trickles_gets_a_408_within_the_body_timeout(served) -> None:
    address, token = served
    connection = _connect(address)
    connection.sendall(
        b"POST /api/submissions HTTP/1.1\r\nHost: arena\r\nContent-Length: 100000\r\n"
        + f"Authorization: Bearer {token}\r\n\r\n".encode()
    )
    started = time.monotonic()
    answer = b""
    reset = False
    while time.monotonic() - started < BODY_TIMEOUT_S + SLACK_S + 5:
        try:
            if select.select([connection], [], [], 0.1)[0]:
                chunk = connection.recv(65536)
                if not chunk:
                    break
                answer += chunk
                continue
            connection.sendall(b"\0")
        except OSError:  # the close met bytes it had not read: a reset, which may eat the 408
            reset = True
            break
    elapsed = time.monotonic() - started
    connection.close()
    assert answer or reset, "the connection was never cut"
    if answer:
        assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
        assert b"connection: close" in answer.lower()
    assert BODY_TIMEOUT_S - 0.5 <= elapsed <= BODY_TIMEOUT_S + SLACK_S, elapsed
