"""`pitch match` end to end: duplicate pairs, statistics in the summary, resume after kill -9."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pitch_cli import app
from pitch_referee.match import (
    Entrant,
    MatchError,
    MatchSettings,
    SettingError,
    run_match,
    schedule,
)
from pitch_referee.seeds import bot_seed
from pitch_sdk import reference
from pitch_sdk.gamerecord import GameRecord
from pitch_sdk.options import RuleOptions
from pitch_sdk.record import load_record
from pitch_sdk.replay import check

RANDOM = reference.folder("random")
GREEDY = reference.folder("greedy")

pytestmark = pytest.mark.slow


def test_duplicate_schedule_pairs_games_with_the_same_seed_dealer_and_swapped_teams():
    specs = schedule(MatchSettings(games=6, seed=9))
    assert [spec.game_id for spec in specs][:2] == ["pair-00000-a", "pair-00000-b"]
    for first, second in zip(specs[::2], specs[1::2], strict=True):
        assert (first.seed, first.first_dealer) == (second.seed, second.first_dealer)
        assert (first.a_team, second.a_team) == (0, 1)
    assert len({spec.seed for spec in specs}) == 3


def test_non_duplicate_schedule_gives_every_game_its_own_deal():
    specs = schedule(MatchSettings(games=5, seed=2, duplicate=False))
    assert len(specs) == 5 and len({spec.seed for spec in specs}) == 5


def test_match_pairs_see_the_same_decks_with_teams_swapped_and_every_record_replays(tmp_path):
    a, b = Entrant.from_argument(str(GREEDY)), Entrant.from_argument(str(RANDOM))
    settings = MatchSettings(games=4, seed=3, rules={"hand_cap": 4}, concurrency=2)
    summary = run_match(a, b, settings, tmp_path / "m", announce=lambda _: None)
    assert summary.games_played == 4 and summary.status == "finished"
    records = {game.game: load_record(summary.record_path(game)) for game in summary.games}
    for pair in ("pair-00000", "pair-00001"):
        first, second = records[f"{pair}-a"], records[f"{pair}-b"]
        assert first.seed == second.seed and first.first_dealer == second.first_dealer
        shared = min(len(first.hands), len(second.hands))
        assert [h.deck for h in first.hands[:shared]] == [h.deck for h in second.hands[:shared]]
        assert [p.name for p in first.players] == ["greedy", "random", "greedy", "random"]
        assert [p.name for p in second.players] == ["random", "greedy", "random", "greedy"]
    for record in records.values():
        assert check(record).ok
    assert sum(summary.stats.counts) == 2  # two complete pairs in the pentanomial
    saved = json.loads((tmp_path / "m" / "summary.json").read_text())
    assert saved == summary.to_json() and saved["games_played"] == 4


def _python_bot(folder: Path, name: str, code: str) -> Entrant:
    """A bot folder (made once; later calls reuse it) whose ``bot.py`` is ``code``."""
    folder.mkdir(exist_ok=True)
    (folder / "bot.toml").write_text(
        f'name = "{name}"\nversion = "0"\ncommand = ["python", "bot.py"]\n'
    )
    (folder / "bot.py").write_text(code)
    return Entrant.from_argument(str(folder))


AFFINITY_BOT = """
import os, sys, time
from pitch_sdk.bots import RandomBot
from pitch_sdk.run import run
print("cores", sorted(os.sched_getaffinity(0)), file=sys.stderr, flush=True)
time.sleep(1.5)  # slow to start: the first worker cannot take both pairs before the second starts
raise SystemExit(run(RandomBot()))
"""


def _cores_seen_by_each_worker(tmp_path: Path, affinity: bool) -> dict[str, set[str]]:
    entrant = _python_bot(tmp_path / "bot", "pinned", AFFINITY_BOT)
    settings = MatchSettings(games=4, rules={"hand_cap": 1}, concurrency=2, affinity=affinity)
    root = tmp_path / f"affinity-{affinity}"
    run_match(entrant, entrant, settings, root, announce=lambda _: None)
    return {
        worker.name: {
            line
            for log in worker.glob("*.log")
            for line in log.read_text().splitlines()
            if line.startswith("cores ")
        }
        for worker in (root / "logs").iterdir()
    }


@pytest.mark.skipif(
    not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2,
    reason="needs CPU affinity and two usable cores",
)
def test_concurrent_match_workers_run_their_bots_each_on_its_own_core(tmp_path):
    pinned = _cores_seen_by_each_worker(tmp_path, affinity=True)
    assert sorted(pinned) == ["worker-0", "worker-1"]
    assert all(len(lines) == 1 for lines in pinned.values()), pinned  # one core per worker
    assert pinned["worker-0"] != pinned["worker-1"]
    everywhere = f"cores {sorted(os.sched_getaffinity(0))}"
    unpinned = _cores_seen_by_each_worker(tmp_path, affinity=False)
    assert all(lines == {everywhere} for lines in unpinned.values()), unpinned


LISTENING_BOT = """
import sys
from pitch_sdk.bots import RandomBot
from pitch_sdk.run import run

