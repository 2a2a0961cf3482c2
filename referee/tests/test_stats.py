"""Match statistics against hand-computed values (the arithmetic is in the comments)."""

from __future__ import annotations

import math

import pytest

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


def test_sprt_bounds() -> None:
    # log(beta/(1-alpha)) = log(0.05/0.95) = -log(19); log((1-beta)/alpha) = log(19).
    result = sprt(Pentanomial(5, 10, 20, 10, 5), 0, 5)
    assert result.lower_bound == approx(-BOUND)
    assert result.upper_bound == approx(BOUND)
    other = sprt(Trinomial(1, 1, 1), 0, 5, alpha=0.1, beta=0.2)
    assert other.lower_bound == approx(math.log(0.2 / 0.9))
    assert other.upper_bound == approx(math.log(0.8 / 0.1))


def test_sprt_small_equal_sample_continues() -> None:
    # [5, 10, 20, 10, 5]: N = 50, mean 0.5, var 0.075 (see test_balanced_pentanomial).
    # s0 = 0.5, s1 = 1/(1 + 10**(-5/400)) = 0.5071951.
    # LLR = 50 * (s1 - 0.5) * (1 - 0.5 - s1) / (2 * 0.075) = -50 * 0.0071951**2 / 0.15 = -0.017256.
    s1 = score_from_elo(5)
    result = sprt(Pentanomial(5, 10, 20, 10, 5), 0, 5)
    assert result.llr == approx(-50 * (s1 - 0.5) ** 2 / 0.15)
    assert result.llr == pytest.approx(-0.017256, abs=1e-6)
    assert result.decision is None


def test_sprt_accepts_h1_for_a_clearly_stronger_bot() -> None:
    # [1, 3, 6, 10, 20]: N = 40, sum = 3*.25 + 6*.5 + 10*.75 + 20 = 31.25, mean = 0.78125.
    # squared deviations from 0.78125: 0.6103516, 0.2822266, 0.0791016, 0.0009766, 0.0478516
    # var = (1*0.6103516 + 3*0.2822266 + 6*0.0791016 + 10*0.0009766 + 20*0.0478516) / 40
    #     = 2.8984375 / 40 = 0.0724609375.
    # elo0 = 0, elo1 = 20: s0 = 0.5, s1 = 1/(1 + 10**-0.05) = 0.5287506.
    # LLR = 40 * 0.0287506 * (1.5625 - 0.5 - 0.5287506) / (2 * 0.0724609375) = 4.2356 > 2.9444.
    s1 = score_from_elo(20)
    expected = 40 * (s1 - 0.5) * (2 * 0.78125 - 0.5 - s1) / (2 * 0.0724609375)
    result = sprt(Pentanomial(1, 3, 6, 10, 20), 0, 20)
    assert result.llr == approx(expected)
    assert result.llr == pytest.approx(4.23555, abs=1e-5)
    assert result.decision == "H1"


def test_sprt_accepts_h0_for_a_clearly_weaker_bot() -> None:
    # [20, 40, 30, 8, 2]: N = 100, sum = 40*.25 + 30*.5 + 8*.75 + 2 = 33, mean = 0.33.
    # var = (20*.33**2 + 40*.08**2 + 30*.17**2 + 8*.42**2 + 2*.67**2) / 100
    #     = (2.178 + 0.256 + 0.867 + 1.4112 + 0.8978) / 100 = 0.05610.
    # elo1 = 10: s1 = 0.5143872; LLR = 100 * 0.0143872 * (0.66 - 1.0143872) / 0.1122 = -4.5442.
    s1 = score_from_elo(10)
    expected = 100 * (s1 - 0.5) * (0.66 - 0.5 - s1) / (2 * 0.0561)
    result = sprt(Pentanomial(20, 40, 30, 8, 2), 0, 10)
    assert result.llr == approx(expected)
    assert result.decision == "H0"


def test_trinomial_sprt_both_ways() -> None:
    # L, D, W = 20, 40, 60: N = 120, mean 2/3, var 5/36 (as in test_skewed_trinomial).
    # elo0 = -10, elo1 = 10: s0 = 1 - s1, so s0 + s1 = 1 and s1 - s0 = 2*s1 - 1 = 0.0287744.
    # LLR = 120 * 0.0287744 * (4/3 - 1) / (2 * 5/36) = 120 * 0.0287744 * 1.2 = 4.1435 -> H1.
    # Mirrored counts give mean 1/3 and exactly the opposite LLR -> H0.
    s1 = score_from_elo(10)
    stronger = sprt(Trinomial(20, 40, 60), -10, 10)
    weaker = sprt(Trinomial(60, 40, 20), -10, 10)
    assert stronger.llr == approx(120 * (2 * s1 - 1) * 1.2)
    assert stronger.decision == "H1"
    assert weaker.llr == approx(-stronger.llr)
    assert weaker.decision == "H0"


def test_llr_grows_linearly_with_the_same_proportions() -> None:
    # Same mean and variance, twice the samples: N doubles, so does the LLR.
    once = sprt(Trinomial(10, 20, 30), -10, 10).llr
    twice = sprt(Trinomial(20, 40, 60), -10, 10).llr
    assert twice == approx(2 * once)
    assert once == pytest.approx(2.0718, abs=1e-4)  # 60 * 0.0287744 * 1.2; not yet decided


def test_sprt_regularizes_empty_bins() -> None:
    # All wins: the raw variance is 0; empty bins get REGULARIZATION pseudo-counts, so the LLR
    # is finite and (with mean ~1 far above s1) clearly for H1.
    strong = sprt(Pentanomial(ww=50), 0, 5)
    assert math.isfinite(strong.llr)
    assert strong.decision == "H1"
    # All draws: regularized mean is exactly 0.5 = s0, so the LLR is finite and negative.
    drawn = sprt(Pentanomial(dd_wl=10), 0, 5)
    assert math.isfinite(drawn.llr)
    assert drawn.llr < 0
    # The regularized count enters N: one W, one L, one pseudo-draw in a trinomial.
    # N = 2.001, mean = 0.5, var = (0.25 + 0.25) / 2.001; s0 = 0.5 -> LLR = -N*(s1-.5)**2/(2var).
    n = 2 + REGULARIZATION
    var = 0.5 / n
    s1 = score_from_elo(5)
    assert sprt(Trinomial(1, 0, 1), 0, 5).llr == approx(-n * (s1 - 0.5) ** 2 / (2 * var))


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
        ("", "'' is not key=value"),
    ],
)
def test_parse_sprt_names_the_bad_part(text: str, named: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_sprt(text)
    message = str(caught.value)
    assert named in message
    assert "\n" not in message
