"""Each candidate's values over a search's samples, and whether the best is settled.

A search scores every candidate on the same samples, so what tells two candidates apart
is the difference of their values sample by sample (a paired comparison): its mean over
the samples, and that mean's standard error. When the best candidate's lead over every
other is ``SETTLE_Z`` standard errors or more, more samples would hardly change the
choice, and a search that stops there (sequential sampling) saves its time for closer
decisions. Two candidates that scored the same on every sample are a tie, not a close
call: either will do. The analysis of a game (``pitch_sdk.analysis.choices``) states each
choice's error against the best by the same paired difference.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

SETTLE_Z = 3.0
"""Standard errors of the paired difference by which the best must lead every other."""
SETTLE_AFTER = 16
"""The fewest samples a settled search may stop at: with fewer, the spread itself is a
guess."""


class Tally:
    """The running sums of a search: each candidate's total, and for each pair of
    candidates the sum of their squared differences (the spread of the paired test)."""

    def __init__(self, candidates: int, *, paired: bool = True) -> None:
        self.samples = 0
        """Samples added."""
        self.totals = [0.0] * candidates
        """Each candidate's values summed over the samples."""
        self.paired = paired
        """Whether the squared differences are kept: ``settled`` needs them; a search
        that never stops early skips their cost (a few microseconds a sample)."""
        self._squares = [[0.0] * candidates for _ in range(candidates)]
        """Sum over the samples of (value of i - value of j) squared, for i < j."""

    def add(self, values: Sequence[float]) -> None:
        """One sample's value of each candidate, in the candidates' order."""
        totals, squares = self.totals, self._squares
        for i, value in enumerate(values):
            totals[i] += value
            if not self.paired:
                continue
            row = squares[i]
            for j in range(i + 1, len(values)):
                gap = value - values[j]
                row[j] += gap * gap
        self.samples += 1

    def best(self) -> int:
        """The index of the candidate with the best total (ties: the first listed)."""
        totals = self.totals
        return max(range(len(totals)), key=lambda index: (totals[index], -index))

    def means(self) -> list[float]:
        """Each candidate's average value (0 before any sample)."""
        samples = self.samples or 1
        return [total / samples for total in self.totals]

    def paired_error(self, first: int, second: int) -> float:
        """The standard error of the mean of candidate ``first``'s value less
        ``second``'s, sample by sample (0 for a candidate against itself; needs two
        samples and the differences kept)."""
        if first == second:
            return 0.0
        samples = self.samples
        if samples < 2 or not self.paired:
            raise ValueError("a paired error needs two samples and the differences kept")
        low, high = min(first, second), max(first, second)
        lead = (self.totals[first] - self.totals[second]) / samples
        spread = self._squares[low][high] - samples * lead * lead
        return math.sqrt(max(0.0, spread) / (samples - 1) / samples)

    def settled(self, z: float = SETTLE_Z) -> bool:
        """Whether the best candidate leads every other by more than ``z`` standard errors
        of their paired difference, or ties it on every sample; never before
        ``SETTLE_AFTER`` samples, nor when the differences are not kept."""
        if self.samples < SETTLE_AFTER or not self.paired:
            return False
        best = self.best()
        for other in range(len(self.totals)):
            if other == best:
                continue
            if self._squares[min(best, other)][max(best, other)] == 0:
                continue  # the same value on every sample
            lead = (self.totals[best] - self.totals[other]) / self.samples
            if lead <= 0 or lead <= z * self.paired_error(best, other):
                return False
        return True