class Listening(RandomBot):
    def on_game_start(self, seat, info):
        self.actions, self.hands = 0, 0

    def on_action(self, seat, action, forced):
        self.actions += 1

    def on_hand_end(self, result):
        self.hands += 1

    def on_game_end(self, view):
        print(f"saw {self.actions} actions and {self.hands} hands", file=sys.stderr, flush=True)

raise SystemExit(run(Listening()))
"""


def test_a_bot_with_hooks_hears_every_decision_and_hand_of_each_game(tmp_path):
    listening = _python_bot(tmp_path / "listening", "ears", LISTENING_BOT)
    settings = MatchSettings(games=2, seed=6, rules={"hand_cap": 3}, concurrency=1)
    summary = run_match(
        listening, Entrant.from_argument(str(RANDOM)),
        settings, tmp_path / "m", announce=lambda _: None,
    )  # fmt: skip
    heard = sorted(
        line.split("INFO ")[-1]
        for log in (tmp_path / "m" / "logs").glob("*/*.log")
        for line in log.read_text().splitlines()
        if "saw " in line
    )
    expected = []
    for game in summary.games:
        record = load_record(summary.record_path(game))
        actions = sum(len(hand.decisions) for hand in record.hands)
        expected += [f"saw {actions} actions and {len(record.hands)} hands"] * 2  # two seats
    assert heard == sorted(expected)


def test_match_cli_prints_result_elo_and_writes_summary(tmp_path):
    out = tmp_path / "m"
    result = CliRunner().invoke(
        app,
        ["match", str(GREEDY), str(RANDOM), "--games", "4", "--concurrency", "1",
         "--rule", "hand_cap=3", "--out", str(out)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "Elo difference" in result.output and "likelihood of superiority" in result.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["games_played"] == 4
    assert (out / "logs" / "worker-0").is_dir()


def test_a_concurrent_match_stopped_by_sprt_exits_at_once_leaving_its_pairs_unplayed(tmp_path):
    out = tmp_path / "m"
    done = subprocess.run(
        [sys.executable, "-m", "pitch_cli", "match", str(GREEDY), str(RANDOM),
         "--games", "4000", "--concurrency", "2", "--sprt", "elo0=0,elo1=200",
         "--rule", "hand_cap=2", "--out", str(out)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "H1 accepted" in done.stdout
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "stopped by SPRT" and summary["games_played"] < 100
    pairs, games = sum(summary["stats"]["counts"]), summary["games_played"]
    assert f"SPRT over {pairs} deal pairs ({games} games): LLR" in done.stdout


def test_a_bot_named_otherwise_by_its_class_is_warned_of_once_however_many_workers(tmp_path):
    renamed = tmp_path / "renamed"
    renamed.mkdir()
    (renamed / "bot.py").write_text((RANDOM / "bot.py").read_text())
    (renamed / "bot.toml").write_text(
        'name = "renamed"\nversion = "2"\ncommand = "python bot.py"\n'
    )
    done = subprocess.run(
        [sys.executable, "-m", "pitch_cli", "match", str(renamed), str(RANDOM),
         "--games", "4", "--concurrency", "2", "--rule", "hand_cap=1",
         "--out", str(tmp_path / "m")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    warning = (
        "warning: renamed: bot.toml says renamed 2 but the bot says random 1.0 (its Hello); "
        "bot.toml's name and version are used"
    )
    assert done.stdout.count(warning) == 1, done.stdout


def test_match_cli_refuses_bad_arguments_with_one_line(tmp_path):
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "bot.toml").write_text('name = "x"\n')
    (tmp_path / "done").mkdir()
    (tmp_path / "done" / "match.json").write_text("{}")
    for args, says in [
        (["match", str(tmp_path / "nope"), str(RANDOM)], "no bot folder at"),
        (["match", str(tmp_path / "broken"), str(RANDOM)], "bot.toml"),
        (["match", str(RANDOM), str(RANDOM), "--fault-policy", "x"], "--fault-policy must be"),
        (["match", str(RANDOM), str(RANDOM), "--sprt", "elo0=1"], "--sprt 'elo0=1' is missing"),
        (["match", str(RANDOM), str(RANDOM), "--rule", "bad=1"], "bad rule 'bad=1'"),
        (["match", str(RANDOM), str(RANDOM), "--games", "0"], "--games must be at least 1"),
        (["match", str(RANDOM), str(RANDOM), "--time-limit", "0"], "--time-limit must be"),
        (["match", str(RANDOM), str(RANDOM), "--time-reserve", "-1"], "--time-reserve must"),
        (["match", str(RANDOM), str(RANDOM), "--sandbox", "x"], "--sandbox must be on, off"),
        (["match", str(RANDOM), str(RANDOM), "--memory", "1"], "--memory must be at least"),
        (["match", str(RANDOM), str(RANDOM), "--out", str(tmp_path / "done")], "--resume"),
        (["match", "--resume", str(tmp_path)], "no match here"),
    ]:
        done = subprocess.run(
            [sys.executable, "-m", "pitch_cli", *args],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert done.returncode == 1, (args, done.stderr)
        assert done.stderr.startswith("error:") and done.stderr.count("\n") == 1, done.stderr
        assert says in done.stderr, (args, done.stderr)


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ({"games": 0}, "games must be at least 1"),
        ({"concurrency": 0}, "concurrency must be at least 1"),
        ({"time_limit_ms": 0}, "the time limit must be at least 1 ms"),
        ({"fault_policy": "x"}, "the fault policy must be forfeit or substitute, not 'x'"),
        ({"sprt": "elo0=1"}, "SPRT 'elo0=1' is missing elo1"),
        ({"sandbox": "x"}, "the sandbox must be on, off or auto, not 'x'"),
        ({"rules": {"bad": 1}}, "unknown rule option 'bad'"),
    ],
)
def test_match_settings_say_what_is_wrong_without_naming_a_flag(setting, message):
    with pytest.raises(SettingError) as raised:
        MatchSettings(**setting)
    assert str(raised.value).startswith(message) and "--" not in str(raised.value)
    assert raised.value.setting == next(iter(setting))


def test_match_settings_hold_rule_options_and_round_trip_through_json():
    settings = MatchSettings(games=4, seed=3, rules={"hand_cap": 4})
    assert settings.rules == RuleOptions(hand_cap=4)
    assert settings.to_json()["rules"] == RuleOptions(hand_cap=4).to_dict()
    assert MatchSettings.from_json(json.loads(json.dumps(settings.to_json()))) == settings
    with pytest.raises(MatchError, match="unknown match setting 'colour'"):
        MatchSettings.from_json({**settings.to_json(), "colour": "red"})


def _match_command(out: Path) -> list[str]:
    return [
        sys.executable, "-m", "pitch_cli", "match", str(GREEDY), str(RANDOM),
        "--games", "16", "--seed", "5", "--concurrency", "1", "--rule", "hand_cap=6",
        "--out", str(out),
    ]  # fmt: skip


def _results(out: Path) -> list[tuple]:
    summary = json.loads((out / "summary.json").read_text())
    return [
        (g["game"], g["a_score"], tuple(g["scores"]), g["termination"]) for g in summary["games"]
    ]


def test_match_killed_with_sigkill_resumes_to_the_same_result_without_duplicates(tmp_path):
    whole = tmp_path / "whole"
    subprocess.run(_match_command(whole), check=True, capture_output=True, timeout=300)

    cut = tmp_path / "cut"
    process = subprocess.Popen(
        _match_command(cut), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 120
    while len(list((cut / "games").glob("*.json.gz"))) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    before = {path.name: path.read_bytes() for path in (cut / "games").glob("*.json.gz")}
    assert 3 <= len(before) < 16

    resumed = subprocess.run(
        [sys.executable, "-m", "pitch_cli", "match", "--resume", str(cut)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr
    after = {path.name: path.read_bytes() for path in (cut / "games").glob("*.json.gz")}
    assert all(after[name] == data for name, data in before.items())  # finished games kept
    assert len(after) == 16
    assert _results(cut) == _results(whole)


def _match_cli(out: Path, *options: str) -> str:
    """Run a quick `pitch match` (greedy against random) and return what it printed."""
    result = CliRunner().invoke(
        app,
        ["match", str(GREEDY), str(RANDOM), "--games", "2", "--concurrency", "1",
         "--rule", "hand_cap=2", "--out", str(out), *options],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return result.output


def _seed_of(out: Path) -> int:
    return json.loads((out / "match.json").read_text())["settings"]["seed"]


def _moves(record: GameRecord) -> list:
    return [(hand.deck, [d.action for d in hand.decisions]) for hand in record.hands]


def test_match_without_a_seed_draws_a_fresh_one_prints_and_records_it_and_resume_keeps_it(
    tmp_path,
):
    first, second = tmp_path / "first", tmp_path / "second"
    printed = _match_cli(first)
    seed = _seed_of(first)
    assert f"seed {seed} (replay with --seed {seed})" in printed
    _match_cli(second)
    assert _seed_of(second) != seed  # fresh each time: 63 random bits

    record_path = first / "games" / "pair-00000-b.json.gz"  # pitch match compresses
    played = load_record(record_path)
    record_path.unlink()
    result = CliRunner().invoke(app, ["match", "--resume", str(first)])
    assert result.exit_code == 0, result.output
    assert _seed_of(first) == seed
    replayed = load_record(record_path)  # the same deals, and the same seeded random bot
    assert replayed.seed == played.seed and _moves(replayed) == _moves(played)


CHEATING_BOT = """
import random, sys
from pitch_sdk.bots import RandomBot
from pitch_sdk.deck import deck_for
from pitch_sdk.rules import GameState
from pitch_sdk.run import run

