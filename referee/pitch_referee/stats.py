"""Match statistics for bot A against bot B: score, Elo, confidence interval, LOS and SPRT.

This module owns the arithmetic that turns a match tally into numbers a person can act on.
It is pure math on counts: no I/O, and nothing outside the standard library ``math``.

Two tallies are supported. A duplicate match plays games in pairs (the same deal, teams
swapped), and the two games of a pair are correlated, so the independent sample is the
pair: ``Pentanomial`` counts pairs by A's pair score 0, 0.5, 1, 1.5 or 2 (bins LL, LD,
DD/WL, WD, WW). A plain match has independent games: ``Trinomial`` counts losses, draws and
wins. Both report scores *per game* (win 1, draw 0.5, loss 0), so a pair contributes the
per-game score ``pair score / 2``; every variance below is the variance of that per-game
score over the independent samples, the way fishtest and fastchess compute it.

Elo is logistic: ``elo = -400 * log10(1 / score - 1)``.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, TypeAlias

Z_95 = 1.959963984540054
"""Two-sided 95% quantile of the standard normal: ``Phi(Z_95) = 0.975``."""

MIN_SAMPLES = 2
"""Fewest independent samples from which a spread (interval, LOS) is estimated."""

REGULARIZATION = 1e-3
"""Pseudo-count the SPRT puts in empty bins (as fishtest and fastchess do)."""

Decision: TypeAlias = Literal["H0", "H1"] | None

_PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
_GAME_SCORES = (0.0, 0.5, 1.0)
_SPRT_KEYS = ("elo0", "elo1", "alpha", "beta")
_ROOT_ITERATIONS = 200
"""Enough for bisection alone to pin the MLE root to double precision."""
_OVERSHOOT = 0.583
"""Expected overshoot of a bound by a Gaussian random walk, in per-step standard deviations
(Siegmund: ``-zeta(1/2) / sqrt(2 pi)``)."""
_MAX_SPRT_ELO = 4000.0
"""Largest SPRT bound in absolute value. Its expected score is 1e-10 from 0 or 1; much
further (about 6,400) the score rounds to exactly 0 or 1 and no outcome distribution has it."""
_CAP_SAFETY = 1.25
"""Margin on the diffusion estimate of the sample cap (see ``sprt_sample_cap``)."""


def score_from_elo(elo: float) -> float:
    """Expected per-game score of a player ``elo`` points stronger (logistic model)."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def elo_from_score(score: float) -> float:
    """Elo difference that makes ``score`` the expected per-game score.

    A score of 0 or 1 has no finite Elo; it maps to ``-inf`` or ``+inf`` instead of raising,
    so a one-sided match (all wins) can still be reported.
    """
    if not 0.0 <= score <= 1.0:
        raise ValueError(f"score {score} is outside [0, 1]")
    if score == 0.0:
        return -math.inf
    if score == 1.0:
        return math.inf
    return 400.0 * math.log10(score / (1.0 - score))


def normal_cdf(x: float) -> float:
    """Standard normal cumulative distribution ``Phi(x)``."""
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


@dataclass(frozen=True, slots=True)
class _Summary:
    """Sample size, mean and (population) variance of the per-game score."""

    n: float
    mean: float
    var: float


def _summarize(scores: Iterable[float], counts: Iterable[float]) -> _Summary:
    """Summarize per-game ``scores`` weighted by ``counts`` (at least one count positive)."""
    pairs = list(zip(scores, counts, strict=True))
    n = sum(count for _, count in pairs)
    mean = sum(score * count for score, count in pairs) / n
    var = sum(count * (score - mean) ** 2 for score, count in pairs) / n
    return _Summary(n, mean, var)


def _check_counts(counts: tuple[int, ...]) -> None:
    for count in counts:
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ValueError(f"counts must be non-negative integers, got {counts}")


