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
from typing import Any

from ...actions import Decision
from ...table import GameStart
from ...views import PlayerView
from ..montecarlo import MonteCarloBot
from ..montecarlo.search import ChoiceT, deadline_of
from ..montecarlo.search import search as rollout_search
from .bank import KEPT_FOR_CARDS, TimeBank
from .search import ENOUGH_PLAY_WORLDS, ENOUGH_WORLDS, MAX_WORLDS, SearchResult, search

BORROWERS = frozenset({Decision.PLAY, Decision.BID, Decision.TRUMP})
"""The decisions that may borrow from the bank (``bank.py``): cards, to be solved (a
first trick's card needs 16 solves of a whole hand), and bids and trumps, the decisions
worth the most points, from what the bank holds beyond ``KEPT_FOR_CARDS``. Each is
solved if its samples fit in the share and the loan, else rolled out on that longer
time. The look through the stock, a string of small decisions, keeps to its share."""
RETRY_EVERY = 8
"""A kind of decision found too slow to solve goes to the rollouts without a try (a try
costs up to its share of the time) until this many have: the machine's load changes."""


class DoubleDummyBot(MonteCarloBot):
    """Searches every decision by solving sampled deals with every card seen."""

    name = "ddbot"
    """The name it plays under."""
    version = "1.5"
    """Its version: raised when its play changes."""

    def __init__(
        self, seed: int | str | None = None, *, log: bool = False, max_worlds: int = MAX_WORLDS
    ) -> None:
        super().__init__(seed, log=log, max_worlds=max_worlds)
        self.last_solved: SearchResult[Any] | None = None
        """The most recent solved search, for tests and benchmarks; ``None`` when the
        last decision was too slow to solve and went to the rollouts (``self.last``)."""
        self._sample_s: dict[tuple[Decision, int], float] = {}
        """Seconds a sample took at the last try to solve each kind of decision (by
        decision and cards in hand); a lower bound when the try was abandoned."""
        self._skipped: dict[tuple[Decision, int], int] = {}
        """Decisions of each kind sent to the rollouts since the last try."""
        self.bank = TimeBank()
        """The time the game's decisions left of their share, lent to card plays."""

    def _search(self, view: PlayerView, candidates: Sequence[ChoiceT]) -> ChoiceT:
        started = time.perf_counter()
        deadline = deadline_of(self.budget, started)
        share_s = deadline - started
        assert view.decision is not None  # asked only on the seat's turn
        kind = (view.decision, view.hand.bit_count())
        allowance_s = share_s
        if view.decision in BORROWERS:
            keep = 0.0 if view.decision is Decision.PLAY else KEPT_FOR_CARDS
            allowance_s = self.bank.allowance(self.budget, share_s, keep)
        result = None
        if self._worth_solving(kind, allowance_s):
            result = search(
                view, candidates, self.rng, deadline, extended=started + allowance_s,
                max_worlds=self.max_worlds, enough=_enough(view.decision),
            )  # fmt: skip
            spent = time.perf_counter() - started
            self._sample_s[kind] = spent / result.worlds if result else spent
            self._skipped[kind] = 0
        else:
            self._skipped[kind] = self._skipped.get(kind, 0) + 1
        self.last_solved = result
        if result is not None:
            figures = f"{result.worlds} samples, {result.solves} solves"
            action = result.action
        else:  # too slow to solve enough samples: the rest of the time to the rollouts
            rolled = rollout_search(
                view, candidates, self.rng, max(deadline, started + allowance_s), settle=True
            )
            self.last = rolled
            figures = f"rolled out: {rolled.worlds} samples, {rolled.playouts} playouts"
            action = rolled.action
        spent = time.perf_counter() - started
        self.bank.record(self.budget, share_s, spent)
        if self.log:
            print(
                f"hand {view.hand_number} {view.decision.name.lower()} ({kind[1]} cards): "
                f"{action} "
                f"({figures}, {spent * 1000:.0f} ms, {self.bank.saved_s * 1000:.0f} ms saved)",
                flush=True,
            )
        return action

    def on_game_start(self, seat: int, info: GameStart) -> None:
        """A new game: the bank starts empty."""
        self.bank.reset()

    def _worth_solving(self, kind: tuple[Decision, int], available_s: float) -> bool:
        """Whether to try solving a decision of this kind (and hand size): yes unless the
        last try showed that the samples it needs (``_enough``) would not fit in
        ``available_s``, and again every ``RETRY_EVERY`` decisions of the kind."""
        sample_s = self._sample_s.get(kind)
        if sample_s is None or self._skipped.get(kind, 0) >= RETRY_EVERY:
            return True
        return sample_s * min(_enough(kind[0]), self.max_worlds) <= available_s


def _enough(decision: Decision) -> int:
    """The fewest solved samples a decision of this kind must have time for."""
    return ENOUGH_PLAY_WORLDS if decision is Decision.PLAY else ENOUGH_WORLDS
