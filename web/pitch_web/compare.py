"""The duplicate comparison: the two games of a deal pair side by side, hand by hand.

Games ``-a`` and ``-b`` of a pair are dealt the same cards, seat by seat, with the
teams' bots swapped: what one bot held in a seat at one table, the other bot held in the
same seat at the other. So the two tables' decisions in a hand can be walked in step,
and the first one where they differ is where one bot chose otherwise than the other
holding the same cards in the same position: the **divergence**. Everything before it
was the same at both tables, so both choices there were legal in the same position, and
one analysis of that position values both (``analyse``: a card double-dummy, a bid,
trump, discard, pick-up or stock choice by sampling what the seat knew).

Everything is read off the two games' timelines (``timeline``): their deal steps (the
cards), their decision steps (who chose what) and their hand rows (``hand_summary``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pitch_sdk.actions import Play
from pitch_sdk.analysis.choices import choice_values
from pitch_sdk.analysis.costs import play_values
from pitch_sdk.cards import card_name
from pitch_sdk.gamerecord import GameRecord
from pitch_sdk.progress import PLAYING
from pitch_sdk.replay import Step, replay

from .hand_summary import HandRow, hand_rows

DECISION_SAMPLES = 32
"""Sampled deals a choice before the play is valued on (``pitch analyze``'s default): a
second or so of CPU for the one decision a page analyses."""
DECISIONS = frozenset({"bid", "trump", "discard", "pickup", "stock", "play"})
"""The timeline's kinds of decision step (the others: deal, fault, end)."""


@dataclass(frozen=True)
class Choice:
    """What one table did at a divergence."""

    step: int | None
    """The decision's step in the table's viewer (``None``: the hand ended there)."""
    action: str | None
    """The action as the record writes it (``play 10H``); ``None`` when none was taken."""
    card: str | None = None
    """The card played, for a play."""


@dataclass(frozen=True)
class Divergence:
    """The first decision of a hand that differed between the two tables."""

    index: int
    """Its 0-based position among the hand's decisions (the same at both tables)."""
    seat: int
    kind: str
    """``bid``, ``trump``, ``discard``, ``pickup``, ``stock`` or ``play``."""
    a: Choice
    b: Choice


@dataclass(frozen=True)
class HandPair:
    """One hand at both tables.

    ``cards`` is each seat's hand as dealt, ``None`` when the two tables were not dealt
    the same cards (or one table never reached the hand); ``a`` and ``b`` are the
    hand's rows at each table (``None``: not played there); ``divergence`` is ``None``
    when every decision of the hand was the same (or the cards were not)."""

    hand: int
    cards: list[list[str]] | None
    a: HandRow | None
    b: HandRow | None
    divergence: Divergence | None

    def points(self, table: int) -> tuple[int, int] | None:
        """The points bot A's team and bot B's team took at ``table`` (0: game ``-a``,
        where A is team 0; 1: game ``-b``, where A is team 1); ``None``: not scored."""
        row = (self.a, self.b)[table]
        if row is None or row.points is None:
            return None
        return (row.points[table], row.points[1 - table])

    @property
    def swing(self) -> int | None:
        """How many more points bot A's teams took than bot B's over both tables, on the
        same cards (``None`` until both tables scored the hand)."""
        first, second = self.points(0), self.points(1)
        if first is None or second is None:
            return None
        return first[0] - first[1] + second[0] - second[1]


def compare_hands(
    a_steps: Sequence[dict[str, Any]], b_steps: Sequence[dict[str, Any]]
) -> list[HandPair]:
    """Each hand of two timelines' ``steps`` (games ``-a`` and ``-b`` of a pair), in order."""
    rows = [{row.hand: row for row in hand_rows(steps)} for steps in (a_steps, b_steps)]
    decisions = [_decisions(steps) for steps in (a_steps, b_steps)]
    deals = [_deals(steps) for steps in (a_steps, b_steps)]
    pairs = []
    for hand in sorted(set(rows[0]) | set(rows[1])):
        cards_a, cards_b = deals[0].get(hand), deals[1].get(hand)
        same = cards_a is not None and cards_a == cards_b
        divergence = None
        if same:
            divergence = _divergence(
                a_steps, b_steps, decisions[0].get(hand, []), decisions[1].get(hand, [])
            )
        pairs.append(
            HandPair(
                hand,
                cards_a if same else None,
                rows[0].get(hand),
                rows[1].get(hand),
                divergence,
            )
        )
    return pairs


def _deals(steps: Sequence[dict[str, Any]]) -> dict[int, list[list[str]]]:
    """Each hand's cards as dealt, seat by seat."""
    return {step["hand"]: step["hands"] for step in steps if step["k"] == "deal"}


def _decisions(steps: Sequence[dict[str, Any]]) -> dict[int, list[int]]:
    """Each hand's decision steps, in order (a fault's substitute included)."""
    found: dict[int, list[int]] = {}
    hand = None
    for index, step in enumerate(steps):
        if step["k"] == "deal":
            hand = step["hand"]
            found[hand] = []
        elif hand is not None and step["k"] in DECISIONS:
            found[hand].append(index)
    return found


def _divergence(
    a_steps: Sequence[dict[str, Any]],
    b_steps: Sequence[dict[str, Any]],
    a_decisions: list[int],
    b_decisions: list[int],
) -> Divergence | None:
    """The first decision where the tables differ: another seat, kind or action, or a
    decision at one table where the other's hand had ended."""
    for index in range(max(len(a_decisions), len(b_decisions))):
        a = a_steps[a_decisions[index]] if index < len(a_decisions) else None
        b = b_steps[b_decisions[index]] if index < len(b_decisions) else None
        if a is not None and b is not None and (a["s"], a["a"]) == (b["s"], b["a"]):
            continue
        shown = a if a is not None else b
        assert shown is not None  # index is below one of the lengths
        return Divergence(
            index,
            shown["s"],
            shown["k"],
            _choice(a, a_decisions, index),
            _choice(b, b_decisions, index),
        )
    return None


def _choice(step: dict[str, Any] | None, decisions: list[int], index: int) -> Choice:
    if step is None:
        return Choice(None, None)
    card = step.get("card") if step["k"] == "play" else None
    return Choice(decisions[index], step["a"], card)


@dataclass(frozen=True)
class Valued:
    """One legal choice at a divergence and what the mover's team gets after it."""

    name: str
    """A card's name for a play (``10H``), else the action as records write it."""
    value: float
    error: float | None
    """The standard error of the best choice's value minus this one's (sampled); ``None``
    when exact (a card, double-dummy)."""


@dataclass(frozen=True)
class Analysis:
    """Both choices of a divergence valued, in the shared shape of an analysed decision
    (``to_json``): a card double-dummy (what the mover's team takes in the hand after
    it), any other decision by its expected hand score over ``samples`` sampled deals."""

    seat: int
    kind: str
    choices: list[Valued]
    """Each legal choice, best first."""
    samples: int | None = None
    """Sampled deals each choice was valued on; ``None`` for a card (exact)."""

    @property
    def best(self) -> Valued:
        return self.choices[0]

    def valued(self, choice: Choice) -> Valued | None:
        """What a table chose, valued (``None``: it chose nothing, the hand had ended)."""
        name = choice.card if self.kind == "play" else choice.action
        return next((valued for valued in self.choices if valued.name == name), None)

    def to_json(self, choice: Choice) -> dict[str, Any]:
        """One table's decision: ``choice.step`` in its viewer, what it chose there."""
        top, chosen = self.best.value, self.valued(choice)
        return {
            "step": choice.step,
            "seat": self.seat,
            "kind": self.kind,
            "chosen": chosen and chosen.name,
            "best": self.best.name,
            "value": top,
            "cost": None if chosen is None else top - chosen.value,
            "error": None if chosen is None else chosen.error,
            "samples": self.samples,
            "choices": [
                {"action": valued.name, "value": valued.value, "error": valued.error}
                for valued in self.choices
            ],
        }


def analyse(
    record: GameRecord, hand: int, divergence: Divergence, samples: int = DECISION_SAMPLES
) -> Analysis | None:
    """The values of the choices at ``divergence`` in ``hand`` of ``record`` (either
    table's: the position is the same at both): a card's double-dummy, any other
    decision's expected value over ``samples`` deals sampled from what the seat knew
    (``pitch_sdk.analysis.choice_values``, seeded by the hand and decision: the same
    page twice shows the same values). ``None`` if the record has no such decision. The
    record must replay cleanly up to there (a timeline was made of it)."""
    for event in replay(record):
        if not isinstance(event, Step) or (event.hand, event.index) != (hand, divergence.index):
            continue
        if event.before.phase is PLAYING:
            values = play_values(event.before)
            cards = [
                Valued(card_name(action.card), float(points), None)
                for action, points in values.items()
                if isinstance(action, Play)
            ]
            return Analysis(event.seat, "play", sorted(cards, key=lambda v: -v.value))
        rng = random.Random(f"compare/{hand}/{divergence.index}")
        sampled = choice_values(event.before.view(event.seat), samples, rng)
        choices = [Valued(c.action, c.value, c.error) for c in sampled]
        return Analysis(
            event.seat, divergence.kind, sorted(choices, key=lambda v: -v.value), samples
        )
    return None
