"""The viewer's one line per hand, read off the timeline (pitch_web.hand_summary)."""

from __future__ import annotations

from itertools import pairwise

from pitch_sdk.bots import GreedyBot
from pitch_sdk.options import RuleOptions
from pitch_sdk.selfplay import play_game
from pitch_web.hand_summary import hand_rows
from pitch_web.timeline import timeline


def test_each_hand_row_carries_its_deal_step_contract_and_score_and_a_cut_hand_is_unscored():
    record = play_game([GreedyBot() for _ in range(4)], seed=7, options=RuleOptions(hand_cap=3))
    steps = timeline(record)["steps"]
    rows = hand_rows(steps)
    assert [row.hand for row in rows] == [1, 2, 3]
    assert all(steps[row.step]["k"] == "deal" for row in rows)
    assert record.result is not None and rows[-1].scores == record.result.scores
    assert all(row.scores == after.scores_before for row, after in pairwise(rows))
    cut = hand_rows(steps[: rows[-1].step + 5])  # the last hand's deal and its four bids
    assert (
        cut[-1].bid == rows[-1].bid
        and cut[-1].made is None
        and cut[-1].scores is None
        and cut[-1].trump is None
    )
    assert cut[:-1] == rows[:-1]
