"""``run(bot)``: connect a ``Bot`` to the referee and play until told to stop.

The referee starts bot processes with ``PITCH_ADDRESS`` and ``PITCH_TOKEN`` in the
environment; a bot started by hand (say, under a debugger) gets them from the command
line instead: ``python bot.py --address unix:///tmp/.../referee.sock --token abc``. The
bot logs to stderr, which the referee keeps in a per-seat log file.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from collections.abc import Sequence

import grpc

from ._proto import pitch_pb2 as pb
from ._proto import pitch_pb2_grpc
from .bot import Bot, ask, listens, notify, start_game
from .table import TimeBudget
from .wire import (
    PROTOCOL_VERSION,
    action_from_proto,
    event_from_proto,
    game_start_from_proto,
    set_action,
    view_from_proto,
)

log = logging.getLogger("pitch_sdk.run")
"""The SDK's logger: to stderr, which the referee keeps in the seat's log file."""

_CHANNEL_OPTIONS = [
    # Retry quickly if the referee is not listening yet: the default first backoff is 1 s.
    ("grpc.initial_reconnect_backoff_ms", 20),
    ("grpc.min_reconnect_backoff_ms", 20),
    ("grpc.max_reconnect_backoff_ms", 500),
]


def run(bot: Bot, argv: Sequence[str] | None = None) -> int:
    """Play for the referee until it says stop; returns the process exit status.

    Typical use, at the end of a bot file: ``raise SystemExit(run(MyBot()))``.
    """
    args = _arguments(argv)
    logging.basicConfig(
        stream=sys.stderr, level=args.log_level, format="%(asctime)s %(levelname)s %(message)s"
    )
    if not args.address or not args.token:
        log.error(
            "no referee to connect to: set PITCH_ADDRESS and PITCH_TOKEN or pass "
            "--address and --token (the referee prints them for bots started by hand)"
        )
        return 2
    return asyncio.run(_connect_and_play(bot, args.address, args.token, args.connect_timeout))


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="A Pitch Arena bot.")
    parser.add_argument("--address", default=os.environ.get("PITCH_ADDRESS"))
    parser.add_argument("--token", default=os.environ.get("PITCH_TOKEN"))
    parser.add_argument("--log-level", default=os.environ.get("PITCH_LOG_LEVEL", "INFO"))
    parser.add_argument("--connect-timeout", type=float, default=30.0, help="seconds")
    return parser.parse_known_args(argv)[0]  # the bot may take arguments of its own


async def _connect_and_play(bot: Bot, address: str, token: str, connect_timeout: float) -> int:
    """The stream on grpc.aio: a third less CPU per decision than the threaded sync client."""
    async with grpc.aio.insecure_channel(address, options=_CHANNEL_OPTIONS) as channel:
        try:
            await asyncio.wait_for(channel.channel_ready(), connect_timeout)
        except TimeoutError:
            log.error(
                "no referee answered at %s within %g s: check --address", address, connect_timeout
            )
            return 2
        stub = pitch_pb2_grpc.RefereeStub(channel)  # type: ignore[no-untyped-call]  # generated, untyped
        call: Stream = stub.Play()
        try:
            return await _play(bot, call, token)
        except grpc.aio.AioRpcError as error:
            log.error("the referee ended the stream: %s %s", error.code().name, error.details())
            return 1
        finally:
            call.cancel()


Stream = grpc.aio.StreamStreamCall[pb.BotMessage, pb.RefereeMessage]
"""The bot's side of the referee's stream."""


async def _play(bot: Bot, call: Stream, token: str) -> int:
    hello = pb.Hello(
        token=token, name=bot.name, version=bot.version, protocol_version=PROTOCOL_VERSION
    )
    await call.write(pb.BotMessage(hello=hello))
    listening = listens(bot)
    seat = 0
    while isinstance(message := await call.read(), pb.RefereeMessage):  # else grpc.aio.EOF
        kind = message.WhichOneof("message")
        if kind == "request":
            if listening:
                _observe(bot, message.request.events, seat)
            await call.write(_answer(bot, message.request))
        elif kind == "game_start":
            game = game_start_from_proto(message.game_start)
            log.info("game %s: playing seat %d", game.game_id, game.seat)
            seat = game.seat
            start_game(bot, game)
        elif kind == "game_end":
            if listening:
                _observe(bot, message.game_end.events, seat)
            bot.on_game_end(view_from_proto(message.game_end.view))
        elif kind == "shutdown":
            log.info("referee says stop: %s", message.shutdown.reason)
            return 0
        elif kind == "welcome":
            log.info("connected to %s", message.welcome.referee)
    log.info("the referee closed the stream")
    return 0


def _answer(bot: Bot, request: pb.DecisionRequest) -> pb.BotMessage:
    legal = [action_from_proto(action) for action in request.legal_actions]
    budget = TimeBudget(request.time_limit_ms, request.time_reserve_ms)
    action = ask(bot, view_from_proto(request.view, legal), budget)
    reply = pb.BotMessage()  # filled in place: messages made apart are copied in
    reply.answer.request_id = request.request_id
    set_action(reply.answer.action, action)
    return reply


def _observe(bot: Bot, events: Sequence[pb.Event], seat: int) -> None:
    """Events reach only a bot that listens: decoding them is a third of the SDK's work
    per request."""
    for message in events:
        event = event_from_proto(message, seat)
        if event is not None:
            notify(bot, event)
