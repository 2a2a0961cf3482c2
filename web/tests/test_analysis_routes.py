"""A game's analysis through the API (``/api/analysis/{key}``): started on request, its
progress, its result at the viewer's steps, kept, bounded, and the refusals."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session

from pitch_sdk.analysis.choices import decision_values
from pitch_sdk.analysis.costs import play_costs
from pitch_sdk.analysis.par import hand_pars
from pitch_sdk.bots import RandomBot
from pitch_sdk.deck import deck_for
from pitch_sdk.gamerecord import GameRecord, Player
from pitch_sdk.options import RuleOptions
from pitch_sdk.record import GameRecorder, write_record
from pitch_sdk.selfplay import play_game
from pitch_testkit.analysis import (
    RELEASE,
    SAMPLES,
    failing_analyse,
    held_analyse,
    quick_analyse,
)
from pitch_testkit.ladder import add_game_with_record, add_match, ladder_with
from pitch_web.analysis_jobs import AnalysisJobs
from pitch_web.analysis_store import AnalysisStore
from pitch_web.app import create_app
from pitch_web.source import FolderSource, LadderSource
from pitch_web.timeline import timeline

GAME = "m/games/g.json"


def a_game(seed: int = 7, hand_cap: int = 2) -> GameRecord:
    bots = [RandomBot(f"{seed}:{seat}") for seat in range(4)]
    return play_game(bots, seed=seed, options=RuleOptions(hand_cap=hand_cap))


def unfinished_game() -> GameRecord:
    """The record of a game stopped in its first hand (as written while it is played)."""
    players = [Player(seat, "first", "1") for seat in range(4)]
    recorder = GameRecorder(players=players)
    recorder.deal(deck_for(3, 1))
    for _ in range(12):
        recorder.decide(recorder.state.legal_actions()[0])
    return recorder.record()


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    served = tmp_path / "served"
    (served / "m" / "games").mkdir(parents=True)
    for seed in (7, 8, 9):
        name = "g.json" if seed == 7 else f"g{seed}.json"
        write_record(a_game(seed), served / "m" / "games" / name)
    (served / "corrupt.json").write_text('{"format": "pitch-game-record", "hands": [')
    write_record(unfinished_game(), served / "unfinished.json")
    return served


def client_for(folder: Path, store: Path, **options: Any) -> Iterator[TestClient]:
    app = create_app(FolderSource(folder))
    options.setdefault("analyse", quick_analyse)
    app.state.analyses = jobs = AnalysisJobs(AnalysisStore(store), nice=0, **options)
    try:
        yield TestClient(app)
    finally:
        jobs.close()


@pytest.fixture
def client(folder: Path, tmp_path: Path) -> Iterator[TestClient]:
    yield from client_for(folder, tmp_path / "kept")


@pytest.fixture
def release(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The file that lets held analyses finish, once the test creates it."""
    path = tmp_path / "release"
    monkeypatch.setenv(RELEASE, str(path))
    return path


def finished(client: TestClient, key: str = GAME, timeout: float = 120) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        answer = client.get(f"/api/analysis/{key}").json()
        if answer["state"] not in ("queued", "running"):
            return answer
        time.sleep(0.05)
    raise AssertionError(f"the analysis of {key} did not finish in {timeout} s")


def test_an_analysis_is_none_until_asked_then_runs_and_gives_each_card_at_its_step(client):
    assert client.get(f"/api/analysis/{GAME}").json() == {"state": "none"}
    started = client.post(f"/api/analysis/{GAME}")
    assert started.status_code == 202
    assert started.json()["state"] in ("queued", "running")
    assert started.json()["total"] == 2
    answer = finished(client)
    assert answer["state"] == "done"
    analysis = answer["analysis"]
    record, steps = a_game(), timeline(a_game())["steps"]
    costs = list(play_costs(record))
    plays = [decision for decision in analysis["decisions"] if decision["kind"] == "play"]
    assert len(plays) == len(costs)
    for decision, cost in zip(plays, costs, strict=True):
        step = steps[decision["step"]]
        assert step["k"] == "play" and step["s"] == decision["seat"] == cost.seat
        assert step["card"] == decision["chosen"] == cost.played
        assert decision["cost"] == cost.cost
        assert decision["value"] == cost.value + cost.cost
    pars = [par.as_dict() for par in hand_pars(record)]
    assert analysis["pars"] == pars
    before_play = [decision for decision in analysis["decisions"] if decision["kind"] != "play"]
    valued = [value.to_json() for value in decision_values(record, samples=SAMPLES)]
    assert before_play == valued and valued  # the bids, trumps... valued, at their steps
    for decision in before_play:
        assert steps[decision["step"]]["k"] == decision["kind"]
    assert [d["step"] for d in analysis["decisions"]] == sorted(
        d["step"] for d in analysis["decisions"]
    )


def test_progress_counts_hands_while_the_analysis_runs(folder, tmp_path, release):
    for client in client_for(folder, tmp_path / "kept", analyse=held_analyse):
        client.post(f"/api/analysis/{GAME}")
        deadline = time.monotonic() + 60
        while client.get(f"/api/analysis/{GAME}").json()["done"] == 0:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert client.get(f"/api/analysis/{GAME}").json() == {
            "state": "running",
            "done": 1,
            "total": 2,
        }
        release.touch()
        assert finished(client)["state"] == "done"


