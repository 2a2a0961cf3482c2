"""Matches publish their games live: a ladder's match (written as the ladder's executor
writes it, then played by ``resume_match``) has a journal per game while the game is
played, and none once it is over."""

from __future__ import annotations

import textwrap
import threading
import time

import pytest

from pitch_referee.live import live_journals
from pitch_referee.match import Entrant, MatchFolder, MatchSettings, resume_match

SLOW_BOT = textwrap.dedent(
    """
    import time

    from pitch_sdk.bots import RandomBot
    from pitch_sdk.run import run


    class Slow(RandomBot):
        name = "slow"

        def decide(self, view):
            time.sleep(0.03)
            return super().decide(view)


    if __name__ == "__main__":
        raise SystemExit(run(Slow()))
    """
)


@pytest.mark.slow
def test_a_ladder_match_journals_each_game_while_it_is_played_and_not_after(tmp_path):
    bot = tmp_path / "slow"
    bot.mkdir()
    (bot / "bot.toml").write_text(
        'name = "slow"\nversion = "1.0"\ncommand = ["python", "bot.py"]\n'
    )
    (bot / "bot.py").write_text(SLOW_BOT)
    ladder = tmp_path / "ladder"
    root = ladder / "matches" / "0001-slow-vs-slow"
    settings = MatchSettings(
        games=2, seed=3, concurrency=1, sandbox="off", rules={"hand_cap": 1}, duplicate=True
    )
    slow = Entrant.from_argument(str(bot))
    MatchFolder(root).write_header(slow, slow, settings)
    seen: set[str] = set()
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            seen.update(journal.game for journal in live_journals(ladder))
            time.sleep(0.05)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        summary = resume_match(root, announce=lambda _: None)
    finally:
        done.set()
        watcher.join()
    assert summary.games_played == 2
    assert seen == {"pair-00000-a", "pair-00000-b"}
    assert live_journals(ladder) == [] and not list((root / "live").iterdir())
