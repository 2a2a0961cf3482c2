"""A bot that misbehaves on purpose, one way per command-line mode (for the referee tests).

Usage: python misbehaving_bot.py MODE [K]. Modes: crash K, raise K, sleep, illegal,
malformed, wrong_id, stale, oversized, hang_up, exit_early, never_connect, flood,
ignore_shutdown, well (plays randomly).
"""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Callable

import grpc

from pitch_sdk.actions import Bid, Play
from pitch_sdk.bots import RandomBot
from pitch_sdk.protocol import messages as pb
from pitch_sdk.run import run
from pitch_sdk.views import PlayerView

MODE = sys.argv[1]
K = int(sys.argv[2]) if len(sys.argv) > 2 else 1


class Misbehaving(RandomBot):
    name = f"misbehaving-{MODE}"
    decisions = 0

    def decide(self, view: PlayerView):
        self.decisions += 1
        if self.decisions >= K:
            if MODE == "crash":
                print("about to crash", file=sys.stderr, flush=True)
                os._exit(3)
            if MODE == "raise":
                raise ValueError(f"raised at decision {K}")
            if MODE == "sleep":
                time.sleep(3600)
            if MODE == "illegal":
                held = [card for card in range(54) if not view.hand >> card & 1]
                return Play(held[0]) if view.decision.name == "PLAY" else Bid(3)
            if MODE == "flood" and self.decisions == K:
                chunk = "x" * (1 << 20)
                for _ in range(200):
                    sys.stderr.write(chunk)
                sys.stderr.flush()
        return super().decide(view)


def raw_stream(reply: Callable[[pb.DecisionRequest], bytes | None]) -> None:
    """Speak the protocol by hand to send what the SDK never would: ``reply(request)``, or
    the end of the stream where it is ``None``."""
    channel = grpc.insecure_channel(os.environ["PITCH_ADDRESS"])
    play = channel.stream_stream(
        "/pitch.v1.Referee/Play",
        request_serializer=lambda raw: raw,
        response_deserializer=pb.RefereeMessage.FromString,
    )
    import queue

    outbox: queue.SimpleQueue = queue.SimpleQueue()
    hello = pb.Hello(token=os.environ["PITCH_TOKEN"], name="raw", version="0", protocol_version=1)
    outbox.put(pb.BotMessage(hello=hello).SerializeToString())

    def messages():
        while (message := outbox.get()) is not None:
            yield message

    for message in play(messages(), wait_for_ready=True):
        if message.WhichOneof("message") == "request":
            outbox.put(reply(message.request))
        if message.WhichOneof("message") == "shutdown":
            break
    outbox.put(None)


def answer(request: pb.DecisionRequest, request_id: int) -> bytes:
    """A legal answer to ``request``, labelled with ``request_id``."""
    reply = pb.Answer(request_id=request_id, action=request.legal_actions[0])
    return pb.BotMessage(answer=reply).SerializeToString()


def padded(message: bytes, size: int) -> bytes:
    """``message`` grown to about ``size`` bytes by an unknown field (number 15)."""
    padding = b"x" * size
    length = bytearray()
    rest = len(padding)
    while rest >= 0x80:
        length.append(rest & 0x7F | 0x80)
        rest >>= 7
    length.append(rest)
    return message + bytes([15 << 3 | 2]) + bytes(length) + padding


if MODE == "exit_early":
    sys.exit(5)
elif MODE == "never_connect":
    time.sleep(3600)
elif MODE == "never_connect_stubborn":  # and ignores SIGTERM: only SIGKILL ends it
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    time.sleep(3600)
elif MODE == "malformed":
    raw_stream(lambda request: b"\xff\xff\xff\xff not a protobuf")
elif MODE == "wrong_id":
    raw_stream(lambda request: answer(request, request.request_id + 100))
elif MODE == "stale":  # answers the first request, then always the one before
    raw_stream(lambda request: answer(request, max(1, request.request_id - 1)))
elif MODE == "oversized":  # a legal answer, padded to 5 MiB
    raw_stream(lambda request: padded(answer(request, request.request_id), 5 << 20))
elif MODE == "hang_up":  # ends its stream at the first request, and lives on
    raw_stream(lambda request: None)
    time.sleep(3600)
elif MODE == "ignore_shutdown":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    run(RandomBot())
    time.sleep(3600)
else:
    raise SystemExit(run(Misbehaving()))
