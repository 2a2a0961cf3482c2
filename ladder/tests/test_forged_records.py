"""The ladder stores only games its referee played: forged records are refused, moved aside."""

from __future__ import annotations

import copy
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session, col, select

from pitch_ladder.errors import LadderError
from pitch_ladder.importer import REJECTED
from pitch_ladder.ladder import Ladder
from pitch_ladder.models import Game, GameRecord, Match
from pitch_ladder.schedule import match_folder
from pitch_ladder.verify import refusal
from pitch_referee.match import GameSpec, MatchSettings, schedule
from pitch_sdk.bots import GreedyBot, RandomBot
from pitch_sdk.gamerecord import GameRecord as SdkGameRecord
from pitch_sdk.gamerecord import RecordError
from pitch_sdk.record import load_record, write_record
from pitch_sdk.selfplay import play_game
from pitch_testkit.ladder import GREEDY, RANDOM

SETTINGS = MatchSettings(games=2, seed=11, rules={"hand_cap": 2})
SPEC = schedule(SETTINGS)[1]  # side b: random in seats 0 and 2


def _honest(spec: GameSpec = SPEC) -> dict[str, Any]:
    """A record as the referee writes it for ``spec`` of greedy (A) vs random (B), in its
    file's form (JSON), to forge."""
    bots = [RandomBot(0), GreedyBot(1), RandomBot(2), GreedyBot(3)]
    if spec.side == "a":
        bots = [GreedyBot(0), RandomBot(1), GreedyBot(2), RandomBot(3)]
    return play_game(bots, spec.seed, SETTINGS.options(), spec.first_dealer).to_json()


def _forged(change: Any) -> dict[str, Any]:
    record = copy.deepcopy(_honest())
    change(record)
    return record


def _claim_a_forfeit_by_seat_0(record: dict[str, Any]) -> None:
    """A forfeit before the first deal: the engine takes a forfeit as the record says."""
    record["hands"] = []
    result = {"termination": "forfeit", "winner": 1, "forfeited_by": 0, "scores": [0, 0]}
    record["result"] = {**result, "hands": 0}


def _why(record: dict[str, Any]) -> str | None:
    """Why the ladder refuses a record file holding ``record``: it does not read (the
    importer refuses it with ``load_record``'s message), or ``refusal``'s reason."""
    try:
        typed = SdkGameRecord.from_json(record)
    except RecordError as error:
        return str(error)
    return refusal(typed, SPEC, SETTINGS, ("greedy", "greedy", "random", "random"))


def test_an_honest_record_of_the_schedule_is_accepted() -> None:
    assert _why(_honest()) is None


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda r: r["result"].update(winner=1 - r["result"]["winner"]), "winner"),
        (lambda r: r["result"].update(scores=[55, 0]), "scores"),
        (lambda r: r["hands"][0].update(scores=[13, 0]), "hand 1"),
        (lambda r: r.update(seed="99.1"), "seed"),
        (lambda r: r.update(first_dealer=(r["first_dealer"] + 1) % 4), "first dealer"),
        (lambda r: r["rules"].update(hand_cap=3), "rules"),
        (lambda r: r["players"].reverse(), "players"),
        (lambda r: r["players"][0].update(name="greedy"), "players"),
        (lambda r: r.update(hands=r["hands"][:1]), "the engine disagrees"),
        (lambda r: r.update(result=None), "no result"),
        (lambda r: r.update(faults=7), "faults"),
        (_claim_a_forfeit_by_seat_0, "forfeit by seat 0 without its fault"),
    ],
)
def test_a_forged_record_is_refused_naming_what_is_wrong(change: Any, reason: str) -> None:
    assert reason in (_why(_forged(change)) or "")


def _ladder(folder: Path) -> Ladder:
    ladder = Ladder.init(folder)
    ladder.submit(GREEDY)
    ladder.submit(RANDOM)
    return ladder


def _run(ladder: Ladder) -> str | None:
    """One quick round; the problems it reported if it failed, one a line."""
    problems: list[str] = []
    try:
        ladder.run(
            games_per_match=2,
            rules={"hand_cap": 2},
            workers=1,
            progress=lambda progress: problems.extend(progress.problems),
        )
    except LadderError as error:
        assert problems[0] in str(error)
        return "\n".join(problems)
    assert not problems
    return None


