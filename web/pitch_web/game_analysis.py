"""A game's analysis as the viewer shows it: each analysed decision at its step, each
hand's par.

The double-dummy work is the SDK's (``pitch_sdk.analysis``: ``play_costs`` for every card
played, ``hand_pars`` for each hand from its first lead); here its answers are put in
the shape every part of the viewer reads (docs/viewer.md, "Analysis"), each decision at
the viewer's 0-based step, so that the browser looks a step up and applies no rule.

An analysed decision::

    {"step": 57, "seat": 2, "kind": "play", "chosen": "TS", "best": "AS",
     "value": 7.0, "cost": 2.0, "error": null, "samples": null,
     "choices": [{"action": "AS", "value": 7.0, "error": null}, ...]}

``value`` is what the mover's team takes in the hand from here with the best choice,
``cost`` what the chosen action lost against it. A card play is exact (``error`` and
``samples`` are null); its ``choices`` are the best cards and the card played, which is
all ``play_costs`` keeps. Decisions made without seeing the other hands (bids, trump,
discards, pick-ups, the stock) come in the same shape from ``decision_values``: each
choice's expected value over sampled deals, with its error.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from pitch_sdk.analysis.choices import decision_values
from pitch_sdk.analysis.costs import PlayCost, play_costs
from pitch_sdk.analysis.par import hand_pars
from pitch_sdk.gamerecord import GameRecord
from pitch_sdk.replay import replayed

FORMAT_VERSION = 2
"""Bumped when the analysis's JSON changes: kept analyses of another version are redone
(2: the decisions before the play are valued too)."""
DECISION_SAMPLES = 32
"""Sampled deals per decision before the play (``pitch analyze``'s default): a few seconds
of CPU a hand, in the analysis's own niced process."""
DECISION_KINDS = frozenset({"bid", "trump", "discard", "pickup", "stock", "play"})
"""The timeline's step kinds that are decisions of the record (``pitch_web.timeline``)."""

Progress = Callable[[int, int], None]
"""Called with (hands done, hands in the game) as the analysis goes."""


def decision_steps(steps: Iterable[Mapping[str, Any]]) -> dict[tuple[int, int], int]:
    """The viewer's step of each decision of the record, by (hand, its index in the hand).

    The timeline has a step per decision, in the record's order, between its hand's deal
    and the next; fault steps and the end are not decisions.
    """
    found: dict[tuple[int, int], int] = {}
    hand, index = 0, 0
    for number, step in enumerate(steps):
        if step["k"] == "deal":
            hand, index = step["hand"], 0
        elif step["k"] in DECISION_KINDS:
            found[hand, index] = number
            index += 1
    return found


def play_decision(cost: PlayCost, step: int) -> dict[str, Any]:
    """A card played, in the analysed decision's shape."""
    best = cost.played if cost.cost == 0 else cost.best[0]
    top = float(cost.value + cost.cost)
    choices = [{"action": card, "value": top, "error": None} for card in cost.best]
    if cost.cost:
        choices.append({"action": cost.played, "value": float(cost.value), "error": None})
    return {
        "step": step,
        "seat": cost.seat,
        "kind": "play",
        "chosen": cost.played,
        "best": best,
        "value": top,
        "cost": float(cost.cost),
        "error": None,
        "samples": None,
        "choices": choices,
    }


def analyse(
    record: GameRecord,
    steps: Mapping[tuple[int, int], int],
    progress: Progress | None = None,
    samples: int = DECISION_SAMPLES,
) -> dict[str, Any]:
    """The analysis of ``record``: its card plays' costs, the expected value of each
    choice of its other decisions (``samples`` deals each; 0: card plays only), and its
    hands' pars, decisions in step order.

    ``steps`` is ``decision_steps`` of the record's timeline. The record must replay
    cleanly (``pitch_sdk.replay.check``). ``progress`` hears after each hand.
    """
    numbers = [hand.number for hand in record.hands]
    report = progress or (lambda done, total: None)
    report(0, len(numbers))
    game = replayed(record)  # once, for the pars and every hand's decisions
    pars = [par.as_dict() for par in hand_pars(game)]
    decisions: list[dict[str, Any]] = []
    for done, hand in enumerate(numbers, start=1):
        if samples:
            decisions += [value.to_json() for value in decision_values(game, hand, samples=samples)]
        decisions += [
            play_decision(cost, steps[cost.hand, cost.index]) for cost in play_costs(game, hand)
        ]
        report(done, len(numbers))
    decisions.sort(key=lambda decision: decision["step"])
    return {"version": FORMAT_VERSION, "decisions": decisions, "pars": pars}


def pars_by_hand(analysis: Mapping[str, Any] | None) -> dict[int, dict[str, Any]]:
    """An analysis's pars by hand number (none without an analysis)."""
    if analysis is None:
        return {}
    pars: Sequence[dict[str, Any]] = analysis.get("pars", ())
    return {par["hand"]: par for par in pars}
