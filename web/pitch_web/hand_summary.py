"""A game's hands in one line each, read off its timeline, for the viewer's hand table and
score chart.

The timeline's steps already say what the engine decided (the deal's dealer and scores,
the last bid's contract, the trump named, the hand's scoring), so a row is gathered from
them and no rule is applied here or in the browser.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any


@dataclass(frozen=True)
class HandRow:
    """One hand: ``step`` is its deal's step (where the viewer goes to show it).

    ``bidder``, ``bid`` and ``trump`` are ``None`` until decided, and ``made``, ``points``
    (each team's points taken) and ``scores`` (each team's score after it) until the hand
    is scored (a game stopped mid-hand). ``par`` (each team's points with best play from
    the first lead) and ``par_made`` (whether the bid is made so) come with the game's
    analysis, for a hand that reached the play."""

    hand: int
    step: int
    dealer: int
    scores_before: tuple[int, int]
    bidder: int | None = None
    bid: int | None = None
    trump: str | None = None
    made: bool | None = None
    points: tuple[int, int] | None = None
    scores: tuple[int, int] | None = None
    par: tuple[int, int] | None = None
    par_made: bool | None = None


def hand_rows(steps: Sequence[dict[str, Any]]) -> list[HandRow]:
    """Each hand of a timeline's ``steps``, in order."""
    rows: list[dict[str, Any]] = []
    for index, step in enumerate(steps):
        if step["k"] == "deal":
            rows.append(
                {
                    "hand": step["hand"],
                    "step": index,
                    "dealer": step["dealer"],
                    "scores_before": tuple(step["scores"]),
                }
            )
        elif not rows:
            continue  # a fault before the first deal
        elif "contract" in step:
            rows[-1]["bidder"], rows[-1]["bid"] = step["contract"]
        elif step["k"] == "trump":
            rows[-1]["trump"] = step["trump"]
        if "scored" in step:
            scored = step["scored"]
            rows[-1] |= {
                "bidder": scored["bidder"],
                "bid": scored["bid"],
                "made": scored["made"],
                "points": tuple(scored["points"]),
                "scores": tuple(scored["scores"]),
            }
    return [HandRow(**row) for row in rows]


def with_pars(rows: Sequence[HandRow], pars: Mapping[int, Mapping[str, Any]]) -> list[HandRow]:
    """``rows`` with the par of each hand in ``pars`` (``game_analysis.pars_by_hand``)."""
    return [
        row
        if row.hand not in pars
        else replace(row, par=tuple(pars[row.hand]["taken"]), par_made=pars[row.hand]["made"])
        for row in rows
    ]
