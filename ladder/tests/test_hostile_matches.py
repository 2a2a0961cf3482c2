"""A match that kills its pool worker fails alone; the run's other matches finish and are stored."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlmodel import Session, select

from pitch_ladder.errors import LadderError
from pitch_ladder.ladder import Ladder
from pitch_ladder.models import Match
from pitch_ladder.schedule_writer import schedule_rounds
from pitch_testkit.ladder import GREEDY, RANDOM, write_bot

HONEST = """
from pitch_sdk.bots import RandomBot
from pitch_sdk.run import run

raise SystemExit(run(RandomBot()))
"""
KILLER = """
import os, signal

os.kill(os.getppid(), signal.SIGKILL)  # in a ladder, the pool worker that started it
"""


def _play_unsandboxed(ladder: Ladder) -> None:
    """Schedule a round whose bots run outside the sandbox, which would stop the killer."""
    schedule_rounds(ladder.engine, 1, 2, {"hand_cap": 2})
    with Session(ladder.engine) as session:
        for match in session.exec(select(Match)).all():
            match.settings = {**match.settings, "sandbox": "off"}
            session.add(match)
        session.commit()


@pytest.mark.slow
def test_a_match_that_kills_its_worker_is_named_and_the_other_matches_are_stored(
    tmp_path: Path,
) -> None:
    with Ladder.init(tmp_path / "ladder") as ladder:
        ladder.submit(GREEDY)
        ladder.submit(RANDOM)
        killer = ladder.submit(write_bot(tmp_path / "killer", "killer", HONEST)).folder
        (killer / "bot.py").write_text(KILLER)  # it passed its smoke test, then turned
        _play_unsandboxed(ladder)
        problems: list[str] = []
        with pytest.raises(LadderError) as failed:
            ladder.run(workers=2, progress=lambda progress: problems.extend(progress.problems))
        games = [(game.a, game.b) for game in ladder.games()]
        with Session(ladder.engine) as session:
            status = {m.folder: m.status for m in session.exec(select(Match)).all()}

    assert "matches/0001-greedy-vs-killer (greedy vs killer): its worker process died" in str(
        failed.value
    )
    assert "2 problem(s)" in str(failed.value)
    assert [problem.split(" ")[0] for problem in problems] == [
        "matches/0001-greedy-vs-killer",
        "matches/0001-killer-vs-random",
    ]
    assert games == [("greedy", "random")] * 2
    assert status == {
        "matches/0001-greedy-vs-killer": "pending",
        "matches/0001-greedy-vs-random": "finished",
        "matches/0001-killer-vs-random": "pending",
    }
