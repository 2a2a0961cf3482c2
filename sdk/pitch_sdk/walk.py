"""Walking a game record through the engine one step at a time.

``pitch_sdk.record.replay`` checks a record and keeps only the final state; a viewer or a
rerun needs every state in between. ``walk`` deals the recorded decks and applies the
recorded actions to a ``GameState``, yielding a copy of the state around each step, so
everything shown is what the engine computes, never a second reading of the rules.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pitch_sdk.actions import Action, parse_action
from pitch_sdk.cards import Seat
from pitch_sdk.options import RuleOptions
from pitch_sdk.record import parse_deck
from pitch_sdk.rules import GameState


@dataclass(frozen=True)
class Dealt:
    """A hand was dealt; ``state`` is the engine just after the deal."""

    hand: int
    """The hand's number, from 1."""
    state: GameState
    """A copy of the engine just after the deal."""


@dataclass(frozen=True)
class Step:
    """One recorded decision and the engine around it."""

    hand: int
    """The hand's number, from 1."""
    index: int
    """0-based position in the hand's ``decisions`` (messages count from 1)."""
    seat: Seat
    """The seat that decided."""
    action: Action
    """What it decided."""
    forced: bool
    """The engine's verdict: the seat had a single legal option."""
    before: GameState
    """A copy of the engine before the decision."""
    after: GameState
    """A copy of the engine after it."""


def walk(record: dict[str, Any], until: GameState | None = None) -> Iterator[Dealt | Step]:
    """Yield the record's deals and decisions in order.

    The record must replay cleanly as far as it is walked: pass the state of a failed
    ``replay`` as ``until`` and the walk stops where that replay stopped.
    """
    hands = record.get("hands", [])
    if until is not None:
        hands = hands[: until.hand_number]
    if not hands:
        return
    rules = RuleOptions.from_dict(dict(record.get("rules", {})))
    state = GameState(rules, record["first_dealer"])
    for number, hand in enumerate(hands, start=1):
        state.deal(parse_deck(hand["deck"]))
        yield Dealt(number, state.copy())
        for index, decision in enumerate(hand.get("decisions", [])):
            if until is not None and state == until:
                return
            before = state.copy()
            action = parse_action(str(decision["action"]))
            state.apply(action)
            forced = len(before.legal_actions()) == 1
            yield Step(number, index, before.current_seat(), action, forced, before, state.copy())
