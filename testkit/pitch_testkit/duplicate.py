"""Duplicate deal pairs for the comparison tests: a bot that plays another card once, the
two games of a pair played by the engine, and a finished match folder of such pairs."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from pitch_sdk.actions import Play
from pitch_sdk.bots import GreedyBot
from pitch_sdk.gamerecord import Fault, GameRecord
from pitch_sdk.options import RuleOptions
from pitch_sdk.record import write_record
from pitch_sdk.selfplay import play_game
from pitch_sdk.views import PlayerView
from pitch_testkit.samples import timeout_fault

HANDS = RuleOptions(hand_cap=3)
CONTRARY_HAND = 2


class Contrary(GreedyBot):
    """The greedy bot, but for its first card asked for in one hand: another legal one."""

    name = "contrary"

    def __init__(self, hand: int) -> None:
        super().__init__()
        self.hand, self.done = hand, False

    def play(self, view: PlayerView, legal: Sequence[Play]) -> Play:
        choice = super().play(view, legal)
        if view.hand_number == self.hand and not self.done:
            self.done = True
            return next(action for action in legal if action != choice)
        return choice


def duplicate_pair(bot_a: Any, bot_b: Any, seed: int = 11) -> tuple[dict, dict]:
    """Games a and b of a deal pair: the same deals, bot A in seats 0 and 2, then 1 and 3."""
    table_a = play_game([bot_a(), bot_b(), bot_a(), bot_b()], seed, HANDS, first_dealer=1)
    table_b = play_game([bot_b(), bot_a(), bot_b(), bot_a()], seed, HANDS, first_dealer=1)
    return table_a, table_b


def write_match(root: Path, records: list[GameRecord], faults: int = 0) -> Path:
    """A finished match folder of ``records`` (pairs in order), game ``pair-00001-b``
    with ``faults`` timeouts; its summary, as ``pitch match`` writes one."""
    (root / "games").mkdir(parents=True)
    bots = {"a": {"name": "contrary", "version": "1"}, "b": {"name": "greedy", "version": "1"}}
    header = {"format": "pitch-match", "version": 1, "bots": bots, "settings": {}}
    (root / "match.json").write_text(json.dumps(header))
    entries = []
    for n, record in enumerate(records):
        game = f"pair-{n // 2:05d}-{'ab'[n % 2]}"
        if game == "pair-00001-b" and faults:
            fault = Fault.from_json(timeout_fault(1), "fault")
            record = replace(record, faults=(fault,) * faults)
        write_record(record, root / "games" / f"{game}.json.gz")
        assert record.result is not None
        scores, a_team = record.result.scores, n % 2
        a_score = {True: 1.0, False: 0.0}[scores[a_team] > scores[1 - a_team]]
        if scores[0] == scores[1]:
            a_score = 0.5
        entries.append(
            {"game": game, "record": f"games/{game}.json.gz", "a_team": a_team,
             "a_score": a_score, "scores": scores, "termination": "hand_cap"}
        )  # fmt: skip
    summary = {"bots": bots, "status": "finished", "games_planned": len(records),
               "games_played": len(records), "games": entries}  # fmt: skip
    (root / "summary.json").write_text(json.dumps(summary))
    return root
