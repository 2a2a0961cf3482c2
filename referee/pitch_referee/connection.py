"""The referee's gRPC side: the server, and one ``BotConnection`` per bot stream.

Each bot holds one bidirectional stream (``Referee.Play``). The servicer checks the
hello, hands the stream to whoever is waiting for that token as a ``BotConnection``,
then pumps messages both ways. A connection has at most one decision request
outstanding (see ``BotConnection.deliver`` for answers to other requests). The
referee reads each message's bytes itself, so that a message over
``MAX_MESSAGE_BYTES`` is a fault of its own. ``grpc`` errors never leave this module:
they become ``BotError``s on the pending request.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from dataclasses import dataclass

import grpc

from pitch_sdk.faults import FaultKind
from pitch_sdk.protocol import messages as pb
from pitch_sdk.protocol import services
from pitch_sdk.wire import PROTOCOL_VERSION

from . import __version__, framing
from .errors import BotError, BotProtocolError, BotStartError, BotTerminatedError, BotTimeoutError

log = logging.getLogger("pitch_referee")

REFEREE_NAME = f"pitch-referee {__version__}"

MAX_MESSAGE_BYTES = 4 * 1024 * 1024
"""The largest message a bot may send (the protocol's limit, stated in pitch.proto)."""
GRPC_RECEIVE_LIMIT_BYTES = 4 * MAX_MESSAGE_BYTES
"""gRPC's own receive limit: a guard for the referee's memory, above the protocol's.

gRPC cuts a stream that carries a message over its limit without telling the server
why, so the referee could not name that fault. It lets messages up to this size
through, and the stream reader reports those over ``MAX_MESSAGE_BYTES`` as
``oversized``; a message over this size still cuts the stream (a ``disconnected``
fault)."""


@dataclass(frozen=True)
class OversizedMessage:
    """What the stream reader gets instead of a message over ``MAX_MESSAGE_BYTES``."""

    size: int


def parse_bot_message(data: bytes) -> pb.BotMessage | OversizedMessage:
    """The server's deserializer: a ``BotMessage``, unless the bytes are too many."""
    if len(data) > MAX_MESSAGE_BYTES:
        return OversizedMessage(len(data))
    return pb.BotMessage.FromString(data)


class BotConnection:
    """One bot's stream as the referee sees it: send messages, ask for decisions."""

    def __init__(self, name: str, version: str) -> None:
        self.name = name
        self.version = version
        self.outbox: asyncio.Queue[pb.RefereeMessage | bytes | None] = asyncio.Queue()
        """What goes to the bot, in order: messages, or their bytes (``framing``)."""
        self.closed = asyncio.Event()
        self.close_reason = ""
        self._last_request_id = 0
        self._pending: tuple[int, asyncio.Future[pb.Answer]] | None = None
        self._timed_out: set[int] = set()
        """Requests that timed out unanswered: each may still get one late answer."""
        self._error: BotError | None = None

    def send(self, message: pb.RefereeMessage | bytes) -> None:
        """Send ``message`` (or a ``RefereeMessage``'s bytes) after what was sent before."""
        if not self.closed.is_set():
            self.outbox.put_nowait(message)

    async def ask(
        self, request: pb.DecisionRequest, timeout_s: float, *, encoded: bytes = b""
    ) -> tuple[pb.Answer, float]:
        """Send a decision request and wait for its answer; returns (answer, seconds taken).
        ``encoded``: more of the request's fields, already encoded (``framing``: its legal
        actions, view and events), sent with it.

        Raises:
            BotTimeoutError: no answer within ``timeout_s``.
            BotTerminatedError: the stream closed.
            BotProtocolError: the bot sent something it should not have.
        """
        if self._error is not None:
            error, self._error = self._error, None
            raise error
        if self.closed.is_set():
            raise BotTerminatedError(self.close_reason or "the bot's stream is closed")
        self._last_request_id += 1
        request.request_id = self._last_request_id
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[pb.Answer] = loop.create_future()
        self._pending = (self._last_request_id, answer)
        started = time.perf_counter()
        self.outbox.put_nowait(
            framing.field(framing.REQUEST, request.SerializeToString() + encoded)
        )
        # A timer on the answer itself, not asyncio.wait_for: that wraps the future in
        # another and costs a turn of the loop and a fifth of the referee's own time
        # per decision (bench/RESULTS.md).
        timer = loop.call_later(timeout_s, self._expire, answer, request.request_id, timeout_s)
        try:
            result = await answer
        finally:
            timer.cancel()
            self._pending = None
        return result, time.perf_counter() - started

    def _expire(self, answer: asyncio.Future[pb.Answer], request_id: int, timeout_s: float) -> None:
        """The request's time is up: it fails as a timeout, and its answer, if it comes
        later, is late rather than wrong."""
        if not answer.done():
            self._timed_out.add(request_id)
            answer.set_exception(BotTimeoutError(f"no answer within {timeout_s * 1000:.0f} ms"))

    def deliver(self, message: pb.BotMessage | OversizedMessage) -> None:
        """Take a message from the bot (called by the stream reader).

        An answer to the pending request is its result. An answer to a request that
        timed out is late, not wrong: the bot could not know, so it is ignored (once).
        An answer to a request already answered is ``stale_answer`` if a newer request
        is waiting (the bot is answering the wrong one, which would otherwise end as a
        timeout), and ignored if none is. An answer to a request never sent is
        ``wrong_request``; anything but an answer, or too many bytes, fails the pending
        request (or the next one) too.
        """
        if isinstance(message, OversizedMessage):
            self._fail(
                BotProtocolError(
                    f"a message of {message.size} bytes, over the limit of "
                    f"{MAX_MESSAGE_BYTES} bytes",
                    kind=FaultKind.OVERSIZED,
                )
            )
            return
        kind = message.WhichOneof("message")
        if kind != "answer":
            self._fail(BotProtocolError(f"expected an answer, the bot sent {kind or 'nothing'}"))
            return
        request_id = message.answer.request_id
        pending = self._pending
        pending_id = pending[0] if pending is not None else None
        if pending is not None and request_id == pending_id:
            if not pending[1].done():
                pending[1].set_result(message.answer)
        elif request_id in self._timed_out:
            self._timed_out.discard(request_id)
            log.debug("%s: ignoring a late answer to request %d", self.name, request_id)
        elif not 1 <= request_id <= self._last_request_id:
            self._fail(
                BotProtocolError(
                    f"answer to request {request_id}, which was never sent "
                    f"(the last request was {self._last_request_id})",
                    kind=FaultKind.WRONG_REQUEST,
                )
            )
        elif pending_id is not None:
            self._fail(
                BotProtocolError(
                    f"answer to request {request_id}, which was already answered, "
                    f"while request {pending_id} waits",
                    kind=FaultKind.STALE_ANSWER,
                )
            )
        else:
            log.debug("%s: ignoring a repeated answer to request %d", self.name, request_id)

    def lost(self, reason: str, error: BotError | None = None) -> None:
        """The stream is gone: fail the pending request, refuse later ones."""
        if self.closed.is_set():
            return
        self.close_reason = reason
        self.closed.set()
        self._fail(error or BotTerminatedError(reason))
        self.outbox.put_nowait(None)

    def _fail(self, error: BotError) -> None:
        if self._pending is not None and not self._pending[1].done():
            self._pending[1].set_exception(error)
        elif self._error is None:
            self._error = error


class RefereeService(services.RefereeServicer):
    """Accepts bot streams and gives each to whoever expects its token."""

    def __init__(self) -> None:
        self._expected: dict[str, asyncio.Future[BotConnection]] = {}

    def expect(self) -> tuple[str, asyncio.Future[BotConnection]]:
        """A fresh token, and the future that resolves when a bot presents it."""
        token = secrets.token_urlsafe(16)
        future: asyncio.Future[BotConnection] = asyncio.get_running_loop().create_future()
        self._expected[token] = future
        return token, future

    def forget(self, token: str) -> None:
        self._expected.pop(token, None)

    async def Play(self, request_iterator: object, context: grpc.aio.ServicerContext) -> None:
        hello = await self._hello(context)
        future = self._expected.pop(hello.token, None)
        if future is None or future.done():
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "unknown or already used token")
        if hello.protocol_version != PROTOCOL_VERSION:
            reason = (
                f"protocol version {hello.protocol_version} is not supported; "
                f"this referee speaks version {PROTOCOL_VERSION}"
            )
            future.set_exception(BotStartError(reason))
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION, reason)
        connection = BotConnection(hello.name, hello.version)
        await context.write(
            pb.RefereeMessage(
                welcome=pb.Welcome(protocol_version=PROTOCOL_VERSION, referee=REFEREE_NAME)
            )
        )
        future.set_result(connection)
        reader = asyncio.create_task(self._read(context, connection))
        try:
            while (message := await connection.outbox.get()) is not None:
                await context.write(message)
                if _is_shutdown(message):
                    break
        except (grpc.RpcError, asyncio.CancelledError, grpc.aio.AioRpcError):
            pass
        finally:
            reader.cancel()
            connection.lost("the stream closed")

    async def _hello(self, context: grpc.aio.ServicerContext) -> pb.Hello:
        try:
            first = await context.read()
        except Exception:  # a message that does not parse: nothing to greet
            first = None
        if not isinstance(first, pb.BotMessage) or first.WhichOneof("message") != "hello":
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "the first message must be Hello")
        return first.hello

    async def _read(self, context: grpc.aio.ServicerContext, connection: BotConnection) -> None:
        try:
            while True:
                message = await context.read()
                # grpc-stubs 1.53 predates grpc.aio.EOF (grpcio has it since 1.32)
                if message is grpc.aio.EOF:  # type: ignore[attr-defined]
                    connection.lost("the bot closed its stream")
                    return
                connection.deliver(message)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # grpc reports undecodable bytes as a generic failure
            connection.lost(
                f"unreadable message from the bot ({type(error).__name__})",
                BotProtocolError(f"the bot sent a message that does not parse: {error}"),
            )


