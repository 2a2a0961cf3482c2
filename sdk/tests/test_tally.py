"""The search tally (``pitch_sdk.tally``): the totals and the choice a
plain sum gives, and sequential sampling that settles a clear choice early and never a
close one."""

from __future__ import annotations

import math
import statistics

from hypothesis import given
from hypothesis import strategies as st

from pitch_sdk.tally import SETTLE_AFTER, Tally

VALUES = st.integers(-40, 40).map(float)
"""A candidate's value on one sample: a hand's score difference, the game bonus too."""


def _tally(rows: list[list[float]], paired: bool = True) -> Tally:
    tally = Tally(len(rows[0]), paired=paired)
    for row in rows:
        tally.add(row)
    return tally


@given(st.lists(st.lists(VALUES, min_size=3, max_size=3), min_size=1, max_size=40))
def test_the_best_and_the_means_are_those_of_the_plain_sums(rows):
    tally = _tally(rows)
    sums = [sum(row[i] for row in rows) for i in range(3)]
    assert tally.best() == max(range(3), key=lambda i: (sums[i], -i))
    assert tally.means() == [total / len(rows) for total in sums]


@given(st.lists(VALUES, min_size=SETTLE_AFTER, max_size=200), st.integers(1, 5))
def test_a_candidate_ahead_on_every_sample_settles_as_soon_as_allowed(base, lead):
    tally = Tally(3)
    for sample, value in enumerate(base, start=1):
        # the third ties the first on every sample: a tie, not a close call
        tally.add([value + lead + sample % 2, value, value + lead + sample % 2])
        assert tally.settled() == (sample >= SETTLE_AFTER)
    assert tally.best() == 0


@given(
    st.lists(st.tuples(VALUES, VALUES), min_size=1, max_size=100),
    st.lists(st.integers(1, 10), min_size=1, max_size=100),
)
def test_a_close_choice_never_settles(bases, gaps):
    # the second candidate is ahead by a gap on one sample and behind by it on the next:
    # level after every pair of samples, whatever the samples' own values
    tally = Tally(2)
    for index, (first, second) in enumerate(bases):
        gap = gaps[index % len(gaps)]
        tally.add([first, first + gap])
        assert not tally.settled()
        tally.add([second, second - gap])
        assert not tally.settled()


def test_without_the_differences_a_tally_never_settles():
    tally = _tally([[10.0, 0.0]] * 50, paired=False)
    assert tally.best() == 0 and not tally.settled()


def test_before_enough_samples_nothing_settles():
    tally = _tally([[10.0, 0.0]] * (SETTLE_AFTER - 1))
    assert not tally.settled()
    tally.add([10.0, 0.0])
    assert tally.settled()


@given(st.lists(st.lists(VALUES, min_size=3, max_size=3), min_size=2, max_size=60))
def test_the_paired_error_is_the_standard_error_of_the_differences(rows):
    tally = _tally(rows)
    for first in range(3):
        for second in range(3):
            differences = [row[first] - row[second] for row in rows]
            expected = statistics.stdev(differences) / math.sqrt(len(rows))
            assert math.isclose(tally.paired_error(first, second), expected, abs_tol=1e-6)
