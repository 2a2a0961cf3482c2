"""``pitch`` commands as a user runs them: a real process on a free port, its address, an
upload to it over HTTP, and a clean stop on Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path


def post_upload(address: str, token: str, body: bytes, timeout: float) -> tuple[int, dict]:
    """``POST /api/submissions`` of an archive to the server at ``address``: the status and
    the JSON answer (status 0 when no answer came)."""
    request = urllib.request.Request(
        f"{address}api/submissions",
        data=body,
        headers={"Authorization": f"Bearer {token}"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())
    except (urllib.error.URLError, ConnectionError, TimeoutError) as error:
        return 0, {"detail": str(error)}


def start(*args: str | Path) -> tuple[subprocess.Popen[str], str]:
    """``pitch ARGS`` as a process, and the address from its first line."""
    process = subprocess.Popen(
        [sys.executable, "-m", "pitch_cli", *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    if " at http" not in line:
        process.kill()
        raise AssertionError(f"no address in {line!r}: {process.communicate()[1]}")
    return process, line.split(" at ", 1)[1].split()[0]


def stop(process: subprocess.Popen[str]) -> tuple[int, str, str]:
    """Ctrl-C, then the exit status, the rest of stdout and stderr."""
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=20)
    return process.returncode, out, err
