"""The scheduler's choice of matches: placement against a spread, then uncertainty."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pitch_ladder.pairing import Entrant, PairingSettings, next_pairings, next_quartets
from pitch_ladder.schedule import team_matches


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


def test_settings_refuse_negative_quartets():
    with pytest.raises(ValueError, match="quartets per step cannot be negative"):
        PairingSettings(quartets=-1)


def test_a_quartet_starts_from_the_bots_that_partnered_least():
    partnered = {frozenset("ab"): 6, frozenset("cd"): 6, frozenset("ae"): 2}
    # a and c never partnered; f never partnered either of them; then e (2) before b or d (6)
    assert next_quartets(list("abcdef"), partnered, 1) == [("a", "c", "e", "f")]
    assert next_quartets(list("abcdef"), {}, 1) == [("a", "b", "c", "d")]


def test_fewer_than_four_bots_make_no_quartet_and_none_asked_none_given():
    assert next_quartets(list("abc"), {}, 3) == []
    assert next_quartets(list("abcdefgh"), {}, 0) == []


@given(st.integers(4, 30), st.integers(0, 9))
def test_a_steps_quartets_are_four_different_bots_each_in_one_group_at_most(count, asked):
    names = [f"bot{n:02d}" for n in range(count)]
    groups = next_quartets(names, {}, asked)
    assert len(groups) == min(asked, count // 4)
    members = [bot for group in groups for bot in group]
    assert len(members) == len(set(members)) and set(members) <= set(names)
    assert all(list(group) == sorted(group) for group in groups)


def _play_steps(names, partnered, per_step, steps):
    """Play ``steps`` scheduler steps of quartets, counting partnerships in team matches."""
    for _step in range(steps):
        for group in next_quartets(names, partnered, per_step):
            for a, a_partner, b, b_partner in team_matches(group):
                for pair in (frozenset((a, a_partner)), frozenset((b, b_partner))):
                    partnered[pair] = partnered.get(pair, 0) + 1


@given(st.integers(4, 16), st.integers(1, 3))
def test_steps_of_quartets_make_every_two_bots_partners_and_keep_the_partnerships_even(
    count, per_step
):
    names = [f"bot{n:02d}" for n in range(count)]
    pairs = [frozenset(pair) for pair in combinations(names, 2)]
    partnered: dict[frozenset[str], int] = {}
    while not all(partnered.get(pair) for pair in pairs):  # each step partners a new pair
        _play_steps(names, partnered, per_step, 1)
    assert max(partnered.values()) <= 4, "nobody partners four times before all have once"
    _play_steps(names, partnered, per_step, 30)
    counts = [partnered[pair] for pair in pairs]
    assert max(counts) - min(counts) <= 3, "in the long run the partnerships stay even"


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


@given(
    st.lists(st.floats(50, 400), min_size=2, max_size=12),
    st.integers(1, 4),
    st.integers(0, 3),
)
def test_steps_come_round_to_every_pairing_so_the_round_robin_completes(widths, per_step, placing):
    """However uneven the intervals (held fixed here, the worst case: no game narrows
    them), the games a pairing has played lower its priority until every pairing has
    had a match: the uncertainty order is a round robin's, most informative first."""
    names = [f"bot{n:02d}" for n in range(len(widths))]
    games: dict[frozenset[str], int] = {}
    matches = dict.fromkeys(names, 0)
    pairs = {frozenset(pair) for pair in combinations(names, 2)}
    steps = 0
    while not all(games.get(pair) for pair in pairs):
        steps += 1
        assert steps <= 50 * len(pairs), "some pairing never came round"
        entrants = [
            Entrant(name, 1500.0 + n, width, 0, matches[name])
            for n, (name, width) in enumerate(zip(names, widths, strict=True))
        ]
        settings = PairingSettings(matches=per_step, placement=placing)
        for a, b in next_pairings(entrants, games, settings):
            games[frozenset((a, b))] = games.get(frozenset((a, b)), 0) + 2
            matches[a] += 1
            matches[b] += 1
