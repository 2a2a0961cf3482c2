"""The geometry of a game's score chart: both teams' scores after each hand, each hand's
bid marked on its bidding team's line, and the set hands marked apart.

The page draws it as inline SVG from these numbers (``templates/_score_chart.html``), so the
chart needs no script, no library and no network.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from pitch_sdk.cards import team_of

from .hand_summary import HandRow

WIDTH, HEIGHT = 640, 220
LEFT, RIGHT, TOP, BOTTOM = 40, 14, 24, 28
MOST_LABELLED_BIDS = 30
"""Above this many hands the bids are told by each mark's tooltip only: the numbers would
overlap."""


@dataclass(frozen=True)
class Mark:
    """A hand's bid on its bidding team's line: ``made`` False is a set hand."""

    x: float
    y: float
    team: int
    bid: int
    made: bool
    step: int
    title: str


@dataclass(frozen=True)
class Tick:
    at: float
    label: str


@dataclass(frozen=True)
class ScoreChart:
    width: int
    height: int
    left: int
    """Where the plot begins and ends across (the score labels are left of it)."""
    right: int
    lines: tuple[str, str]
    """Each team's polyline points, ``"x,y x,y ..."``, from the start (0 to 0)."""
    marks: list[Mark]
    x_ticks: list[Tick]
    y_ticks: list[Tick]
    zero: float
    label_bids: bool


def score_chart(rows: Sequence[HandRow]) -> ScoreChart | None:
    """The chart of the hands scored among ``rows``; None before the first is scored."""
    scored = [row for row in rows if row.scores is not None]
    if not scored:
        return None
    start = scored[0].scores_before
    series = [start, *(row.scores for row in scored if row.scores is not None)]
    low = min(0, *(min(pair) for pair in series))
    high = max(1, *(max(pair) for pair in series))
    step_x = (WIDTH - LEFT - RIGHT) / len(scored)

    def x(index: int) -> float:
        return round(LEFT + index * step_x, 1)

    def y(score: int) -> float:
        return round(TOP + (high - score) * (HEIGHT - TOP - BOTTOM) / (high - low), 1)

    lines = tuple(
        " ".join(f"{x(i)},{y(pair[team])}" for i, pair in enumerate(series)) for team in (0, 1)
    )
    marks = []
    for i, row in enumerate(scored, start=1):
        if row.bidder is None or row.bid is None or row.scores is None:
            continue
        team = team_of(row.bidder)
        outcome = "made" if row.made else "set"
        marks.append(
            Mark(
                x=x(i),
                y=y(row.scores[team]),
                team=team,
                bid=row.bid,
                made=bool(row.made),
                step=row.step,
                title=f"hand {row.hand}: seat {row.bidder} bid {row.bid}, {outcome}; "
                f"{row.scores[0]} to {row.scores[1]}",
            )
        )
    every = max(1, math.ceil(len(scored) / 10))
    x_ticks = [Tick(x(i), str(i)) for i in range(0, len(scored) + 1, every)]
    y_ticks = [Tick(y(value), str(value)) for value in _round_values(low, high)]
    return ScoreChart(
        width=WIDTH,
        height=HEIGHT,
        left=LEFT,
        right=WIDTH - RIGHT,
        lines=(lines[0], lines[1]),
        marks=marks,
        x_ticks=x_ticks,
        y_ticks=y_ticks,
        zero=y(0),
        label_bids=len(scored) <= MOST_LABELLED_BIDS,
    )


def _round_values(low: int, high: int) -> list[int]:
    """About five round scores from ``low`` to ``high`` for the vertical axis."""
    span = high - low
    magnitude = 10 ** math.floor(math.log10(span / 5)) if span >= 5 else 1
    gap = next(m * magnitude for m in (1, 2, 5, 10) if span / (m * magnitude) <= 6)
    first = math.ceil(low / gap) * gap
    return list(range(first, high + 1, gap))
