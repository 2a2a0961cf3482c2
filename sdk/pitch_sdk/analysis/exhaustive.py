"""The reference: plain minimax over the engine's own moves, memoized, no pruning.

Slow and obviously right: it plays every legal card with ``GameState.push``/``pop``
and lets the engine score the tricks, so the fast solver (``solver.py``) is checked
against the rules as the referee applies them, not against its own model of them.
"""

from __future__ import annotations

from ..cards import TEAM_OF, TRUMPS
from ..progress import PLAYING
from ..rules import GameState
from .outcome import HandOutcome, outcome_of, require_play

Position = tuple[object, ...]
"""What the rest of the play depends on (``_position``), as a memo's key."""


def exhaustive_solve(state: GameState) -> HandOutcome:
    """The double-dummy outcome of the hand from ``state`` by exhaustive search.

    ``nodes`` counts the distinct positions evaluated.

    Raises:
        ValueError: ``state`` is not in the play of a hand.
    """
    require_play(state)
    search = state.copy()
    memo: dict[Position, int] = {}
    value = _team0_future(search, memo)
    return outcome_of(state, value, len(memo))


def _position(state: GameState) -> Position:
    """Everything the rest of the play depends on (not what was taken before)."""
    trumps = TRUMPS[state.trump]
    hands = tuple(hand & trumps for hand in state.hands)
    return hands, state.trick, state.trick_best, state.queue, state.jokers_played


def _team0_future(state: GameState, memo: dict[Position, int]) -> int:
    """The points team 0 takes from here on, with team 0 maximizing and team 1 minimizing."""
    key = _position(state)
    known = memo.get(key)
    if known is not None:
        return known
    before = state.taken[0]
    maximizing = TEAM_OF[state.to_move] == 0
    values = []
    for action in state.legal_actions():
        state.push(action)
        value = state.taken[0] - before
        if state.phase is PLAYING:
            value += _team0_future(state, memo)
        state.pop()
        values.append(value)
    best = memo[key] = max(values) if maximizing else min(values)
    return best