class _Tally(ABC):
    """Estimates shared by both tallies; subclasses say what a sample is worth.

    Edge cases, in order: with no samples every estimate is ``None``. With fewer than
    ``MIN_SAMPLES`` samples there is no spread to estimate, so ``elo_interval`` and ``los``
    are ``None``. When every sample has the same score (zero variance) the normal
    approximation degenerates: ``elo_interval`` is ``None`` and ``los`` takes its limit
    (1 above a 0.5 score, 0 below, 0.5 at it). A score of 0 or 1 gives an infinite ``elo``.
    """

    __slots__ = ()

    @property
    @abstractmethod
    def counts(self) -> tuple[int, ...]:
        """The bins, worst outcome for A first."""

    @property
    @abstractmethod
    def games(self) -> int:
        """Number of games played."""

    @abstractmethod
    def _sample_scores(self) -> tuple[float, ...]:
        """Per-game score of each bin of ``counts``."""

    @property
    def samples(self) -> int:
        """Number of independent samples: pairs for a pentanomial, games for a trinomial."""
        return sum(self.counts)

    def _summary(self) -> _Summary | None:
        if self.samples == 0:
            return None
        return _summarize(self._sample_scores(), self.counts)

    def _stderr(self) -> float | None:
        """Standard error of the mean per-game score, if a spread can be estimated."""
        summary = self._summary()
        if summary is None or summary.n < MIN_SAMPLES:
            return None
        return math.sqrt(summary.var / summary.n)

    @property
    def score(self) -> float | None:
        """Mean per-game score of A (win 1, draw 0.5, loss 0); ``None`` with no games."""
        summary = self._summary()
        return None if summary is None else summary.mean

    @property
    def elo(self) -> float | None:
        """Elo of A relative to B; ``±inf`` for a score of 1 or 0, ``None`` with no games."""
        score = self.score
        return None if score is None else elo_from_score(score)

    @property
    def elo_interval(self) -> tuple[float, float] | None:
        """95% confidence interval for the Elo, as ``(lower, upper)``.

        The interval is taken on the mean score (``score ± Z_95 * se``) and then mapped to
        Elo, because the score, not the Elo, is what is approximately normal. A bound whose
        score falls at or beyond 0 or 1 is ``-inf`` or ``+inf``. ``None`` when no spread
        can be estimated (see the class docstring).
        """
        se = self._stderr()
        score = self.score
        if se is None or score is None or se == 0.0:
            return None
        low = max(score - Z_95 * se, 0.0)
        high = min(score + Z_95 * se, 1.0)
        return elo_from_score(low), elo_from_score(high)

    @property
    def los(self) -> float | None:
        """Likelihood of superiority: the probability that A is truly stronger than B.

        Normal approximation ``Phi((score - 0.5) / se)``; ``None`` with too few samples, and
        the limit 1, 0 or 0.5 when the variance is zero.
        """
        se = self._stderr()
        score = self.score
        if se is None or score is None:
            return None
        if se == 0.0:
            return 1.0 if score > 0.5 else 0.0 if score < 0.5 else 0.5
        return normal_cdf((score - 0.5) / se)


@dataclass(frozen=True, slots=True)
class Pentanomial(_Tally):
    """Game pairs counted by A's pair score: 0 (LL), 0.5 (LD), 1 (DD or WL), 1.5 (WD), 2 (WW).

    The index of a bin in ``counts`` is twice the pair score.
    """

    ll: int = 0
    ld: int = 0
    dd_wl: int = 0
    wd: int = 0
    ww: int = 0

    def __post_init__(self) -> None:
        _check_counts(self.counts)

    @classmethod
    def from_pair_scores(cls, pair_scores: Iterable[float]) -> Pentanomial:
        """Tally pairs from A's pair scores (each 0, 0.5, 1, 1.5 or 2)."""
        bins = [0] * 5
        for pair_score in pair_scores:
            index = pair_score * 2
            if index not in range(5):
                raise ValueError(f"pair score {pair_score} is not 0, 0.5, 1, 1.5 or 2")
            bins[int(index)] += 1
        return cls(*bins)

    @property
    def counts(self) -> tuple[int, ...]:
        return (self.ll, self.ld, self.dd_wl, self.wd, self.ww)

    @property
    def games(self) -> int:
        return 2 * self.samples

    def _sample_scores(self) -> tuple[float, ...]:
        return _PAIR_SCORES


