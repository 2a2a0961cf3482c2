"""The scheduler's choice of matches: placement against a spread, then uncertainty."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pitch_ladder.pairing import Entrant, PairingSettings, next_pairings


def _rated(name: str, rating: float, width: float = 100.0, matches: int = 50) -> Entrant:
    return Entrant(name, rating, width, 0, matches)


def _new(name: str) -> Entrant:
    return Entrant(name, None, None, None, 0)


def test_a_new_version_plays_a_spread_of_the_field_first():
    field = [_rated(f"b{r:02d}", rating=100.0 * r) for r in range(10)]
    pairs = next_pairings([*field, _new("newcomer")], {}, PairingSettings(matches=4, placement=4))
    opponents = [a if b == "newcomer" else b for a, b in pairs if "newcomer" in (a, b)]
    assert len(opponents) == 4
    assert opponents[0] == "b09" and opponents[-1] == "b00"  # the strongest and the weakest
    assert set(opponents) < {f"b{r:02d}" for r in range(10)}


def test_placement_prefers_opponents_not_met_yet():
    field = [_rated(name, rating) for name, rating in (("x", 300), ("y", 200), ("z", 100))]
    placing = Entrant("p", 150.0, 400.0, 0, 1)
    pairs = next_pairings(
        [*field, placing], {frozenset(("p", "x")): 2}, PairingSettings(matches=1, placement=3)
    )
    assert pairs == [("p", "z")]


def test_the_widest_intervals_get_the_next_match():
    entrants = [
        _rated("sure", 0.0, width=20.0),
        _rated("steady", 50.0, width=20.0),
        _rated("unsure", 25.0, width=400.0),
        _rated("vague", 30.0, width=300.0),
    ]
    assert next_pairings(entrants, {}, PairingSettings(matches=1, placement=0)) == [
        ("unsure", "vague")
    ]


def test_games_already_played_together_lower_a_pairs_priority():
    entrants = [_rated(name, 0.0, width=100.0) for name in ("a", "b", "c")]
    played = {frozenset(("a", "b")): 100, frozenset(("a", "c")): 100}
    assert next_pairings(entrants, played, PairingSettings(matches=1, placement=0)) == [("b", "c")]


def test_versions_whose_results_do_not_connect_are_paired_first():
    entrants = [
        Entrant("a1", 0.0, 300.0, 0, 50),
        Entrant("a2", 10.0, 300.0, 0, 50),
        Entrant("b1", 0.0, 100.0, 1, 50),
    ]
    pairs = next_pairings(entrants, {}, PairingSettings(matches=1, placement=0))
    assert pairs[0][1] == "b1" or pairs[0][0] == "b1"


def test_one_version_is_not_in_every_match_of_a_step():
    entrants = [_rated(f"b{n}", 0.0, width=100.0 + n) for n in range(8)]
    pairs = next_pairings(entrants, {}, PairingSettings(matches=4, placement=0))
    names = [name for pair in pairs for name in pair]
    assert len(pairs) == 4 and len(set(names)) == 8


def test_fewer_than_two_versions_have_nothing_to_play():
    assert next_pairings([_rated("alone", 0.0)], {}, PairingSettings()) == []


def test_settings_refuse_a_step_without_matches():
    with pytest.raises(ValueError, match="at least one match"):
        PairingSettings(matches=0)


entrants = st.lists(
    st.builds(
        Entrant,
        name=st.text("abcdef", min_size=1, max_size=4),
        rating=st.none() | st.floats(-800, 800),
        width=st.none() | st.floats(1, 900),
        group=st.none() | st.integers(0, 2),
        matches=st.integers(0, 10),
    ),
    min_size=2,
    max_size=12,
    unique_by=lambda e: e.name,
)


@given(entrants, st.integers(1, 20), st.integers(0, 8))
def test_a_step_is_as_many_distinct_pairs_as_asked_for_while_pairs_are_left(
    field, matches, placement
):
    pairs = next_pairings(field, {}, PairingSettings(matches=matches, placement=placement))
    names = {e.name for e in field}
    assert len(pairs) == len(set(pairs))
    for a, b in pairs:
        assert a < b and {a, b} <= names
    possible = len(field) * (len(field) - 1) // 2
    assert len(pairs) == min(matches, possible), "a step fills up while pairs are left"