def _stored(ladder: Ladder) -> list[tuple[Match, Game, GameRecord]]:
    with Session(ladder.engine) as session:
        query = (
            select(Match, Game, GameRecord)
            .join(Game, col(Game.match_id) == col(Match.id))
            .join(GameRecord, col(GameRecord.game_id) == col(Game.id))
        )
        return list(session.exec(query).all())


def _pending(ladder: Ladder) -> list[Match]:
    with Session(ladder.engine) as session:
        return list(session.exec(select(Match).where(Match.status == "pending")).all())


def _all_honest(ladder: Ladder) -> None:
    """Every stored game is one of its match's schedule, confirmed by the engine."""
    for match, game, stored in _stored(ladder):
        settings = MatchSettings(**match.settings)
        spec = next(s for s in schedule(settings) if s.game_id == game.game_id)
        assert (
            refusal(
                SdkGameRecord.from_json(stored.record),
                spec,
                settings,
                ("greedy", "greedy", "random", "random"),
            )
            is None
        )


@pytest.mark.slow
def test_records_planted_before_a_run_are_refused_moved_aside_and_replayed(
    tmp_path: Path,
) -> None:
    ladder = _ladder(tmp_path / "ladder")
    assert _run(ladder) is None
    first = tmp_path / "ladder" / match_folder(1, "greedy", "random") / "games"
    planted = tmp_path / "ladder" / match_folder(2, "greedy", "random") / "games"
    planted.mkdir(parents=True)
    other_seed = (first / "pair-00000-a.json").read_bytes()
    (planted / "pair-00000-a.json").write_bytes(other_seed)  # round 1's game, in round 2
    (planted / "pair-00042-a.json").write_bytes(other_seed)  # not a game of the schedule
    truncated = (first / "pair-00000-b.json").read_bytes()
    (planted / "pair-00000-b.json").write_bytes(truncated[: len(truncated) // 2])

    error = _run(ladder) or ""
    assert "pair-00000-a.json refused: its seed" in error
    assert "pair-00042-a.json refused: not a game of the match's schedule" in error
    assert (planted / f"pair-00000-a{REJECTED}").read_bytes() == other_seed
    assert (planted / f"pair-00042-a{REJECTED}").exists()
    _all_honest(ladder)

    if _pending(ladder):  # the match read its folder before the run moved the forgeries
        assert _run(ladder) is None  # the next run plays the refused game
    _all_honest(ladder)
    assert sorted((m.round, g.game_id) for m, g, _ in _stored(ladder)) == [
        (1, "pair-00000-a"), (1, "pair-00000-b"), (2, "pair-00000-a"), (2, "pair-00000-b"),
    ]  # fmt: skip
    ladder.close()


def _flip_winners(folder: Path, stop: threading.Event) -> None:
    """Rewrite every record that appears under ``folder`` so that the other team won."""
    flipped: set[Path] = set()
    while not stop.is_set():
        for path in folder.glob("matches/*/games/pair-*[ab].json"):
            if path in flipped:
                continue
            try:
                record = load_record(path)
            except ValueError:
                continue
            result = record.result
            if result is not None and result.winner is not None:
                won = replace(result, winner=1 - result.winner, scores=result.scores[::-1])
                write_record(replace(record, result=won), path)
            flipped.add(path)
        stop.wait(0.001)


@pytest.mark.slow
def test_records_forged_while_a_run_imports_are_never_stored(tmp_path: Path) -> None:
    ladder = _ladder(tmp_path / "ladder")
    stop = threading.Event()
    forger = threading.Thread(target=_flip_winners, args=(tmp_path / "ladder", stop))
    forger.start()
    try:
        error = _run(ladder)
    finally:
        stop.set()
        forger.join()
    _all_honest(ladder)
    if error:  # the forger was quicker than the import, as it nearly always is
        assert "refused: the engine disagrees with it (result: recorded winner" in error
    if _pending(ladder):
        assert _run(ladder) is None
    _all_honest(ladder)
    assert len(_stored(ladder)) == 2
    ladder.close()