@dataclass(frozen=True, slots=True)
class Trinomial(_Tally):
    """Independent games counted as A's losses, draws and wins."""

    losses: int = 0
    draws: int = 0
    wins: int = 0

    def __post_init__(self) -> None:
        _check_counts(self.counts)

    @classmethod
    def from_scores(cls, scores: Iterable[float]) -> Trinomial:
        """Tally games from A's scores (each 0, 0.5 or 1)."""
        bins = [0] * 3
        for score in scores:
            index = score * 2
            if index not in range(3):
                raise ValueError(f"game score {score} is not 0, 0.5 or 1")
            bins[int(index)] += 1
        return cls(*bins)

    @property
    def counts(self) -> tuple[int, ...]:
        return (self.losses, self.draws, self.wins)

    @property
    def games(self) -> int:
        return self.samples

    def _sample_scores(self) -> tuple[float, ...]:
        return _GAME_SCORES


@dataclass(frozen=True, slots=True)
class SprtParams:
    """An SPRT of H0 ``elo = elo0`` against H1 ``elo = elo1`` (logistic Elo).

    ``alpha`` is the chance of accepting H1 when H0 holds, ``beta`` that of accepting H0
    when H1 holds. Invalid values raise ``ValueError`` with a one-line message.
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        for key in _SPRT_KEYS:
            if not math.isfinite(getattr(self, key)):
                raise ValueError(f"SPRT {key}={getattr(self, key)} is not a finite number")
        for key in ("elo0", "elo1"):
            if abs(getattr(self, key)) > _MAX_SPRT_ELO:
                raise ValueError(
                    f"SPRT {key}={getattr(self, key)} is beyond ±{_MAX_SPRT_ELO:g} Elo"
                )
        if self.elo0 >= self.elo1:
            raise ValueError(f"SPRT elo0={self.elo0} must be less than elo1={self.elo1}")
        for key in ("alpha", "beta"):
            if not 0.0 < getattr(self, key) < 1.0:
                raise ValueError(f"SPRT {key}={getattr(self, key)} must be between 0 and 1")
        if self.alpha + self.beta >= 1.0:
            raise ValueError(f"SPRT alpha+beta={self.alpha + self.beta} must be less than 1")

    @property
    def lower_bound(self) -> float:
        """Accept H0 once the LLR falls to this: ``log(beta / (1 - alpha))``."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper_bound(self) -> float:
        """Accept H1 once the LLR rises to this: ``log((1 - beta) / alpha)``."""
        return math.log((1.0 - self.beta) / self.alpha)


@dataclass(frozen=True, slots=True)
class SprtResult:
    """Where an SPRT stands: ``decision`` is ``"H0"``, ``"H1"`` or ``None`` (keep playing)."""

    llr: float
    lower_bound: float
    upper_bound: float
    decision: Decision


def parse_sprt(text: str) -> SprtParams:
    """Read ``"elo0=0,elo1=5,alpha=0.05,beta=0.05"``; ``alpha`` and ``beta`` are optional.

    Raises:
        ValueError: one line naming the bad part (unknown key, bad number, missing bound).
    """
    values: dict[str, float] = {}
    for part in text.split(","):
        key, sep, raw = (piece.strip() for piece in part.partition("="))
        if not sep:
            raise ValueError(f"SPRT part {part.strip()!r} is not key=value")
        if key not in _SPRT_KEYS:
            raise ValueError(f"SPRT part {part.strip()!r}: key must be one of {_SPRT_KEYS}")
        if key in values:
            raise ValueError(f"SPRT part {part.strip()!r}: {key} is given twice")
        try:
            values[key] = float(raw)
        except ValueError:
            raise ValueError(f"SPRT part {part.strip()!r}: {raw!r} is not a number") from None
    missing = [key for key in ("elo0", "elo1") if key not in values]
    if missing:
        raise ValueError(f"SPRT {text!r} is missing {' and '.join(missing)}")
    return SprtParams(**values)


