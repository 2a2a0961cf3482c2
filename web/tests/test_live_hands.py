"""A live page's hand table and score chart grown by updates (pitch_web.live_hands): from
any moment of a game to any later one, the update turns the rows shown into the later
moment's rows, and the chart into its chart."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pitch_sdk.bots import GreedyBot
from pitch_sdk.options import RuleOptions
from pitch_sdk.selfplay import play_game
from pitch_web.hand_summary import hand_rows
from pitch_web.live_hands import hands_update
from pitch_web.timeline import timeline

TIMELINE = timeline(
    play_game([GreedyBot() for _ in range(4)], seed=11, options=RuleOptions(hand_cap=4))
)
STEPS, PLAYERS = TIMELINE["steps"], TIMELINE["header"]["players"]


def shown(steps: list[dict[str, Any]]) -> tuple[list[str], str]:
    """The rows' and chart's HTML that a page drawn at the end of ``steps`` shows."""
    update, _ = hands_update(steps, PLAYERS, [])
    return (update["rows"], update.get("chart", "")) if update else ([], "")


@settings(max_examples=60, deadline=None)
@given(st.integers(0, len(STEPS)), st.integers(0, len(STEPS)))
def test_an_update_turns_the_rows_and_chart_shown_into_a_later_moments(a, b):
    early, late = sorted((a, b))
    rows, chart = shown(STEPS[:early])
    update, sent = hands_update(STEPS[:late], PLAYERS, hand_rows(STEPS[:early]))
    assert sent == hand_rows(STEPS[:late])
    if update is None:
        assert (rows, chart) == shown(STEPS[:late])
        return
    assert update["from"] <= len(rows)
    rows = rows[: update["from"]] + update["rows"]
    chart = update.get("chart", chart)
    assert (rows, chart) == shown(STEPS[:late])


def test_a_step_that_changes_no_hand_sends_nothing_and_a_scored_hand_sends_the_chart():
    deals = [i for i, step in enumerate(STEPS) if step["k"] == "deal"]
    bid = deals[1] + 1  # hand 2's first bid: no row changes
    update, _ = hands_update(STEPS[: bid + 1], PLAYERS, hand_rows(STEPS[:bid]))
    assert update is None
    dealt, _ = hands_update(STEPS[: deals[1] + 1], PLAYERS, hand_rows(STEPS[: deals[1]]))
    assert dealt is not None and dealt["from"] == 1 and len(dealt["rows"]) == 1
    assert "chart" not in dealt  # a hand dealt: its row, "not scored"; the chart is as it was
    assert "not scored" in dealt["rows"][0]
    scored = next(i for i, step in enumerate(STEPS) if "scored" in step)
    ended, _ = hands_update(STEPS[: scored + 1], PLAYERS, hand_rows(STEPS[:scored]))
    assert ended is not None and ended["from"] == 0 and 'data-testid="bid-mark"' in ended["chart"]
