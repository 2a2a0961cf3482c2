"""The arena as a service, end to end over real HTTP on 127.0.0.1: a real ``pitch serve``
process with its scheduler, authors using ``pitch submit`` and the API, on SQLite and on
PostgreSQL; and the server killed with -9 in the middle of a game, then started again."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session, select

from pitch_ladder.game_query import GameQuery
from pitch_ladder.ladder import Ladder
from pitch_ladder.models import Game, LadderIdentity, RatingHistory
from pitch_ladder.ownership import OWNER_ROW
from pitch_ladder.pairing import PairingSettings
from pitch_ladder.scheduler import Scheduler, SchedulerSettings
from pitch_sdk import reference
from pitch_testkit.ladder import DEAL_SECRET, comparable_ladder
from pitch_testkit.processes import start, stop

pytestmark = pytest.mark.slow
GREEDY, RANDOM = reference.folder("greedy"), reference.folder("random")
SETTINGS = """
[scheduler]
workers = 1
games_per_match = 2
matches_per_step = 1
placement_matches = 1
timing_grid_ms = 0   # the grid has tests of its own (ladder/tests/test_scheduler.py)
rules = { hand_cap = %d }
"""


def pitch(*args: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pitch_cli", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **(env or {})},
    )


def token(ladder: list[str | Path], name: str, *options: str) -> str:
    added = pitch("ladder", "author", "add", name, *options, *ladder)
    assert added.returncode == 0, added.stderr
    return added.stdout.strip().splitlines()[-1]


def api(address: str, path: str, token: str | None = None, method: str = "GET") -> tuple[int, Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    request = urllib.request.Request(f"{address}api/{path}", headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def wait_for(condition, what: str, seconds: float = 240) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.2)


def new_ladder(tmp_path: Path, url: str, hand_cap: int) -> tuple[list[str | Path], Path]:
    folder = tmp_path / "ladder"
    where: list[str | Path] = ["--ladder", folder, "--db", url]
    assert pitch("ladder", "init", *where).returncode == 0
    settings = tmp_path / "arena.toml"
    settings.write_text(SETTINGS % hand_cap)
    return where, settings


def test_two_authors_submit_the_scheduler_plays_and_each_reaches_only_their_own(
    tmp_path: Path, db_url: str
) -> None:
    where, settings = new_ladder(tmp_path, db_url, hand_cap=2)
    alice, bob = token(where, "alice"), token(where, "bob")
    process, address = start("serve", *where, "--port", "0", "--config", settings)
    try:
        submitted = pitch("submit", GREEDY, "--server", address, env={"PITCH_TOKEN": alice})
        assert submitted.returncode == 0, submitted.stderr
        assert "accepted: greedy" in submitted.stdout
        token_file = tmp_path / "bob.token"
        token_file.write_text(bob + "\n")
        submitted = pitch("submit", RANDOM, "--server", address, "--token-file", token_file)
        assert submitted.returncode == 0, submitted.stderr

        def played() -> bool:
            lines = api(address, "standings")[1]["standings"]
            return len(lines) == 2 and all(line["games"] >= 4 for line in lines)

        wait_for(played, "two steps of games")
        status, logs = api(address, "bots/greedy/logs", alice)
        assert status == 200 and logs and all("/A" in log["path"] for log in logs)
        assert api(address, "bots/greedy/logs", bob)[0] == 403
        assert api(address, "bots/greedy/retire", bob, "POST")[0] == 403
        retired = pitch("author", "retire", "random", "--server", address, "--token", bob)
        assert retired.returncode == 0 and retired.stdout.startswith("retired random")
        active = {bot["name"]: bot["active"] for bot in api(address, "bots")[1]}
        assert active == {"greedy": True, "random": False}
        mine = pitch("author", "submissions", "--server", address, env={"PITCH_TOKEN": alice})
        assert "greedy" in mine.stdout and "accepted" in mine.stdout
        assert "random" not in mine.stdout
        listed = pitch("author", "logs", "greedy", "--server", address, "--token", alice)
        # the first log with lines in it (a match still being played has empty ones)
        first = next(
            path for size, path in map(str.split, listed.stdout.splitlines()) if size != "0"
        )
        shown = pitch("author", "logs", "greedy", first, "--server", address, "--token", alice)
        assert shown.returncode == 0 and shown.stdout

        crasher = tmp_path / "crasher"  # refused: its smoke test is read by its number
        crasher.mkdir()
        (crasher / "bot.toml").write_text(
            'name = "crasher"\nversion = "1"\ncommand = "python bot.py"\n'
        )
        (crasher / "bot.py").write_text("import sys\nprint('crasher says', file=sys.stderr)\n")
        refused = pitch("submit", crasher, "--server", address, "--token", alice)
        assert refused.returncode == 1 and str(tmp_path) not in refused.stderr
        mine = pitch("author", "submissions", "--server", address, "--token", alice).stdout
        number = next(line for line in mine.splitlines() if "crasher" in line).split()[0][1:]
        listed = pitch("author", "logs", "-s", number, "--server", address, "--token", alice)
        assert listed.returncode == 0 and "A1-a-crasher.log" in listed.stdout, listed.stderr
        path = next(word for word in listed.stdout.split() if word.endswith("A1-a-crasher.log"))
        shown = pitch("author", "logs", "-s", number, path, "--server", address, "--token", alice)
        assert "crasher says" in shown.stdout
        theirs = pitch("author", "logs", "-s", number, "--server", address, "--token", bob)
        assert theirs.returncode == 1 and "403" in theirs.stderr
        stranger = pitch("submit", GREEDY, "--server", address, "--token", bob)
        assert stranger.returncode == 1
        assert "403" in stranger.stderr and "belongs to another author" in stranger.stderr
        assert "Traceback" not in stranger.stderr
    finally:
        code, _, err = stop(process)
    assert code == 0, err
    assert "Traceback" not in err
    assert '"POST /api/submissions HTTP/1.1" 201' in err, "each request is logged"
    assert "round 1: greedy vs random" in err, "each scheduler step is logged"


def test_a_server_killed_mid_game_loses_and_repeats_no_game_when_started_again(
    tmp_path: Path,
) -> None:
    where, settings = new_ladder(tmp_path, f"sqlite:///{tmp_path / 'ladder.db'}", hand_cap=6)
    folder = Path(where[1])
    with Ladder.open(folder, str(where[3])) as ladder:
        with Session(ladder.engine) as session:  # deals an uninterrupted ladder can repeat
            session.get_one(LadderIdentity, OWNER_ROW).deal_secret = DEAL_SECRET
            session.commit()
        ladder.submit(GREEDY)
        ladder.submit(RANDOM)
    settings.write_text(settings.read_text().replace("games_per_match = 2", "games_per_match = 24"))
    process, address = start("serve", *where, "--port", "0", "--config", settings)
    try:
        wait_for(
            lambda: sum(line["games"] for line in api(address, "standings")[1]["standings"]) >= 2,
            "games",
        )
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.communicate()
    with Ladder.open(folder, str(where[3])) as ladder:
        games_before = {(g.match_id, g.game_id) for g in ladder.games(GameQuery(limit=1000))}
    assert 1 <= len(games_before) < 24, "the kill came after the first match ended"
    process, address = start("serve", *where, "--port", "0", "--config", settings)
    try:

        def first_match() -> list[tuple[int, str]]:
            games = api(address, "games?match=1&limit=100")[1]["games"]
            return [(int(game["match"]), game["game"]) for game in games]

        wait_for(lambda: len(first_match()) >= 24, "the resumed match")
        assert api(address, "scheduler/pause", method="POST")[0] == 401  # no token
        resumed = first_match()
    finally:
        stop(process)
    assert len(resumed) == len(set(resumed)) == 24, "every game of the match, once each"
    assert games_before <= set(resumed)

    reference = tmp_path / "uninterrupted" / "ladder"
    comparable_ladder(reference)  # greedy and random, the same deals
    once = SchedulerSettings(
        pairing=PairingSettings(matches=1, placement=1), games_per_match=24, rules={"hand_cap": 6}
    )
    with Ladder.open(reference) as ladder, Scheduler(ladder, once, workers=1) as scheduler:
        assert scheduler.step() is not None
    killed = _first_round(folder, str(where[3]))
    assert len(killed) == 2 * 24 and killed == _first_round(reference, None), (
        "the same games, and the same ratings after each, as an uninterrupted run's"
    )


def _first_round(folder: Path, db: str | None) -> list[tuple[Any, ...]]:
    """The first round's games in the Elo order, each with its result and the two Elo
    ratings it left."""
    with Ladder.open(folder, db) as ladder, Session(ladder.engine) as session:
        rows = session.exec(
            select(
                Game.game_id,
                Game.a_score,
                Game.a_points,
                Game.b_points,
                RatingHistory.version_id,
                RatingHistory.rating,
            )
            .join(RatingHistory, RatingHistory.game_id == Game.id)  # type: ignore[arg-type]
            .where(Game.round == 1)
            .order_by(Game.match_id, Game.game_id, RatingHistory.version_id)  # type: ignore[arg-type]
        )
        return [tuple(row) for row in rows]