def _constrained_mle(scores: tuple[float, ...], weights: list[float], s: float) -> list[float]:
    """Outcome distribution of highest likelihood whose expected per-game score is ``s``.

    Returns, for each bin, ``1 + lam * (a_i - s)``: the MLE is ``phat_i / (1 + lam * (a_i - s))``
    (Van den Bergh, "Comments on Normalized Elo", proposition 1.1), so the log-likelihood
    ratio of two such distributions needs only these denominators, ``phat`` cancels.

    ``lam`` is the one root of ``g(lam) = sum_i w_i (a_i - s) / (1 + lam (a_i - s))``, which
    falls strictly from ``+inf`` to ``-inf`` on the interval where every denominator is
    positive, provided every weight is positive and ``min a < s < max a`` (both guaranteed by
    the caller: regularized bins, a finite Elo). Newton steps converge fast from ``lam = 0``
    (the observed distribution), but near a pole of ``g`` they can overshoot, so the root is
    kept bracketed and a step that leaves the bracket is replaced by bisection.
    """
    deltas = [a - s for a in scores]
    low = -1.0 / max(deltas)
    high = -1.0 / min(deltas)
    lam = 0.0
    for _ in range(_ROOT_ITERATIONS):
        value = 0.0
        slope = 0.0
        for weight, delta in zip(weights, deltas, strict=True):
            term = delta / (1.0 + lam * delta)
            value += weight * term
            slope -= weight * term * term
        if value == 0.0:
            break
        if value > 0.0:
            low = lam
        else:
            high = lam
        step = lam - value / slope
        if abs(step - lam) <= 1e-15 * (1.0 + abs(lam)):
            lam = step
            break
        lam = step if low < step < high else 0.5 * (low + high)
    return [1.0 + lam * delta for delta in deltas]


def _llr(counts: _Tally, s0: float, s1: float) -> float:
    """Generalized log-likelihood ratio of expected per-game score ``s1`` against ``s0``.

    Each hypothesis is represented by its most likely outcome distribution (over the five
    pair bins or the three game bins) among those with that expected score, and
    ``LLR = sum_i n_i * log(p1_i / p0_i)``: fishtest's ``LLR_logistic`` and fastchess's
    logistic model. Empty bins first get ``REGULARIZATION`` pseudo-counts, as both do, so
    that the MLE exists (it needs mass on both sides of ``s``) and an all-wins or all-draws
    tally has a finite LLR; the pseudo-counts weigh 1e-3 of a sample, so they barely move it.
    """
    weights = [count if count else REGULARIZATION for count in counts.counts]
    scores = counts._sample_scores()
    denominators0 = _constrained_mle(scores, weights, s0)
    denominators1 = _constrained_mle(scores, weights, s1)
    # p1_i / p0_i = (phat_i / d1_i) / (phat_i / d0_i) = d0_i / d1_i.
    return sum(
        weight * math.log(d0 / d1)
        for weight, d0, d1 in zip(weights, denominators0, denominators1, strict=True)
    )


def sprt(
    counts: Pentanomial | Trinomial,
    elo0: float,
    elo1: float,
    alpha: float = 0.05,
    beta: float = 0.05,
) -> SprtResult:
    """Sequential probability ratio test of ``elo0`` against ``elo1`` on a match tally.

    Call it again after every pair (or game): the LLR drifts up when A is at least ``elo1``
    stronger and down when it is at most ``elo0``, and the test stops at the first bound
    crossed, with error rates close to ``alpha`` and ``beta``. With no samples the LLR is 0.

    The LLR is the exact multinomial one (see ``_llr``), not fishtest's normal shortcut
    ``N (s1 - s0) (2 m - s0 - s1) / (2 var)``: that one divides by the observed variance,
    which is near zero after a few pairs (one won pair has variance 0), so it crossed a
    bound after one to three pairs and made 12-57% errors where 5% was asked. The exact LLR
    of one won pair at bounds 0, 20 is +0.056; a test can only decide once the tally
    carries real evidence.

    Raises:
        ValueError: invalid parameters (see ``SprtParams``).
    """
    params = SprtParams(elo0, elo1, alpha, beta)
    llr = 0.0
    if counts.samples:
        llr = _llr(counts, score_from_elo(elo0), score_from_elo(elo1))
    decision: Decision = None
    if llr >= params.upper_bound:
        decision = "H1"
    elif llr <= params.lower_bound:
        decision = "H0"
    return SprtResult(llr, params.lower_bound, params.upper_bound, decision)


