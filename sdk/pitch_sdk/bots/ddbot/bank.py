"""The time bank: what a game's quick decisions leave unspent, lent to the card plays
that need more time to be solved, and then to the bids and trumps.

The Monte Carlo bot gives every decision the same share of its limit (``deadline_of``).
ddbot's decisions need very different times: a late card is solved on all its samples in
a few milliseconds and a clear choice settles after a few (``Tally.settled``), while a
card of the first trick needs 16 solves of a whole hand, which under load do not fit in
the share, so those cards went to the rollouts. The bank keeps what each decision leaves
of its share and lends it to a card whose solved samples would not fit in the share
alone. Over a game ddbot thus spends no more than the Monte Carlo bot's share a
decision (the issue's "same time per decision"), but where solving pays.
"""

from __future__ import annotations

from ...table import TimeBudget
from ..montecarlo.search import MARGIN_MS

MOST_SPEND = 0.5
"""The most of a decision's limit a loan may take it to, less the margin: the other half
stays a safety margin, as the Monte Carlo bot's unspent three quarters do."""
KEPT_FOR_CARDS = 0.5
"""What a bid or a trump leaves in the bank, as a fraction of the limit: the first
trick's cards come after them in the hand and are solved only with a loan."""
SAVED_AT_MOST = 1.0
"""The most the bank holds, as a fraction of the per-decision limit: time saved early in
a game is spent within a hand or two, not hoarded for a burst."""


class TimeBank:
    """The seconds saved so far in a game, and the loans made from them."""

    def __init__(self) -> None:
        self.saved_s = 0.0
        """Seconds saved: each decision's share less what it spent, summed, within
        ``[0, SAVED_AT_MOST]`` of the limit."""

    def allowance(self, budget: TimeBudget, share_s: float, keep: float = 0.0) -> float:
        """The seconds a decision whose share is ``share_s`` may take with a loan: the
        share and what the bank holds beyond ``keep`` of the limit, at most
        ``MOST_SPEND`` of the limit less the margin (and never less than the share)."""
        most_s = (budget.limit_ms * MOST_SPEND - MARGIN_MS) / 1000
        lendable_s = max(0.0, self.saved_s - budget.limit_ms * keep / 1000)
        return max(share_s, min(share_s + lendable_s, most_s))

    def record(self, budget: TimeBudget, share_s: float, spent_s: float) -> None:
        """A decision took ``spent_s`` of its share ``share_s``: save the rest, or pay
        back what it borrowed."""
        cap_s = budget.limit_ms * SAVED_AT_MOST / 1000
        self.saved_s = min(cap_s, max(0.0, self.saved_s + share_s - spent_s))

    def reset(self) -> None:
        """A new game: nothing saved (a game's time is its own)."""
        self.saved_s = 0.0