class Remembering(random.Random):
    def seed(self, a=None, version=2):
        self.last_seed = a  # the SDK reseeds with GameStart.seed
        super().seed(a, version)

def guesses(seed):
    # the seed, and each prefix cut at ':' or '.' (where a game seed used to end)
    cuts = [seed[:i] for i, char in enumerate(seed) if char in ":."]
    return [seed, *cuts, int(seed, 16) if seed.isalnum() else seed]

class Cheat(RandomBot):
    name = "cheat"

    def __init__(self):
        super().__init__()
        self.rng = Remembering()

    def on_game_start(self, seat, info):
        self.game = info.game_id

    def bid(self, view, legal):  # while bidding, the hand is the nine cards dealt
        seed = self.rng.last_seed
        dealt = []
        for guess in guesses(seed):
            state = GameState(first_dealer=view.dealer)
            state.deal(deck_for(guess, view.hand_number))
            dealt.append(state.hands[view.seat])
        # with the deck, every hand at the table would be known: perfect play
        verdict = "cracked" if view.hand in dealt else "deck unknown"
        print(f"{self.game} seat {view.seat} seed {seed} verdict: {verdict}", file=sys.stderr)
        return super().bid(view, legal)

raise SystemExit(run(Cheat()))
"""


def test_a_bot_cannot_work_out_the_deals_from_its_game_start_seed(tmp_path):
    cheat = _python_bot(tmp_path / "cheat", "cheat", CHEATING_BOT)
    settings = MatchSettings(games=2, seed=424242, rules={"hand_cap": 3}, concurrency=1)
    root = tmp_path / "m"
    run_match(cheat, Entrant.from_argument(str(RANDOM)), settings, root, announce=lambda _: None)
    verdicts = [
        line.split()
        for log in (root / "logs").glob("*/*-cheat.log")
        for line in log.read_text().splitlines()
        if "verdict:" in line
    ]
    assert {verdict[0] for verdict in verdicts} == {"pair-00000-a", "pair-00000-b"}
    for game_id, _, seat, _, seed, _, *verdict in verdicts:
        assert verdict == ["deck", "unknown"]
        game_seed = load_record(root / "games" / f"{game_id}.json").seed
        assert seed not in (game_seed, f"{game_seed}:{seat}")
        assert seed == bot_seed("424242", game_id, game_seed, int(seat))  # replays
        assert seed != bot_seed("424243", game_id, game_seed, int(seat))


def test_rerun_gives_a_seeded_bot_the_seed_it_had_in_the_match_so_it_answers_the_same(
    tmp_path,
):
    settings = MatchSettings(games=2, rules={"hand_cap": 2}, time_limit_ms=5000)
    random = Entrant.from_argument(str(RANDOM))
    run_match(random, random, settings, tmp_path / "m", announce=lambda _: None)
    record = tmp_path / "m" / "games" / "pair-00000-a.json"
    assert load_record(record).players[1].seed  # kept for rerun, never sent as a deal
    result = CliRunner().invoke(app, ["rerun", str(record), str(RANDOM), "--seat", "1"])
    assert result.exit_code == 0, result.output
    assert " 0 differ" in result.output