def sprt_sample_cap(
    params: SprtParams, *, variance: float | None = None, confidence: float = 0.99
) -> int:
    """Independent samples after which the SPRT has decided with probability ``confidence``.

    A sample is what the tally counts: a *pair* in a duplicate match (so the game cap is
    twice this), a *game* in a plain one. The same number serves both because it is
    derived from the per-sample variance of the per-game score, for which the default
    bound below holds for either kind of sample.

    Why this number: the test runs longest when A's true strength sits between the bounds,
    where the LLR has no drift (score ``m = (s0 + s1) / 2``); it then moves like a random
    walk with per-sample variance ``sigma**2 = (s1 - s0)**2 / variance`` (Wald's
    approximation, as in fishtest's ``LLR_drift_variance``). For a driftless Brownian
    motion started at 0 between ``a = lower_bound`` and ``b = upper_bound``, the chance of
    still being inside after ``t`` samples is, to its first term,
    ``(4 / pi) * sin(pi * |a| / L) * exp(-pi**2 * sigma**2 * t / (2 * L**2))``, ``L = b - a``.
    Solving that for ``1 - confidence`` gives the cap; at alpha = beta = 0.05 and 99% it
    is about 3.9 times Wald's expected sample number ``|a| * b / sigma**2`` there, and the
    next term of the series is negligible that deep in the tail. A test checked once per
    sample overshoots a bound by about ``0.583 * sigma`` (Siegmund's correction), which
    stretches the walk's corridor; both bounds are widened by that much, which only
    matters for wide Elo bounds, where ``sigma`` is large. The result is then multiplied by
    1.25: the diffusion picture ignores that the LLR of a real tally is noisier than a
    random walk while the outcome distribution is still being estimated, and simulation
    (2,000 runs at the worst point, bounds 0, 60) left 1.65% of pentanomial runs undecided
    at the unmultiplied cap instead of 1%; the margin cuts the tail by a factor of
    ``127 ** -0.25 ~ 0.3`` at 99%.

    ``variance`` is the per-sample variance of the per-game score. With ``None`` it is
    taken as ``m * (1 - m)``, the largest any outcome distribution on [0, 1] with mean
    ``m`` can have (all-or-nothing samples), so the cap holds whatever the game's draw rate
    or within-pair correlation: it is tight for plain games without draws and generous for
    duplicate pairs, whose variance is usually far smaller. Pass a measured variance (e.g.
    from an earlier match between similar bots) for a tighter cap.

    Raises:
        ValueError: ``variance`` is not positive and finite, or ``confidence`` is not
        strictly between 0 and 1.
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence={confidence} must be between 0 and 1")
    s0, s1 = score_from_elo(params.elo0), score_from_elo(params.elo1)
    mid = 0.5 * (s0 + s1)
    if variance is None:
        variance = mid * (1.0 - mid)
    if not (math.isfinite(variance) and variance > 0.0):
        raise ValueError(f"variance={variance} must be a positive number")
    sigma = (s1 - s0) / math.sqrt(variance)
    overshoot = _OVERSHOOT * sigma
    below = -params.lower_bound + overshoot
    width = params.upper_bound - params.lower_bound + 2.0 * overshoot
    decay = math.pi**2 * sigma**2 / (2.0 * width**2)
    prefactor = 4.0 / math.pi * math.sin(math.pi * below / width)
    samples = _CAP_SAFETY * math.log(prefactor / (1.0 - confidence)) / decay
    return max(1, math.ceil(samples))
