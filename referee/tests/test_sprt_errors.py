"""SPRT error rates and sample cap, measured by simulating whole matches.

Every run is seeded, so the measured rates are fixed numbers; the tolerances are still set
from the sampling error of those numbers, so that another seed would almost surely pass too.
With N runs the standard error of a rate near p is sqrt(p * (1 - p) / N): 0.49 points for
a 5% rate over 2,000 runs, so a 1.5-point tolerance is three standard errors.

Matches are checked after every sample, as a real match is, and use wide Elo bounds so
that a run takes tens of pairs, not hundreds; wide bounds are also where a test decides
early, on the small tallies that an approximate LLR gets wrong.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import random

import pytest

from pitch_referee.stats import (
    Decision,
    Pentanomial,
    SprtParams,
    Trinomial,
    score_from_elo,
    sprt,
    sprt_sample_cap,
)

DECISIVE = 0.5
"""Share of deals won by whichever team holds the cards, so each bot wins one game of the pair."""

DRAW = 0.02
"""Chance that a game which the cards do not decide ends drawn (only at the hand cap)."""

RUNS = 2000
"""Runs per measured error rate: its standard error is then 0.49 points at 5%."""

CAP_RUNS = 1000
"""Runs per measured undecided share: its standard error is then 0.31 points at 1%."""


def pair_distribution(score: float) -> list[float]:
    """Pentanomial bin probabilities when A's expected per-game score is ``score``.

    On a deal the cards decide, the seat holding them wins, and as the bots swap seats
    within the pair each wins one game; on the other deals the two games are independent,
    with draw chance ``DRAW`` and the win chance that makes the overall per-game score
    ``score``. That is the negative within-pair correlation duplicate play exists for:
    near 0.5 the per-game pair score has variance about 0.061, half that of two
    independent games.
    """
    open_score = (score - DECISIVE / 2) / (1 - DECISIVE)
    win = open_score - DRAW / 2
    game = [1 - win - DRAW, DRAW, win]
    bins = [0.0] * 5
    for first, second in itertools.product(range(3), repeat=2):
        bins[first + second] += (1 - DECISIVE) * game[first] * game[second]
    bins[2] += DECISIVE
    return bins


def pair_variance(bins: list[float]) -> float:
    """Variance of the per-game pair score under ``bins``."""
    mean = sum(p * i / 4 for i, p in enumerate(bins))
    return sum(p * (i / 4 - mean) ** 2 for i, p in enumerate(bins))


@functools.cache
def decision_of(counts: tuple[int, ...], params: SprtParams) -> Decision:
    """The SPRT's decision on a tally; cached, since many runs pass through the same ones."""
    tally = Trinomial(*counts) if len(counts) == 3 else Pentanomial(*counts)
    return sprt(tally, params.elo0, params.elo1, params.alpha, params.beta).decision


def run_sprt(
    rng: random.Random,
    bins: list[float],
    params: SprtParams,
    cap: int,
) -> tuple[Decision, int]:
    """Play samples drawn from ``bins`` until the SPRT decides or ``cap`` samples are played.

    Three bins are games of a trinomial, five are pairs of a pentanomial. Returns the
    decision (``None`` at the cap) and the number of samples played.
    """
    thresholds = list(itertools.accumulate(bins[:-1]))
    counts = [0] * len(bins)
    for played in range(1, cap + 1):
        counts[bisect.bisect_right(thresholds, rng.random())] += 1
        decision = decision_of(tuple(counts), params)
        if decision:
            return decision, played
    return None, cap


@pytest.mark.slow
def test_sprt_error_rates_match_alpha_and_beta_when_checked_after_every_pair() -> None:
    # True Elo exactly elo0: accepting H1 is a false positive (alpha); exactly elo1:
    # accepting H0 is a false negative (beta). Overshooting the bounds pushes the rates
    # a little below alpha and beta, estimating the outcome distribution a little above.
    # The cap is never reached here (realistic pairs vary far less than the cap assumes);
    # a run that reached it would count as an error, never as a success.
    params = SprtParams(0, 60)
    cap = sprt_sample_cap(params)
    rng = random.Random(20240611)
    h0_bins = pair_distribution(score_from_elo(params.elo0))
    h1_bins = pair_distribution(score_from_elo(params.elo1))
    false_positives = sum(run_sprt(rng, h0_bins, params, cap)[0] != "H0" for _ in range(RUNS))
    false_negatives = sum(run_sprt(rng, h1_bins, params, cap)[0] != "H1" for _ in range(RUNS))
    assert false_positives / RUNS == pytest.approx(params.alpha, abs=0.015)
    assert false_negatives / RUNS == pytest.approx(params.beta, abs=0.015)


@pytest.mark.slow
def test_sample_cap_leaves_few_runs_undecided_in_the_worst_case() -> None:
    # The worst case the cap is built for: true score midway between the bounds (no drift)
    # and all-or-nothing samples (the largest variance), i.e. plain games without draws.
    # The cap aims at 1% undecided (0.3% with its margin); 2% is over three standard
    # errors above 1%. A third of the cap must still leave many runs undecided (about 17%
    # by the formula it is built on), or the cap would be much larger than it needs to be.
    params = SprtParams(0, 100)
    cap = sprt_sample_cap(params)
    middle = (score_from_elo(params.elo0) + score_from_elo(params.elo1)) / 2
    rng = random.Random(7)
    runs = [run_sprt(rng, [1 - middle, 0.0, middle], params, cap) for _ in range(CAP_RUNS)]
    assert sum(decision is None for decision, _ in runs) / CAP_RUNS < 0.02
    assert sum(played > cap // 3 for _, played in runs) / CAP_RUNS > 0.07


@pytest.mark.slow
def test_sample_cap_with_a_known_pair_variance_holds_for_duplicate_pairs() -> None:
    # Realistic pairs at the worst Elo, the cap computed from their actual variance.
    params = SprtParams(0, 60)
    middle = (score_from_elo(params.elo0) + score_from_elo(params.elo1)) / 2
    bins = pair_distribution(middle)
    cap = sprt_sample_cap(params, variance=pair_variance(bins))
    assert cap < sprt_sample_cap(params) / 3
    rng = random.Random(11)
    undecided = sum(run_sprt(rng, bins, params, cap)[0] is None for _ in range(CAP_RUNS))
    assert undecided / CAP_RUNS < 0.02
