"""Slow clients cut: a request's headers and its body each have a time to arrive.

uvicorn bounds an idle kept-alive connection (``timeout_keep_alive``), the connections
served at once (``limit_concurrency``) and a header's size
(``h11_max_incomplete_event_size``), but not the time a request takes to arrive: a client
that trickles its headers a byte at a time, or never sends a byte, held its connection
for ever. Two pieces close that:

- ``HeaderTimeoutProtocol``, uvicorn's h11 protocol with a timer from the moment a
  connection opens (or a kept-alive one gets the first byte of its next request) to the
  end of the request's headers: the connection is closed when it fires first.
- ``BodyTimeout``, an ASGI middleware that bounds the time from a request's first read of
  its body to the body's end: past it the client gets a 408 and the connection closes,
  and the application sees the client as gone.

Once a request is whole, nothing here limits how long the answer takes (a live game's
event stream lasts as long as its game).
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

Scope = dict[str, Any]
Message = dict[str, Any]


class HeaderTimeoutProtocol(H11Protocol):
    """uvicorn's h11 protocol, closing a connection whose request headers take longer than
    ``header_timeout_s`` (a class attribute, set by ``with_header_timeout``)."""

    header_timeout_s: float = 10.0
    _header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_header_timer()

    def data_received(self, data: bytes) -> None:
        if self._header_timer is None and self.conn.their_state is h11.IDLE:
            self._arm_header_timer()  # the first byte of a kept-alive connection's next request
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:
            self._disarm_header_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_header_timer()
        super().connection_lost(exc)

    def _arm_header_timer(self) -> None:
        self._disarm_header_timer()
        self._header_timer = self.loop.call_later(self.header_timeout_s, self._headers_too_slow)

    def _disarm_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_too_slow(self) -> None:
        self._header_timer = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.logger.info(
                "closed a connection whose request headers took over %ss", self.header_timeout_s
            )
            self.transport.close()


def with_header_timeout(seconds: float) -> type[HeaderTimeoutProtocol]:
    """A ``HeaderTimeoutProtocol`` class cutting headers at ``seconds`` (uvicorn's ``http``)."""
    return type("HeaderTimeoutProtocol", (HeaderTimeoutProtocol,), {"header_timeout_s": seconds})


class BodyTimeout:
    """ASGI middleware: a request's body must arrive within ``seconds`` of the first read."""

    def __init__(self, app: Any, seconds: float) -> None:
        self.app = app
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        loop = asyncio.get_running_loop()
        deadline: float | None = None
        whole = False
        cut = False
        started = False

        async def timed_receive() -> Message:
            nonlocal deadline, whole, cut
            if whole or cut:
                return await receive() if not cut else {"type": "http.disconnect"}
            if deadline is None:
                deadline = loop.time() + self.seconds
            try:
                message = await asyncio.wait_for(receive(), max(0.0, deadline - loop.time()))
            except TimeoutError:
                cut = True
                if not started:
                    await _too_slow(send, self.seconds)
                return {"type": "http.disconnect"}
            if message["type"] != "http.request" or not message.get("more_body", False):
                whole = True
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if cut:  # the client has had its 408; the application's answer goes nowhere
                return
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        await self.app(scope, timed_receive, guarded_send)


async def _too_slow(send: Any, seconds: float) -> None:
    body = f'{{"detail":"the request\'s body took over {seconds:g} s to arrive"}}'.encode()
    await send(
        {
            "type": "http.response.start",
            "status": 408,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
