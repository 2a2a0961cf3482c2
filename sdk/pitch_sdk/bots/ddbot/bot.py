"""``DoubleDummyBot``: the Monte Carlo bot's candidates, each judged by solving sampled
deals double-dummy instead of playing them out with a rollout policy.

What differs from ``MonteCarloBot`` is only how a candidate is scored (``search.py``);
which actions each kind of decision compares (bids up to ``BID_CEILING``, the four
trumps, the ``SET_CANDIDATES`` best discards and pick-ups, every look and card) is the
Monte Carlo bot's, inherited.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from ...actions import Action
from ...views import PlayerView
from ..montecarlo import MonteCarloBot
from ..montecarlo.search import deadline_of
from ..montecarlo.search import search as rollout_search
from .search import MAX_WORLDS, SearchResult, search


class DoubleDummyBot(MonteCarloBot):
    """Searches every decision by solving sampled deals with every card seen."""

    name = "ddbot"
    """The name it plays under."""
    version = "1.2"
    """Its version: raised when its play changes."""

    def __init__(
        self, seed: int | str | None = None, *, log: bool = False, max_worlds: int = MAX_WORLDS
    ) -> None:
        super().__init__(seed, log=log, max_worlds=max_worlds)
        self.last_solved: SearchResult | None = None
        """The most recent solved search, for tests and benchmarks; ``None`` when the
        last decision was too slow to solve and went to the rollouts (``self.last``)."""

    def _search(self, view: PlayerView, candidates: Sequence[Action]) -> Action:
        started = time.perf_counter()
        deadline = deadline_of(self.budget, started)
        result = search(view, candidates, self.rng, deadline, max_worlds=self.max_worlds)
        self.last_solved = result
        if result is not None:
            figures = f"{result.worlds} samples, {result.solves} solves"
            action = result.action
        else:  # too slow to solve enough samples: the rest of the time to the rollouts
            rolled = rollout_search(view, candidates, self.rng, deadline)
            self.last = rolled
            figures = f"rolled out: {rolled.worlds} samples, {rolled.playouts} playouts"
            action = rolled.action
        if self.log:
            ms = (time.perf_counter() - started) * 1000
            print(
                f"hand {view.hand_number} {view.decision.name.lower()}: {action} "
                f"({figures}, {ms:.0f} ms)",
                flush=True,
            )
        return action
