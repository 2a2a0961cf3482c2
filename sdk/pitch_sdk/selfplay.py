"""Playing games in-process: four ``Bot`` objects, one engine, one record per game.

The researchers' entry point (``pitch simulate``) and the input of many tests. No
processes, no gRPC; the referee plays the same games with bots in other processes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .bot import Bot
from .cards import SEATS, Seat
from .options import RuleOptions
from .record import GameRecorder
from .rules import CHANCE


def play_game(
    bots: Sequence[Bot],
    seed: int | str,
    options: RuleOptions | None = None,
    first_dealer: Seat = 0,
) -> dict[str, Any]:
    """Play one game between ``bots`` (indexed by seat) and return its record.

    Forced decisions (a single legal option) are taken without asking the bot.
    """
    players = [
        {"seat": seat, "name": bots[seat].name, "version": bots[seat].version} for seat in SEATS
    ]
    recorder = GameRecorder(options, seed=seed, first_dealer=first_dealer, players=players)
    state = recorder.state
    for seat in SEATS:
        bots[seat].on_game_start(seat, {"rules": state.options.to_dict(), "players": players})
    while not state.is_over():
        seat = state.current_seat()
        if seat == CHANCE:
            recorder.deal()
            continue
        legal = state.legal_actions()
        action = legal[0] if len(legal) == 1 else bots[seat].decide(state.view(seat))
        recorder.decide(action)
    for seat in SEATS:
        bots[seat].on_game_end(state.view(seat))
    return recorder.record()
