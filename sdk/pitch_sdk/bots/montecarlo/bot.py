"""``MonteCarloBot`` (and its capped ``FastMonteCarloBot``): which actions each kind of
decision searches, and nothing else.

Every decision goes through the same search (``search.py``); what differs per kind is
the list of candidates handed to it:

* bids: pass and every legal bid up to ``BID_CEILING`` (past it the hand would have to
  take nearly every point, and the samples are better spent on the bids that matter);
* trumps: the four suits;
* discards and pick-ups: the legal sets, or when there are many, the ``SET_CANDIDATES``
  that the greedy bot's card values rank best (a set of cards has many near-equal
  variants; searching them all would leave few samples for each);
* the look through the stock and card play: every legal action.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from ...actions import Bid, Discard, NameTrump, PickUp, Play, StockChoice
from ...bot import Bot
from ...cards import cards_in
from ...views import PlayerView
from ..greedy import keep_value
from .search import MAX_WORLDS, ChoiceT, SearchResult, deadline_of, search

BID_CEILING = 11
"""The highest bid searched (a legal higher one is searched only if nothing else is)."""
SET_CANDIDATES = 8
"""The most discards or pick-ups searched."""
FAST_MAX_WORLDS = 25
"""The sample cap of ``montecarlo-fast``: a tenth of the full search's CPU or less, and a
rung between greedy and the full search on the reference scale."""


class MonteCarloBot(Bot):
    """Searches every decision by playing the hand out on sampled deals."""

    name = "montecarlo"
    """The name it plays under."""
    version = "1.3"
    """Its version: raised when its play changes."""

    def __init__(
        self, seed: int | str | None = None, *, log: bool = False, max_worlds: int = MAX_WORLDS
    ) -> None:
        super().__init__(seed)
        self.max_worlds = max_worlds
        """The most samples a decision takes. A search that this cap ends, not the clock,
        depends only on the seed: a match then replays exactly."""
        self.log = log
        """Print each search's figures (to the seat's log file in a match)."""
        self.last: SearchResult[Any] | None = None
        """The most recent search, for tests and benchmarks."""

    def _search(self, view: PlayerView, candidates: Sequence[ChoiceT]) -> ChoiceT:
        started = time.perf_counter()
        deadline = deadline_of(self.budget, started)
        result = search(view, candidates, self.rng, deadline, max_worlds=self.max_worlds)
        self.last = result
        if self.log:
            ms = (time.perf_counter() - started) * 1000
            print(
                f"hand {view.hand_number} {view.decision and view.decision.name.lower()}: "
                f"{result.action} "
                f"({result.worlds} samples, {result.playouts} playouts, {ms:.0f} ms)",
                flush=True,
            )
        return result.action

    def bid(self, view: PlayerView, legal: Sequence[Bid]) -> Bid:
        """The bid whose sampled deals score best, among those up to ``BID_CEILING``."""
        candidates = [a for a in legal if a.amount <= BID_CEILING] or [min(legal, key=_amount)]
        return self._search(view, candidates)

    def name_trump(self, view: PlayerView, legal: Sequence[NameTrump]) -> NameTrump:
        """The trump whose sampled deals score best."""
        return self._search(view, legal)

    def discard(self, view: PlayerView, legal: Sequence[Discard]) -> Discard:
        """Of the ``SET_CANDIDATES`` sets that throw away the least, the best sampled."""
        # Keep the sets that throw away the least value.
        ranked = sorted(legal, key=lambda a: _set_value(a.cards, view.trump))
        return self._search(view, ranked[:SET_CANDIDATES])

    def pick_up(self, view: PlayerView, legal: Sequence[PickUp]) -> PickUp:
        """Of the ``SET_CANDIDATES`` sets that take the most, the best sampled."""
        # Keep the sets that take the most value; the search weighs them against room
        # left for the fill from the stock.
        ranked = sorted(legal, key=lambda a: -_set_value(a.cards, view.trump))
        return self._search(view, ranked[:SET_CANDIDATES])

    def look(self, view: PlayerView, legal: Sequence[StockChoice]) -> StockChoice:
        """Take or leave the card of the stock, whichever scores best over the samples."""
        return self._search(view, legal)

    def play(self, view: PlayerView, legal: Sequence[Play]) -> Play:
        """The card whose sampled deals score best."""
        return self._search(view, legal)


class FastMonteCarloBot(MonteCarloBot):
    """The same search on at most ``FAST_MAX_WORLDS`` samples a decision: a rung between
    greedy and the full search, quick enough for tests and first gauntlets."""

    name = "montecarlo-fast"
    """The name it plays under."""

    def __init__(
        self, seed: int | str | None = None, *, log: bool = False, max_worlds: int = FAST_MAX_WORLDS
    ) -> None:
        super().__init__(seed, log=log, max_worlds=max_worlds)


def _amount(action: Bid) -> int:
    return action.amount


def _set_value(cards: int, trump: int) -> float:
    return sum(keep_value(card, trump) for card in cards_in(cards))
