"""Double-dummy analysis: the exact result of the rest of a hand with every card seen.

``solve(state)`` takes a ``GameState`` anywhere in the play of a hand (after the bidding,
trumps, discards and the stock) and returns a ``HandOutcome``: the points each team takes
in the hand when every seat plays its best for its team, and whether the bid is made.
The objective is defined in ``outcome.py``; ``exhaustive_solve`` is the plain reference
search the solver is tested against.
"""

from .exhaustive import exhaustive_solve
from .outcome import HandOutcome
from .solver import solve

__all__ = ["HandOutcome", "exhaustive_solve", "solve"]
