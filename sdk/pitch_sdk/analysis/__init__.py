"""Double-dummy analysis: the exact result of the rest of a hand with every card seen.

``solve(state)`` takes a ``GameState`` anywhere in the play of a hand (after the bidding,
trumps, discards and the stock) and returns a ``HandOutcome``: the points each team takes
in the hand when every seat plays its best for its team, and whether the bid is made.
A ``Solver`` keeps its tables from one solve to the next (an entry holds for any deal
with the same four hands) and values every legal card of a position from one
search (``Solver().card_outcomes(state)``).
The objective is defined in ``outcome.py``; ``exhaustive_solve`` is the plain reference
search the solver is tested against.

The decisions before the play (bids, trumps, discards, pick-ups, the stock) are made
without seeing the other hands: ``decision_values(record)`` values each legal choice of
each of them on sampled deals, each solved double-dummy (``choices.py``).
"""

from .choices import DEFAULT_SAMPLES, ChoiceValue, DecisionValue, choice_values, decision_values
from .exhaustive import exhaustive_solve
from .outcome import HandOutcome
from .solver import Solver, solve

__all__ = [
    "DEFAULT_SAMPLES",
    "ChoiceValue",
    "DecisionValue",
    "HandOutcome",
    "Solver",
    "choice_values",
    "decision_values",
    "exhaustive_solve",
    "solve",
]
