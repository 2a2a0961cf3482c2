"""Talking to a Pitch Arena server (``pitch serve``) as an author: the token, and requests
whose every failure is one line.

The token comes from ``--token``, else ``PITCH_TOKEN``, else the file named by
``--token-file`` or ``PITCH_TOKEN_FILE`` (so that it need not appear in a command line or
a shell's history). Uses the standard library's HTTP client: the CLI needs no other.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Annotated, Any

import typer

from pitch_referee.errors import PitchError

ServerOption = Annotated[
    str,
    typer.Option(
        "--server",
        envvar="PITCH_SERVER",
        help="The server's address, e.g. https://arena.example.org (from `pitch serve`).",
    ),
]
TokenOption = Annotated[
    str | None,
    typer.Option(
        "--token",
        envvar="PITCH_TOKEN",
        help="Your token (pa_...), from `pitch ladder author add`; better in PITCH_TOKEN_FILE.",
        show_default=False,
    ),
]
TokenFileOption = Annotated[
    Path | None,
    typer.Option(
        "--token-file",
        envvar="PITCH_TOKEN_FILE",
        help="A file holding your token.",
        show_default=False,
    ),
]
TIMEOUT_S = 600.0
"""A submission waits for the bot's smoke game and conformance check."""


def token_of(token: str | None, token_file: Path | None) -> str:
    """The token given, or read from its file.

    Raises:
        PitchError: none given, or the file cannot be read or is empty.
    """
    if token:
        return token.strip()
    if token_file is None:
        raise PitchError(
            "no token: give --token, or set PITCH_TOKEN or PITCH_TOKEN_FILE "
            "(the ladder's operator makes one with `pitch ladder author add NAME`)"
        )
    try:
        text = token_file.read_text().strip()
    except OSError as error:
        raise PitchError(f"cannot read the token file {token_file}: {error.strerror}") from None
    if not text:
        raise PitchError(f"the token file {token_file} is empty")
    return text


def call(
    method: str,
    server: str,
    path: str,
    token: str | None = None,
    body: bytes | None = None,
    content_type: str = "application/octet-stream",
    *,
    raw: bool = False,
) -> tuple[int, Any]:
    """``method`` ``server``/``path``: the status and the JSON answer (2xx and 422 only),
    or (``raw``) the answer as text.

    Raises:
        PitchError: the server cannot be reached, or answered any other error (its reason,
            on one line).
    """
    if not server:
        raise PitchError("no server: give --server URL, or set PITCH_SERVER")
    url = server.rstrip("/") + path
    if not url.startswith(("http://", "https://")):
        raise PitchError(f"--server {server}: give an http:// or https:// address")
    headers = {"Accept": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    if body is not None:
        headers["Content-Type"] = content_type
    request = urllib.request.Request(url, data=body, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as answer:
            data = answer.read()
            return answer.status, data.decode(errors="replace") if raw else json.loads(data)
    except urllib.error.HTTPError as error:
        detail = _detail(error)
        if error.code == 422:
            return 422, {"detail": detail}
        raise PitchError(f"{server} answered {error.code}: {detail}") from None
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise PitchError(f"cannot reach {server}: {reason}") from None


def _detail(error: urllib.error.HTTPError) -> str:
    try:
        return str(json.loads(error.read())["detail"])
    except (ValueError, KeyError, TypeError):
        return error.reason or "no reason given"
