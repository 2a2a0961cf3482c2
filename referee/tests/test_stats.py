"""Match statistics against hand-computed values (the arithmetic is in the comments)."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pitch_referee.stats import (
    MIN_SAMPLES,
    REGULARIZATION,
    Z_95,
    Pentanomial,
    SprtParams,
    Trinomial,
    elo_from_score,
    normal_cdf,
    parse_sprt,
    score_from_elo,
    sprt,
    sprt_sample_cap,
)

# ln(0.05 / 0.95) = -2.944439, the SPRT bounds for alpha = beta = 0.05.
BOUND = math.log(19.0)


def approx(value: float) -> object:
    return pytest.approx(value, rel=1e-9, abs=1e-9)


# --- Elo and score conversions ------------------------------------------------------


def test_elo_of_known_scores() -> None:
    # 400*log10(s/(1-s)): s = 3/4 -> 400*log10(3) = 190.849; s = 2/3 -> 400*log10(2) = 120.412.
    assert elo_from_score(0.5) == 0.0
    assert elo_from_score(0.75) == approx(400 * math.log10(3))
    assert elo_from_score(0.75) == pytest.approx(190.8485, abs=1e-4)
    assert elo_from_score(2 / 3) == pytest.approx(120.4120, abs=1e-4)
    assert elo_from_score(0.25) == approx(-400 * math.log10(3))


def test_elo_of_extreme_scores_is_infinite() -> None:
    assert elo_from_score(1.0) == math.inf
    assert elo_from_score(0.0) == -math.inf
    with pytest.raises(ValueError, match="outside"):
        elo_from_score(1.5)


def test_score_from_elo_inverts_elo() -> None:
    # 1 / (1 + 10**(-400/400)) = 1/1.1 = 10/11.
    assert score_from_elo(400) == approx(10 / 11)
    assert score_from_elo(0) == 0.5
    for elo in (-300.0, -5.0, 0.0, 17.5, 250.0):
        assert elo_from_score(score_from_elo(elo)) == pytest.approx(elo, abs=1e-9)


def test_normal_cdf_reference_points() -> None:
    assert normal_cdf(0.0) == 0.5
    assert normal_cdf(Z_95) == pytest.approx(0.975, abs=1e-12)
    assert normal_cdf(-Z_95) == pytest.approx(0.025, abs=1e-12)


# --- Pentanomial estimates ------------------------------------------------------------


def test_balanced_pentanomial() -> None:
    # [LL, LD, DD/WL, WD, WW] = [5, 10, 20, 10, 5]: N = 50 pairs = 100 games.
    # Per-game scores 0, .25, .5, .75, 1 -> sum = 10*.25 + 20*.5 + 10*.75 + 5*1 = 25, mean = 0.5.
    # var = (5*.25 + 10*.0625 + 20*0 + 10*.0625 + 5*.25) / 50 = 3.75 / 50 = 0.075.
    # se = sqrt(0.075 / 50) = sqrt(0.0015) = 0.0387298; half-width 1.959964 * se = 0.0759091.
    # upper Elo = 400*log10(0.5759091 / 0.4240909) = 53.158; lower is its mirror.
    p = Pentanomial(5, 10, 20, 10, 5)
    assert p.samples == 50
    assert p.games == 100
    assert p.score == 0.5
    assert p.elo == 0.0
    assert p.los == 0.5
    half = Z_95 * math.sqrt(0.0015)
    assert p.elo_interval == (
        approx(elo_from_score(0.5 - half)),
        approx(elo_from_score(0.5 + half)),
    )
    assert p.elo_interval == (pytest.approx(-53.15798, abs=1e-5), pytest.approx(53.15798, abs=1e-5))


def test_skewed_pentanomial() -> None:
    # [0, 2, 4, 6, 8]: N = 20 pairs. sum = 2*.25 + 4*.5 + 6*.75 + 8*1 = 15, mean = 0.75.
    # Elo = 400*log10(0.75/0.25) = 400*log10(3) = 190.8485.
    # var = (2*.5**2 + 4*.25**2 + 6*0 + 8*.25**2) / 20 = (0.5 + 0.25 + 0.5) / 20 = 0.0625.
    # se = sqrt(0.0625/20) = 0.25/sqrt(20) = 0.0559017; LOS = Phi(0.25/se) = Phi(sqrt(20)).
    # score interval 0.75 -/+ 1.959964*0.0559017 = [0.640435, 0.859565]
    #   -> Elo [400*log10(0.640435/0.359565), 400*log10(0.859565/0.140435)] = [100.279, 314.722].
    p = Pentanomial(0, 2, 4, 6, 8)
    assert p.score == 0.75
    assert p.elo == approx(400 * math.log10(3))
    assert p.los == approx(normal_cdf(math.sqrt(20)))
    assert p.los == pytest.approx(0.99999613, abs=1e-8)
    half = Z_95 * 0.25 / math.sqrt(20)
    assert p.elo_interval == (
        approx(elo_from_score(0.75 - half)),
        approx(elo_from_score(0.75 + half)),
    )
    assert p.elo_interval == (pytest.approx(100.279, abs=1e-3), pytest.approx(314.722, abs=1e-3))


def test_interval_reaching_past_a_perfect_score_has_an_infinite_bound() -> None:
    # [0, 0, 1, 0, 2]: pair scores per game .5, 1, 1 -> mean 2.5/3 = 0.833333, Elo 400*log10(5).
    # var = ((1/3)**2 + 2*(1/6)**2) / 3 = 1/18; se = sqrt(1/54) = 0.136083;
    # half-width 0.266719: upper 1.10 > 1 -> +inf; lower 0.566614 -> 46.566 Elo.
    p = Pentanomial(0, 0, 1, 0, 2)
    assert p.elo == approx(400 * math.log10(5))
    low, high = p.elo_interval
    assert high == math.inf
    assert low == approx(elo_from_score(2.5 / 3 - Z_95 * math.sqrt(1 / 54)))
    assert low == pytest.approx(46.566, abs=1e-3)
    assert p.los == approx(normal_cdf((1 / 3) / math.sqrt(1 / 54)))


def test_pairs_not_games_are_the_samples() -> None:
    # Ten pairs each split win/loss: every pair scores exactly 0.5 per game, so the pair
    # variance is 0 and no interval can be estimated. The same 10 wins and 10 losses as
    # independent games have var 0.25, se = sqrt(0.25/20) = 0.111803: score 0.5 -/+ 0.219131.
    pairs = Pentanomial(dd_wl=10)
    games = Trinomial(losses=10, wins=10)
    assert pairs.score == games.score == 0.5
    assert pairs.elo_interval is None
    assert pairs.los == 0.5
    half = Z_95 * math.sqrt(0.25 / 20)
    assert games.elo_interval == (
        approx(elo_from_score(0.5 - half)),
        approx(elo_from_score(0.5 + half)),
    )


def test_all_wins_is_infinite_without_raising() -> None:
    p = Pentanomial(ww=10)
    assert p.score == 1.0
    assert p.elo == math.inf
    assert p.elo_interval is None  # zero variance: no spread to estimate
    assert p.los == 1.0  # the limit of Phi((1 - 0.5) / se) as se -> 0


def test_all_losses_is_minus_infinite() -> None:
    t = Trinomial(losses=7)
    assert t.elo == -math.inf
    assert t.elo_interval is None
    assert t.los == 0.0


def test_empty_tallies_have_no_estimates() -> None:
    for tally in (Pentanomial(), Trinomial()):
        assert tally.games == 0
        assert tally.score is None
        assert tally.elo is None
        assert tally.elo_interval is None
        assert tally.los is None


def test_a_single_sample_has_no_spread() -> None:
    assert MIN_SAMPLES == 2
    p = Pentanomial(wd=1)
    assert p.score == 0.75
    assert p.elo_interval is None
    assert p.los is None


def test_from_pair_scores_bins_by_twice_the_pair_score() -> None:
    p = Pentanomial.from_pair_scores([0, 0.5, 1, 1, 1.5, 2, 2, 2])
    assert p.counts == (1, 1, 2, 1, 3)
    with pytest.raises(ValueError, match=r"pair score 0\.3"):
        Pentanomial.from_pair_scores([0.3])


def test_counts_must_be_non_negative_integers() -> None:
    with pytest.raises(ValueError, match="non-negative"):
        Pentanomial(-1, 0, 0, 0, 0)
    with pytest.raises(ValueError, match="non-negative"):
        Trinomial(1.5, 0, 0)  # type: ignore[arg-type]


# --- Trinomial estimates ---------------------------------------------------------------


def test_skewed_trinomial() -> None:
    # L, D, W = 10, 20, 30: N = 60, mean = (20*0.5 + 30) / 60 = 2/3, Elo = 400*log10(2) = 120.41.
    # var = (10*(2/3)**2 + 20*(1/6)**2 + 30*(1/3)**2) / 60 = (40/9 + 5/9 + 30/9) / 60 = 5/36.
    # se = sqrt(5/36/60) = sqrt(1/432); LOS = Phi((1/6) * sqrt(432)) = Phi(2*sqrt(3)) = 0.999734.
    t = Trinomial(10, 20, 30)
    assert t.games == 60
    assert t.score == approx(2 / 3)
    assert t.elo == approx(400 * math.log10(2))
    assert t.los == approx(normal_cdf(2 * math.sqrt(3)))
    assert t.los == pytest.approx(0.999734, abs=1e-6)
    half = Z_95 * math.sqrt(1 / 432)
    assert t.elo_interval == (
        approx(elo_from_score(2 / 3 - half)),
        approx(elo_from_score(2 / 3 + half)),
    )
    assert t.elo_interval == (pytest.approx(50.642, abs=1e-3), pytest.approx(201.162, abs=1e-3))


def test_trinomial_from_scores() -> None:
    assert Trinomial.from_scores([1, 0.5, 1, 0]).counts == (1, 1, 2)
    with pytest.raises(ValueError, match="game score 2"):
        Trinomial.from_scores([2])


# --- SPRT ---------------------------------------------------------------------------------


def _brute_force_log_likelihood(weights: list[float], s: float) -> float:
    """Largest ``sum w_i log p_i`` over distributions on the equally spaced scores with mean s.

    A grid search, independent of the root search in ``stats``: every bin but two is free,
    the last two follow from ``sum p = 1`` and ``sum a p = s``. A grid centred on the best
    point so far moves to its best point, and halves its spacing when that is the centre.
    It starts at an exponentially tilted uniform distribution (found by bisection), which is
    feasible. Every grid point is a feasible distribution, so the result can only fall
    short of the true maximum, never exceed it.
    """
    size = len(weights)
    scores = [i / (size - 1) for i in range(size)]
    j, k = size // 2, size - 1  # solved bins: the middle one and the best one
    free = [i for i in range(size) if i not in (j, k)]

    def log_likelihood(point: tuple[float, ...]) -> float:
        probs = [0.0] * size
        for i, value in zip(free, point, strict=True):
            probs[i] = value
        rest_mass = 1.0 - sum(point)
        rest_score = s - sum(scores[i] * value for i, value in zip(free, point, strict=True))
        probs[k] = (rest_score - scores[j] * rest_mass) / (scores[k] - scores[j])
        probs[j] = rest_mass - probs[k]
        if min(probs) <= 0.0:
            return -math.inf
        return sum(w * math.log(p) for w, p in zip(weights, probs, strict=True))

    def tilted(theta: float) -> list[float]:
        raw = [math.exp(theta * a) for a in scores]
        return [r / sum(raw) for r in raw]

    def tilted_mean(theta: float) -> float:
        return sum(a * p for a, p in zip(scores, tilted(theta), strict=True))

    low, high = -100.0, 100.0
    for _ in range(100):
        mid = (low + high) / 2
        low, high = (mid, high) if tilted_mean(mid) < s else (low, mid)
    center = tuple(tilted(low)[i] for i in free)
    best = log_likelihood(center)
    steps = 4 if len(free) > 1 else 16
    half = min(center) / 2
    while half > 1e-11:
        axes = [[c + half * (2 * t / steps - 1) for t in range(steps + 1)] for c in center]
        value, point = max((log_likelihood(p), p) for p in itertools.product(*axes))
        if value > best:
            best, center = value, point
        else:
            half /= 2
    return best


def _brute_force_llr(counts: Pentanomial | Trinomial, elo0: float, elo1: float) -> float:
    weights = [count if count else REGULARIZATION for count in counts.counts]
    return _brute_force_log_likelihood(weights, score_from_elo(elo1)) - _brute_force_log_likelihood(
        weights, score_from_elo(elo0)
    )


def test_sprt_bounds() -> None:
    # log(beta/(1-alpha)) = log(0.05/0.95) = -log(19); log((1-beta)/alpha) = log(19).
    result = sprt(Pentanomial(5, 10, 20, 10, 5), 0, 5)
    assert result.lower_bound == approx(-BOUND)
    assert result.upper_bound == approx(BOUND)
    other = sprt(Trinomial(1, 1, 1), 0, 5, alpha=0.1, beta=0.2)
    assert other.lower_bound == approx(math.log(0.2 / 0.9))
    assert other.upper_bound == approx(math.log(0.8 / 0.1))


def test_sprt_llr_matches_fishtest_reference_vectors() -> None:
    # fishtest's own LLRcalc samples, LLR_logistic with logistic Elo bounds (their
    # LLR_normalized gives 0.30087 on the first, so these are not normalized Elo).
    assert sprt(Pentanomial(10789, 19328, 33806, 19402, 10543), -3, 1).llr == pytest.approx(
        2.1310678, abs=1e-6
    )
    assert sprt(Pentanomial(39, 2226, 31451, 2412, 40), 0.2, 0.9).llr == pytest.approx(
        2.1625426, abs=1e-6
    )


def test_one_won_pair_is_weak_evidence() -> None:
    # H1 (s1 = 0.5287506) can explain a WW pair only slightly better than H0 (s0 = 0.5):
    # the best distribution of each puts mass near s on WW and the rest on LL, so the LLR is
    # close to log(s1 / s0) = 0.0559, not the +7.49 of the normal approximation.
    llr = sprt(Pentanomial(ww=1), 0, 20).llr
    assert llr == pytest.approx(0.0560, abs=1e-4)
    assert llr == pytest.approx(_brute_force_llr(Pentanomial(ww=1), 0, 20), abs=1e-7)


@pytest.mark.parametrize("bounds", [(0, 20), (0, 30)])
@pytest.mark.parametrize(
    "counts",
    [Pentanomial(ww=1), Pentanomial(dd_wl=3), Trinomial(wins=1), Pentanomial(ll=1)],
    ids=["one won pair", "three drawn pairs", "one won game", "one lost pair"],
)
def test_a_few_samples_stay_undecided(
    counts: Pentanomial | Trinomial, bounds: tuple[float, float]
) -> None:
    result = sprt(counts, *bounds)
    assert result.decision is None
    assert abs(result.llr) < 0.5


def test_no_tally_of_up_to_ten_pairs_decides_at_0_20() -> None:
    for n in range(11):
        for bins in itertools.product(range(n + 1), repeat=4):
            if sum(bins) <= n:
                counts = Pentanomial(*bins, n - sum(bins))
                assert sprt(counts, 0, 20).decision is None, counts


@settings(max_examples=60, deadline=None)
@given(
    counts=st.lists(st.integers(0, 20), min_size=3, max_size=3).map(lambda c: Trinomial(*c)),
    elo0=st.floats(-200, 200),
    width=st.floats(1, 200),
)
def test_trinomial_llr_agrees_with_a_brute_force_grid_search(
    counts: Trinomial, elo0: float, width: float
) -> None:
    if counts.samples:
        assert sprt(counts, elo0, elo0 + width).llr == pytest.approx(
            _brute_force_llr(counts, elo0, elo0 + width), abs=1e-7
        )


@pytest.mark.parametrize(
    ("counts", "elo0", "elo1"),
    [
        (Pentanomial(0, 0, 0, 0, 1), 0, 20),
        (Pentanomial(1, 0, 0, 0, 0), 0, 20),
        (Pentanomial(0, 0, 3, 0, 0), -10, 30),
        (Pentanomial(0, 2, 5, 1, 0), 0, 60),
        (Pentanomial(3, 1, 0, 7, 12), 50, 200),
    ],
)
def test_pentanomial_llr_agrees_with_a_brute_force_grid_search(
    counts: Pentanomial, elo0: float, elo1: float
) -> None:
    assert sprt(counts, elo0, elo1).llr == pytest.approx(
        _brute_force_llr(counts, elo0, elo1), abs=1e-7
    )


def test_sprt_small_equal_sample_continues() -> None:
    # [5, 10, 20, 10, 5]: N = 50, mean 0.5 = s0, var 0.075 (see test_balanced_pentanomial).
    # The observed distribution already has mean s0, so it is H0's best; the exact LLR is
    # within a fraction of a percent of the normal approximation there,
    # -N * (s1 - 0.5)**2 / (2 * var) = -50 * 0.0071951**2 / 0.15 = -0.017256.
    s1 = score_from_elo(5)
    result = sprt(Pentanomial(5, 10, 20, 10, 5), 0, 5)
    assert result.llr == pytest.approx(-50 * (s1 - 0.5) ** 2 / 0.15, rel=1e-3)
    assert result.llr == pytest.approx(-0.0172534, abs=1e-7)
    assert result.decision is None


def test_sprt_accepts_h1_for_a_clearly_stronger_bot() -> None:
    # [2, 6, 12, 20, 40]: N = 80, mean 0.78125 (Elo +221) against bounds 0, 20.
    result = sprt(Pentanomial(2, 6, 12, 20, 40), 0, 20)
    assert result.llr == pytest.approx(4.0412910, abs=1e-6)
    assert result.decision == "H1"


def test_sprt_accepts_h0_for_a_clearly_weaker_bot() -> None:
    # [40, 80, 60, 16, 4]: N = 200, mean 0.33 (Elo -123) against bounds 0, 10.
    result = sprt(Pentanomial(40, 80, 60, 16, 4), 0, 10)
    assert result.llr == pytest.approx(-5.2037367, abs=1e-6)
    assert result.decision == "H0"


def test_trinomial_sprt_both_ways() -> None:
    # L, D, W = 20, 40, 60 against -10, 10: mean 2/3 (Elo +120) -> H1. The mirrored tally
    # against mirrored bounds (s0 = 1 - s1) has exactly the opposite LLR -> H0.
    stronger = sprt(Trinomial(20, 40, 60), -10, 10)
    weaker = sprt(Trinomial(60, 40, 20), -10, 10)
    assert stronger.llr == pytest.approx(3.4531628, abs=1e-6)
    assert stronger.decision == "H1"
    assert weaker.llr == approx(-stronger.llr)
    assert weaker.decision == "H0"


def test_llr_grows_linearly_with_the_same_proportions() -> None:
    # The best distributions depend only on the proportions, so twice the samples give
    # twice the LLR.
    once = sprt(Trinomial(10, 20, 30), -10, 10).llr
    twice = sprt(Trinomial(20, 40, 60), -10, 10).llr
    assert twice == approx(2 * once)
    assert once == pytest.approx(1.7265814, abs=1e-6)  # not yet decided


def test_sprt_regularizes_empty_bins() -> None:
    # All wins: without pseudo-counts no distribution with mean s0 or s1 < 1 could be fit
    # to the tally's support; with them the LLR is finite, positive, and grows with N.
    strong = sprt(Pentanomial(ww=50), 0, 5)
    assert math.isfinite(strong.llr)
    assert 0 < strong.llr < sprt(Pentanomial(ww=100), 0, 5).llr
    # All draws: mean 0.5 = s0, so the LLR is finite and negative.
    drawn = sprt(Pentanomial(dd_wl=10), 0, 5)
    assert math.isfinite(drawn.llr)
    assert drawn.llr < 0
    # The pseudo-counts are weighed like samples: one W, one L, and 1e-3 of a draw.
    assert sprt(Trinomial(1, 0, 1), 0, 5).llr == pytest.approx(
        _brute_force_llr(Trinomial(1, 0, 1), 0, 5), abs=1e-9
    )


def test_sprt_on_nothing_is_zero_and_undecided() -> None:
    result = sprt(Pentanomial(), 0, 5)
    assert result.llr == 0.0
    assert result.decision is None


def test_sprt_rejects_bad_parameters() -> None:
    with pytest.raises(ValueError, match="elo0=5 must be less than elo1=0"):
        sprt(Pentanomial(), 5, 0)
    with pytest.raises(ValueError, match=r"alpha=0\.0"):
        sprt(Pentanomial(), 0, 5, alpha=0.0)
    with pytest.raises(ValueError, match=r"alpha\+beta"):
        sprt(Pentanomial(), 0, 5, alpha=0.6, beta=0.5)


# --- SPRT sample cap -------------------------------------------------------------------------


def test_sample_cap_at_alpha_beta_5_percent() -> None:
    # Bounds +-log(19); worst point m = (s0 + s1) / 2, variance m (1 - m). At 0, 20:
    # sigma = 0.0287506 / 0.4997931 = 0.0575249, corridor L = 2 log(19) + 2 * 0.583 sigma
    # = 5.955952; 2 L**2 / (pi**2 sigma**2) * log(4 / (pi * 0.01)) = 10528.6 samples,
    # times the 1.25 margin = 13160.7 -> 13161 pairs (26,322 games) or games.
    assert sprt_sample_cap(SprtParams(0, 20)) == 13161
    assert sprt_sample_cap(SprtParams(0, 10)) == 51999
    assert sprt_sample_cap(SprtParams(-3, 1)) == 322682


def test_sample_cap_grows_as_the_bounds_narrow() -> None:
    caps = [sprt_sample_cap(SprtParams(0, width)) for width in (200, 100, 60, 20, 10, 5, 1)]
    assert caps == sorted(caps)
    assert len(set(caps)) == len(caps)
    # Roughly as 1 / width**2 once the bounds are narrow.
    assert caps[-1] / caps[-2] == pytest.approx(25, rel=0.01)


def test_sample_cap_grows_with_confidence_and_variance() -> None:
    params = SprtParams(0, 20)
    assert sprt_sample_cap(params, confidence=0.9) < sprt_sample_cap(params)
    assert sprt_sample_cap(params) < sprt_sample_cap(params, confidence=0.999)
    assert sprt_sample_cap(params, variance=0.0625) < sprt_sample_cap(params)
    # Expected samples scale with the variance; the cap nearly so (the overshoot term aside).
    assert sprt_sample_cap(params, variance=0.0625) == pytest.approx(13161 / 4, rel=0.05)


def test_sample_cap_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError, match="confidence=1"):
        sprt_sample_cap(SprtParams(0, 20), confidence=1)
    with pytest.raises(ValueError, match="variance=0"):
        sprt_sample_cap(SprtParams(0, 20), variance=0)


# --- parse_sprt ----------------------------------------------------------------------------


def test_parse_sprt_full_and_defaults() -> None:
    assert parse_sprt("elo0=0,elo1=5,alpha=0.05,beta=0.05") == SprtParams(0.0, 5.0, 0.05, 0.05)
    assert parse_sprt(" elo1 = 2.5 , elo0=-1.5 ") == SprtParams(-1.5, 2.5)
    assert parse_sprt("elo0=0,elo1=5,beta=0.1") == SprtParams(0.0, 5.0, 0.05, 0.1)


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("elo0=0,elo1=abc", "'elo1=abc'"),
        ("elo0=0,elo1=5,gamma=1", "'gamma=1'"),
        ("elo0=0,elo1", "'elo1'"),
        ("elo0=0,elo0=1,elo1=5", "elo0 is given twice"),
        ("elo0=0", "missing elo1"),
        ("alpha=0.1", "missing elo0 and elo1"),
        ("elo0=5,elo1=0", "elo0=5.0 must be less than elo1=0.0"),
        ("elo0=0,elo1=5,beta=1", "beta=1.0 must be between 0 and 1"),
        ("elo0=0,elo1=nan", "elo1=nan is not a finite number"),
        ("elo0=0,elo1=7000", "elo1=7000.0 is beyond ±4000 Elo"),
        ("", "'' is not key=value"),
    ],
)
def test_parse_sprt_names_the_bad_part(text: str, named: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_sprt(text)
    message = str(caught.value)
    assert named in message
    assert "\n" not in message
