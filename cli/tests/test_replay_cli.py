"""`pitch replay`, `pitch rerun` and `pitch matches` on records made in-process.

The full `pitch replay` output is compared with a golden file. After an intended change
to the output, regenerate it and review the diff:

    PITCH_REGENERATE_GOLDEN=1 uv run pytest cli/tests/test_replay_cli.py -k golden
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from pitch_cli import app, main
from pitch_sdk import reference
from pitch_sdk.bots import GreedyBot, RandomBot
from pitch_sdk.cards import card_symbol, cards_in
from pitch_sdk.gamerecord import GameRecord
from pitch_sdk.options import RuleOptions
from pitch_sdk.record import write_record
from pitch_sdk.replay import check
from pitch_sdk.rules import GameState
from pitch_sdk.selfplay import play_game

GOLDEN = Path(__file__).with_name("data") / "replay_seed11.txt"
SUMMARY_LINE = re.compile(r"^\d+ decisions?, (\d+) differ, \d+ faults?$")


def random_game(hand_cap: int) -> GameRecord:
    return play_game(
        [RandomBot(i) for i in range(4)], seed=11, options=RuleOptions(hand_cap=hand_cap)
    )


def saved(record: GameRecord | dict[str, Any], folder: Path) -> Path:
    """``record`` in ``folder/game.json``; a dict is written as it is (a tampered file)."""
    path = folder / "game.json"
    if isinstance(record, GameRecord):
        write_record(record, path)
    else:
        path.write_text(json.dumps(record))
    return path


def invoke(*args: object) -> Any:
    return CliRunner().invoke(app, [str(arg) for arg in args])


def dealt_lines(output: str) -> dict[int, str]:
    """The ``Dealt`` section of the first hand: seat -> its line."""
    section = output.split("  Dealt\n", 1)[1].split("  Bidding\n", 1)[0]
    return {int(line.split()[1]): line for line in section.splitlines()}


# --- pitch replay -------------------------------------------------------------------------


def test_replay_output_matches_the_golden_file(tmp_path):
    result = invoke("replay", saved(random_game(hand_cap=1), tmp_path))
    assert result.exit_code == 0, result.output
    if os.environ.get("PITCH_REGENERATE_GOLDEN"):
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(result.output)
    assert result.output == GOLDEN.read_text()


def test_seat_view_hides_the_other_seats_cards(tmp_path):
    record = random_game(hand_cap=1)
    path = saved(record, tmp_path)
    state = GameState(RuleOptions(hand_cap=1))
    state.deal(record.hands[0].deck)
    dealt = {seat: [card_symbol(card) for card in cards_in(state.hands[seat])] for seat in range(4)}

    table = dealt_lines(invoke("replay", path).output)
    seen_by_0 = invoke("replay", path, "--seat", 0)
    assert seen_by_0.exit_code == 0, seen_by_0.output
    as_seat_0 = dealt_lines(seen_by_0.output)

    assert all(card in table[1] for card in dealt[1])
    assert not any(card in as_seat_0[1] for card in dealt[1])
    assert "9 cards, hidden" in as_seat_0[1]
    assert all(card in as_seat_0[0] for card in dealt[0])
    fill_of_1 = seen_by_0.output.split("Fill from the stock\n", 1)[1].splitlines()[0]
    assert fill_of_1.strip().startswith("seat 1") and ":" not in fill_of_1


def test_hand_option_shows_that_hand_only(tmp_path):
    path = saved(random_game(hand_cap=3), tmp_path)
    result = invoke("replay", path, "--hand", 2)
    assert result.exit_code == 0, result.output
    assert "Hand 2 · dealer seat 1" in result.output
    assert "Hand 1 ·" not in result.output and "Hand 3 ·" not in result.output
    assert invoke("replay", path, "--hand", 4).exit_code == 1


def test_a_corrupt_record_is_a_one_line_error(tmp_path, monkeypatch, capsys):
    path = tmp_path / "broken.json"
    path.write_text('{"format": "pitch-game-record", "hands": [')
    monkeypatch.setattr(sys, "argv", ["pitch", "replay", str(path)])
    with pytest.raises(SystemExit) as exit_:
        main()
    assert exit_.value.code == 1
    error = re.sub(r"\x1b\[[0-9;]*m", "", capsys.readouterr().err)  # colour, if forced
    assert error.startswith("error: ") and str(path) in error
    assert error.count("\n") == 1 and "Traceback" not in error


def _broken(change):
    record = random_game(hand_cap=1).to_json()
    change(record)
    return record


@pytest.mark.parametrize(
    ("change", "what"),
    [
        (lambda r: r["hands"][0]["deck"].pop(), "hand 1: the deck should hold each of the 54"),
        (lambda r: r["hands"][0]["deck"].__setitem__(0, "ZZ"), "hand 1: unreadable deck"),
        (
            lambda r: r["hands"][0]["decisions"][2].__setitem__("action", "fly away"),
            "hand 1, decision 3: cannot read action 'fly away'",
        ),
        (lambda r: r.__setitem__("hands", {}), "record: 'hands' should be a list, found {}"),
        (lambda r: r["hands"][0].pop("dealer"), "hand 1: 'dealer' is missing"),
        (lambda r: r.__setitem__("result", "won"), "record: 'result' should be an object"),
    ],
)
def test_replay_of_a_malformed_record_is_one_error_line_naming_file_and_fault(
    tmp_path, monkeypatch, capsys, change, what
):
    path = saved(_broken(change), tmp_path)
    monkeypatch.setattr(sys, "argv", ["pitch", "replay", str(path)])
    with pytest.raises(SystemExit) as exit_:
        main()
    assert exit_.value.code == 1
    out, err = capsys.readouterr()
    error = re.sub(r"\x1b\[[0-9;]*m", "", err)  # colour, if forced
    assert error.startswith(f"error: {path}: not a well-formed game record: {what}"), error
    assert error.count("\n") == 1 and "Traceback" not in error and out == ""


def test_a_tampered_record_shows_what_replays_then_the_discrepancy(tmp_path):
    record = random_game(hand_cap=1).to_json()
    decisions = record["hands"][0]["decisions"]
    first_play, tampered = [i for i, d in enumerate(decisions) if d["action"].startswith("play")][
        :2
    ]
    decisions[tampered]["action"] = decisions[first_play]["action"]  # that card is gone
    discrepancy = check(GameRecord.from_json(record)).discrepancy
    assert discrepancy is not None and f"decision {tampered + 1}:" in discrepancy

    result = invoke("replay", saved(record, tmp_path))
    assert result.exit_code == 1
    assert "the record does not replay" in result.output
    flat = " ".join(result.output.replace("│", " ").split())
    assert " ".join(discrepancy.split()) in flat
    assert "trick 1" in result.output and "(unfinished)" in result.output
    assert "trick 2" not in result.output and "Score" not in result.output


def test_replay_html_writes_one_self_contained_viewer_file(tmp_path):
    record = random_game(hand_cap=2)
    out = tmp_path / "game.html"
    result = invoke("replay", saved(record, tmp_path), "--html", out, "--seat", 1, "--hand", 2)
    assert result.exit_code == 0, result.output
    assert result.output == f"wrote {out}: 2 hands, open it in a browser\n"
    page = out.read_text()
    inline = page.split('id="timeline-data">', 1)[1].split("</script>", 1)[0]
    assert record.result is not None
    assert json.loads(inline)["header"]["result"] == record.result.to_json()
    assert 'data-hand="2" data-view="1"' in page
    assert "src=" not in page and "href=" not in page


def test_replay_html_to_a_folder_that_does_not_exist_is_one_error_line(
    tmp_path, monkeypatch, capsys
):
    path = saved(random_game(hand_cap=1), tmp_path)
    out = tmp_path / "missing" / "game.html"
    monkeypatch.setattr(sys, "argv", ["pitch", "replay", str(path), "--html", str(out)])
    with pytest.raises(SystemExit) as exit_:
        main()
    assert exit_.value.code == 1
    error = re.sub(r"\x1b\[[0-9;]*m", "", capsys.readouterr().err)
    assert error.startswith(f"error: {out}: cannot write the HTML file") and error.count("\n") == 1


def test_replay_html_of_a_tampered_record_writes_what_replays_and_exits_1(tmp_path):
    record = random_game(hand_cap=1).to_json()
    decisions = record["hands"][0]["decisions"]
    plays = [i for i, d in enumerate(decisions) if d["action"].startswith("play")]
    decisions[plays[1]]["action"] = decisions[plays[0]]["action"]
    out = tmp_path / "game.html"
    result = invoke("replay", saved(record, tmp_path), "--html", out)
    assert result.exit_code == 1
    assert f"decision {plays[1] + 1}:" in out.read_text()
    assert "the record does not replay: hand 1, decision" in result.output


# --- pitch rerun --------------------------------------------------------------------------


@pytest.mark.slow
def test_rerun_of_the_random_bot_reports_a_summary(tmp_path):
    path = saved(random_game(hand_cap=1), tmp_path)
    result = invoke("rerun", path, "--seat", 2, reference.folder("random"))
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "seat 2 played by random 1.0"
    assert SUMMARY_LINE.match(lines[-1]), lines[-1]
    differ = int(SUMMARY_LINE.match(lines[-1]).group(1))
    assert len(lines) == 2 * differ + 2  # each differing decision, then where the seat stood


@pytest.mark.slow
def test_rerun_of_the_greedy_bot_on_its_own_game_finds_no_difference(tmp_path):
    seed, seat = 5, 1
    bots = [GreedyBot(f"{seed}:{player}") for player in range(4)]
    path = saved(play_game(bots, seed, RuleOptions(hand_cap=4)), tmp_path)
    result = invoke("rerun", path, "--seat", seat, reference.folder("greedy"))
    assert result.exit_code == 0, result.output
    summary = SUMMARY_LINE.match(result.output.splitlines()[-1])
    assert summary is not None and summary.group(1) == "0", result.output
    assert not result.output.splitlines()[-1].startswith("0 decisions")


# --- pitch matches ------------------------------------------------------------------------


def test_matches_lists_good_summaries_and_notes_bad_ones(tmp_path):
    good = {
        "bots": {"a": {"name": "greedy", "version": "1.0"}, "b": {"name": "random"}},
        "games_played": 40,
        "games_planned": 100,
        "result": {"a": {"wins": 30, "losses": 8, "draws": 2}},
        "stats": {"elo": 183.44, "elo_interval": [90.2, None], "los": 0.99},
        "status": "stopped by SPRT",
    }
    for name, text in (("m-good", json.dumps(good)), ("m-bad", '{"bots": ')):
        (tmp_path / name).mkdir()
        (tmp_path / name / "summary.json").write_text(text)
    (tmp_path / "not-a-match").mkdir()

    result = invoke("matches", "--root", tmp_path)
    assert result.exit_code == 0, result.output
    row = next(line for line in result.output.splitlines() if "m-good" in line)
    for shown in ("greedy 1.0 vs random", "40 of 100", "30-8-2", "+183.4 [+90.2, +inf]"):
        assert shown in row
    assert "stopped by SPRT" in row
    notes = [line for line in result.output.splitlines() if "m-bad" in line]
    assert len(notes) == 1 and "unreadable summary.json" in notes[0]
    assert "not-a-match" not in result.output