def _is_shutdown(message: pb.RefereeMessage | bytes) -> bool:
    return isinstance(message, pb.RefereeMessage) and message.WhichOneof("message") == "shutdown"


def _serialize(message: pb.RefereeMessage | bytes) -> bytes:
    """The server's serializer: a message, or bytes the referee framed itself."""
    return message if isinstance(message, bytes) else message.SerializeToString()


async def start_server(address: str) -> tuple[grpc.aio.Server, RefereeService, str]:
    """Serve the referee on ``address`` (``unix:PATH`` or ``HOST:PORT``, port 0 = any).

    Returns the server, its service and the address bots should connect to.
    """
    options = [
        ("grpc.so_reuseport", 0),
        ("grpc.max_receive_message_length", GRPC_RECEIVE_LIMIT_BYTES),
    ]
    server = grpc.aio.server(options=options)
    service = RefereeService()
    _add_service(service, server)
    port = server.add_insecure_port(address)
    await server.start()
    if address.startswith("unix:"):
        return server, service, address
    host = address.rsplit(":", 1)[0]
    return server, service, f"{host}:{port}"


def _add_service(service: RefereeService, server: grpc.aio.Server) -> None:
    """Register ``service`` as the generated code does, but with the size-checking parser."""
    handlers = {
        "Play": grpc.stream_stream_rpc_method_handler(
            service.Play,
            request_deserializer=parse_bot_message,
            response_serializer=_serialize,
        )
    }
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler("pitch.v1.Referee", handlers),)
    )
    # grpc-stubs 1.53 predates Server.add_registered_method_handlers (grpcio 1.63)
    server.add_registered_method_handlers("pitch.v1.Referee", handlers)  # type: ignore[attr-defined]


async def stop_server(server: grpc.aio.Server) -> None:
    with contextlib.suppress(Exception):
        await server.stop(grace=0.5)
