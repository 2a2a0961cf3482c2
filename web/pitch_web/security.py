"""What the server adds so that it can face the open internet, in one place.

- ``SecurityHeaders``: every answer carries a Content-Security-Policy that lets a page
  run only the site's own script files (no inline script, no inline style attribute, no
  frame around it), ``nosniff``, a Referrer-Policy and ``X-Frame-Options`` for old
  browsers; and a redirect's ``Location`` is made relative, so that a forged ``Host``
  header is never reflected into it (Starlette's trailing-slash redirect builds it from
  the request's URL).
- ``public_message``: an error message as a client may see it, with no server path.
- ``RedactTokens``: a logging filter that cuts tokens out of logged request lines
  (``pitch serve`` puts it on uvicorn's access log: a token sent in a query string is
  refused, but was logged whole).

It imports no web framework: the middleware is plain ASGI.
"""

from __future__ import annotations

import logging
import re
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",  # Swagger UI's icons are data: SVG in its stylesheet
        "font-src 'self'",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)
"""The policy of every answer: the site's own files, and nothing inline."""

HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
)
"""Added to every answer that does not set its own."""


class SecurityHeaders:
    """ASGI middleware: ``HEADERS`` on every HTTP answer, and relative redirects."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                headers = [
                    (name, relative_location(value) if name.lower() == b"location" else value)
                    for name, value in message.get("headers", ())
                ]
                present = {name.lower() for name, _ in headers}
                headers += [(name, value) for name, value in HEADERS if name not in present]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def relative_location(location: bytes) -> bytes:
    """A redirect's target as a path on this site: no scheme, no host, and no leading
    ``//`` or ``/\\`` that a browser would take for another host.

    >>> relative_location(b"http://evil.example/api/live?x=1")
    b'/api/live?x=1'
    >>> relative_location(b"http://localhost//evil.example/a")
    b'/evil.example/a'
    """
    text = location.decode("latin-1")
    parts = urlsplit(text)
    path = "/" + parts.path.lstrip("/\\")
    return urlunsplit(("", "", path, parts.query, parts.fragment)).encode("latin-1")


_ABSOLUTE_PATH = re.compile(r"(?<![\w.:/])/(?:[^\s'\"/:]+/)+([^\s'\":/]+)")
"""An absolute path of two parts or more, outside a URL (``/srv/arena/x.json``)."""


def public_message(message: str, folder: Path | None = None) -> str:
    """``message`` for a client: paths inside ``folder`` (the folder served) relative to
    it, and any other absolute path cut to its last part.

    >>> public_message("/srv/arena/games/g.json: not JSON", Path("/srv/arena"))
    'games/g.json: not JSON'
    >>> public_message("cannot open /etc/pitch/secret.toml")
    'cannot open secret.toml'
    """
    if folder is not None:
        for root in {str(folder), str(folder.resolve())}:
            message = message.replace(root.rstrip("/") + "/", "")
    return _ABSOLUTE_PATH.sub(lambda found: found.group(1), message)


_TOKEN = re.compile(r"pa_[A-Za-z0-9_\-]+")
_SECRET_PARAMETER = re.compile(
    r"((?:^|[?&;])(?:token|access_token|api_key|password|secret)=)[^&;\s\"]*", re.I
)


def redact(text: str) -> str:
    """``text`` with authors' tokens (``pa_...``) and secret-looking query values cut.

    >>> redact('GET /api/games?limit=5&token=pa_abc_def HTTP/1.1')
    'GET /api/games?limit=5&token=[redacted] HTTP/1.1'
    """
    return _TOKEN.sub("[redacted]", _SECRET_PARAMETER.sub(r"\1[redacted]", text))


class RedactTokens(logging.Filter):
    """Cuts tokens out of a log record's message and arguments (uvicorn's access log
    passes the request's path and query as an argument)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(redact(arg) if isinstance(arg, str) else arg for arg in record.args)
        elif isinstance(record.args, dict):
            record.args = {
                key: redact(value) if isinstance(value, str) else value
                for key, value in record.args.items()
            }
        return True
