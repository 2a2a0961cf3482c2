"""The timing grid holds every message whose time could carry a partner's think time: each
decision request, and the game's end, waits for a tick of the grid before it is sent."""

from __future__ import annotations

import asyncio

import pytest

from pitch_referee.game_loop import TimingGrid, play_game
from pitch_sdk.options import RuleOptions
from pitch_sdk.protocol import messages as pb


class AnsweringBot:
    """A ``BotProcess`` as ``play_game`` sees it: answers at once with its first legal
    action, and notes each request and the game's end in ``sent``."""

    name = "answering"
    log_name = None
    start_error = None
    connection = None

    def __init__(self, sent: list[str]) -> None:
        self.sent = sent

    def send(self, message: pb.RefereeMessage | bytes) -> None:
        if isinstance(message, bytes):  # framed by the referee (``framing``)
            message = pb.RefereeMessage.FromString(message)
        if message.HasField("game_end"):
            self.sent.append("end")

    async def ask(
        self, request: pb.DecisionRequest, timeout_s: float, *, encoded: bytes = b""
    ) -> tuple[pb.Answer, float]:
        self.sent.append("request")
        whole = pb.DecisionRequest.FromString(request.SerializeToString() + encoded)
        return pb.Answer(action=whole.legal_actions[0]), 0.001

    def settle_log(self) -> None:
        """Nothing to settle: it writes no log."""


def test_the_game_end_waits_for_a_tick_of_the_grid_like_every_request(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sent: list[str] = []

    async def tick(grid: TimingGrid) -> None:
        sent.append("tick")

    monkeypatch.setattr(TimingGrid, "release", tick)
    result = asyncio.run(
        play_game(
            [AnsweringBot(sent) for _ in range(4)],  # type: ignore[misc]
            game_id="g",
            seed=5,
            options=RuleOptions(hand_cap=1),
            timing_grid_ms=25,
        )
    )
    assert not result.faults and sent.count("request") > 4
    assert all(sent[at - 1] == "tick" for at, kind in enumerate(sent) if kind == "request")
    # Sent at once, the ends came as long after the last request as its bot thought.
    assert sent[-5:] == ["tick", "end", "end", "end", "end"], sent[-8:]