def test_a_game_asked_for_again_while_running_joins_the_one_analysis(folder, tmp_path, release):
    for client in client_for(folder, tmp_path / "kept", analyse=held_analyse):
        answers = [client.post(f"/api/analysis/{GAME}") for _ in range(5)]
        assert {answer.status_code for answer in answers} == {202}
        jobs: AnalysisJobs = client.app.state.analyses
        assert len(jobs._jobs) == 1
        release.touch()
        assert finished(client)["state"] == "done"
        assert jobs.store.count() == 1


def test_a_kept_analysis_is_served_again_at_once_even_by_a_new_server(folder, tmp_path):
    for client in client_for(folder, tmp_path / "kept"):
        client.post(f"/api/analysis/{GAME}")
        first = finished(client)
    for client in client_for(folder, tmp_path / "kept", analyse=failing_analyse):
        again = client.post(f"/api/analysis/{GAME}")  # from the store: no analysis runs
        assert again.status_code == 200
        assert again.json() == first
        assert client.get(f"/api/analysis/{GAME}").json() == first


def test_a_rewritten_record_is_analysed_afresh(client, folder):
    client.post(f"/api/analysis/{GAME}")
    assert finished(client)["state"] == "done"
    write_record(a_game(seed=11), folder / GAME)  # the same name, another game
    assert client.get(f"/api/analysis/{GAME}").json() == {"state": "none"}
    client.post(f"/api/analysis/{GAME}")
    decisions = finished(client)["analysis"]["decisions"]
    chosen = [decision["chosen"] for decision in decisions if decision["kind"] == "play"]
    assert chosen == [cost.played for cost in play_costs(a_game(seed=11))]


def test_analyses_beyond_the_workers_and_queue_are_a_503_with_retry_after(
    folder, tmp_path, release
):
    for client in client_for(folder, tmp_path / "kept", analyse=held_analyse, queued=1):
        assert client.post(f"/api/analysis/{GAME}").status_code == 202
        assert client.post("/api/analysis/m/games/g8.json").status_code == 202
        refused = client.post("/api/analysis/m/games/g9.json")
        assert refused.status_code == 503
        assert int(refused.headers["Retry-After"]) > 0
        assert "busy" in refused.json()["detail"]
        assert client.get("/api/analysis/m/games/g9.json").json() == {"state": "none"}
        release.touch()
        assert finished(client)["state"] == "done"
        assert finished(client, "m/games/g8.json")["state"] == "done"
        assert client.post("/api/analysis/m/games/g9.json").status_code == 202


def test_a_failed_analysis_says_why_and_may_be_asked_for_again(folder, tmp_path):
    for client in client_for(folder, tmp_path / "kept", analyse=failing_analyse):
        client.post(f"/api/analysis/{GAME}")
        answer = finished(client)
        assert answer == {
            "state": "failed",
            "detail": "the analysis failed: ArithmeticError: the solver gave up",
        }
        assert client.post(f"/api/analysis/{GAME}").status_code == 202


@pytest.mark.parametrize("method", ["get", "post"])
def test_a_missing_game_is_a_404(client, method):
    answer = getattr(client, method)("/api/analysis/m/games/nope.json")
    assert answer.status_code == 404
    assert "nope.json" in answer.json()["detail"]


@pytest.mark.parametrize("method", ["get", "post"])
def test_a_corrupt_record_is_a_422_that_says_why(client, method):
    answer = getattr(client, method)("/api/analysis/corrupt.json")
    assert answer.status_code == 422
    assert answer.json()["detail"].startswith("this game's record cannot be read")


def test_a_game_that_is_not_over_is_not_analysed(client):
    answer = client.post("/api/analysis/unfinished.json")
    assert answer.status_code == 422
    assert answer.json()["detail"] == "this game is not over: it is analysed once it ends"


def test_the_page_shows_the_par_column_once_the_analysis_is_kept(client):
    page = client.get(f"/view/{GAME}").text
    assert 'data-testid="par-heading" title=' in page and " hidden>par</th>" in page
    assert '<script src="/static/analysis.js"></script>' in page
    client.post(f"/api/analysis/{GAME}")
    pars = finished(client)["analysis"]["pars"]
    page = client.get(f"/view/{GAME}").text
    assert " hidden>par</th>" not in page
    for par in pars:
        taken = par["taken"]
        made = "made" if par["made"] else "set"
        assert (
            f'<span class="team0">{taken[0]}</span> – <span class="team1">{taken[1]}</span>'
            f'<span class="par-result wide"> {made}</span>'
        ) in page


def test_a_ladder_keeps_its_games_analyses_under_its_folder(tmp_path):
    db = f"sqlite:///{tmp_path / 'ladder.db'}"
    ladder, versions = ladder_with(db, tmp_path, ["alpha", "beta"])
    with Session(ladder.engine) as session:
        match = add_match(session, 1, versions["alpha"], versions["beta"])
        number = add_game_with_record(session, match, "pair-00000-a", 1.0, a_game().to_json())
    ladder.close()
    source = LadderSource(tmp_path / "ladder", db)
    app = create_app(source)
    try:
        client = TestClient(app)
        assert client.post(f"/api/analysis/{number}").status_code == 202
        assert finished(client, str(number))["state"] == "done"
        kept = list((tmp_path / "ladder" / "analysis").iterdir())
        assert len(kept) == 1 and kept[0].name.endswith(".analysis.json")
        assert client.post("/api/analysis/999").status_code == 404
        assert client.get("/api/analysis/not-a-number").status_code == 404
    finally:
        app.state.analyses.close()
        source.close()
