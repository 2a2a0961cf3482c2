"""The kept analyses (``analysis_store``) and the analysis's shape (``game_analysis``):
invalidation, the bound, keys that are never paths, and each decision at its step."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pitch_sdk.analysis.costs import PlayCost, play_costs
from pitch_sdk.bots import RandomBot
from pitch_sdk.options import RuleOptions
from pitch_sdk.selfplay import play_game
from pitch_web.analysis_store import AnalysisStore, cache_folder
from pitch_web.game_analysis import FORMAT_VERSION, decision_steps, play_decision
from pitch_web.timeline import timeline

ANALYSIS = {"version": FORMAT_VERSION, "decisions": [], "pars": []}


def test_an_analysis_is_served_for_its_record_version_only_and_a_stale_one_removed(
    tmp_path: Path,
):
    store = AnalysisStore(tmp_path)
    store.put("m/g.json", (1, 2), ANALYSIS)
    assert store.get("m/g.json", (1, 2)) == ANALYSIS
    assert store.get("m/g.json", (3, 2)) is None  # the record was rewritten
    assert store.count() == 0
    assert store.get("m/g.json", (1, 2)) is None


def test_an_analysis_of_another_format_is_not_served(tmp_path: Path):
    store = AnalysisStore(tmp_path)
    store.put("412", None, {**ANALYSIS, "version": FORMAT_VERSION - 1})
    assert store.get("412", None) is None


def test_the_store_keeps_at_most_its_limit_and_drops_the_oldest_written(tmp_path: Path):
    store = AnalysisStore(tmp_path, limit=3)
    for number in range(5):
        store.put(str(number), None, ANALYSIS)
        for path in tmp_path.iterdir():  # each file older than the next, on any clock
            os.utime(path, ns=(path.stat().st_mtime_ns - 10**9,) * 2)
    assert store.count() == 3
    assert [store.get(str(n), None) is not None for n in range(5)] == [False] * 2 + [True] * 3


def test_a_key_never_names_a_path_outside_the_store(tmp_path: Path):
    store = AnalysisStore(tmp_path / "kept")
    store.put("../../escape.json", None, ANALYSIS)
    assert [path.parent for path in (tmp_path / "kept").iterdir()] == [tmp_path / "kept"]
    assert store.get("../../escape.json", None) == ANALYSIS
    assert store.get("escape.json", None) is None


def test_an_unreadable_kept_file_is_no_analysis(tmp_path: Path):
    store = AnalysisStore(tmp_path)
    store.put("7", None, ANALYSIS)
    next(tmp_path.iterdir()).write_text("{not json")
    assert store.get("7", None) is None


def test_each_folder_served_has_its_own_cache_folder(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    one, other = cache_folder(tmp_path / "a"), cache_folder(tmp_path / "b")
    assert one != other and one.parent == other.parent == tmp_path / "cache/pitch/analysis"
    assert cache_folder(tmp_path / "a") == one


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000))
def test_every_card_played_is_placed_at_its_own_play_step(seed: int):
    bots = [RandomBot(f"{seed}:{seat}") for seat in range(4)]
    record = play_game(bots, seed=seed, options=RuleOptions(hand_cap=2))
    steps = timeline(record)["steps"]
    placed = decision_steps(steps)
    decisions = [n for n, step in enumerate(steps) if step["k"] not in ("deal", "fault", "end")]
    assert sorted(placed.values()) == decisions  # every decision has its own step
    for cost in play_costs(record):
        step = steps[placed[cost.hand, cost.index]]
        assert (step["k"], step["s"], step["card"]) == ("play", cost.seat, cost.played)


@pytest.mark.parametrize(
    ("cost", "best", "named"),
    [(0, ("AS", "KS"), "KS"), (2, ("AS", "KS"), "AS")],
    ids=["a best card", "a costly card"],
)
def test_a_card_played_has_the_shared_decision_shape(cost: int, best: tuple, named: str):
    played = "KS" if cost == 0 else "2S"
    decision = play_decision(PlayCost(1, 9, 2, played, best, 5, cost), 30)
    top = 5.0 + cost
    assert decision == {
        "step": 30,
        "seat": 2,
        "kind": "play",
        "chosen": played,
        "best": named,
        "value": top,
        "cost": float(cost),
        "error": None,
        "samples": None,
        "choices": [{"action": card, "value": top, "error": None} for card in best]
        + ([{"action": "2S", "value": 5.0, "error": None}] if cost else []),
    }
