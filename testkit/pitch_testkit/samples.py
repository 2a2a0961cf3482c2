"""Small real data for the web tests: a game record played by the engine, a ladder of three
bots written straight into the database, and a finished match folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sqlmodel import Session

from pitch_ladder.ladder import Ladder
from pitch_ladder.models import Game, GameRecord
from pitch_ladder.rating_tables import rerate
from pitch_sdk.bots import GreedyBot
from pitch_sdk.gamerecord import GameRecord as SdkGameRecord
from pitch_sdk.options import RuleOptions
from pitch_sdk.record import write_record
from pitch_sdk.selfplay import play_game
from pitch_testkit.ladder import add_match, game_row, ladder_with


def game_record(seed: int = 7) -> SdkGameRecord:
    """A real one-hand game's record."""
    return play_game([GreedyBot(s) for s in range(4)], seed, RuleOptions.from_dict({"hand_cap": 1}))


def timeout_fault(seat: int) -> dict[str, Any]:
    return {
        "hand": 1,
        "decision": 0,
        "seat": seat,
        "kind": "timeout",
        "detail": "no answer in time",
        "decision_kind": "bid",
    }


def build_ladder(url: str, folder: Path) -> Ladder:
    """alpha beat beta 3-1, then beta and gamma drew one and gamma won one: 6 games.

    Game 4 (alpha against beta, won by beta) has a timeout of alpha (A, team 0: seat 2).
    """
    ladder, versions = ladder_with(url, folder, ["alpha", "beta", "gamma"])
    record = game_record().to_json()  # as the database holds it
    with Session(ladder.engine) as session:
        first = add_match(session, 1, versions["alpha"], versions["beta"])
        second = add_match(session, 1, versions["beta"], versions["gamma"])
        results = [(first, 1.0), (first, 1.0), (first, 1.0), (first, 0.0)]
        results += [(second, 0.5), (second, 0.0)]
        games: list[Game] = []
        for n, (match, score) in enumerate(results):
            game = game_row(session, match, f"pair-{n // 2:05d}-{'ab'[n % 2]}", score, (7, 6))
            games.append(game)
        games[3].faults = 1
        session.add_all(games)
        session.flush()
        for game in games:
            stored = record if game.faults == 0 else {**record, "faults": [timeout_fault(2)]}
            session.add(GameRecord.model_validate({"game_id": game.id, "record": stored}))
        rerate(session, {game.id for game in games if game.id is not None})
        session.commit()
    return ladder


def match_folder(root: Path, games: int = 2) -> Path:
    """A finished match folder (header, summary, compressed records) of greedy against random."""
    root.mkdir(parents=True)
    (root / "games").mkdir()
    bots = {"a": {"name": "greedy", "version": "1.0"}, "b": {"name": "random", "version": "1.0"}}
    header = {"format": "pitch-match", "version": 1, "bots": bots, "settings": {}}
    (root / "match.json").write_text(json.dumps(header))
    entries = []
    for n in range(games):
        game = f"pair-00000-{'ab'[n]}"
        record = game_record(seed=n + 1)
        write_record(record, root / "games" / f"{game}.json.gz")
        assert record.result is not None
        scores = record.result.scores
        a_team = n % 2
        a_score = 1.0 if scores[a_team] > scores[1 - a_team] else 0.0
        entries.append(
            {
                "game": game,
                "record": f"games/{game}.json.gz",
                "a_team": a_team,
                "a_score": a_score,
                "scores": scores,
                "termination": "hand_cap",
            }
        )
    summary = {
        "bots": bots,
        "status": "finished",
        "games_planned": games,
        "games_played": games,
        "result": {"a": {"wins": 1, "losses": 1, "draws": 0}, "points": {"a": 20, "b": 6}},
        "stats": {"elo": 0.0},
        "games": entries,
    }
    (root / "summary.json").write_text(json.dumps(summary))
    return root
