"""``pitch match``'s arguments made into a plan: which bot arguments it takes, and the
folder it plays into (no bot is started here)."""

from __future__ import annotations

import re
import time

import pytest

from pitch_cli.match_plan import bot_arguments, entrant_of, match_root
from pitch_referee.errors import PitchError
from pitch_referee.match import Entrant


@pytest.mark.parametrize(
    ("bots", "attach", "sprt", "refusal"),
    [
        (["a", None, None, None], [], None, "give two bots"),
        (["a", "b", "c", None], [], None, "give two bots"),
        (["a", "b", None, None], ["c"], None, "--attach c: not one of the bots (a, b)"),
        (["a", "b", "c", "d"], [], "elo0=0,elo1=20", "--sprt compares two bots"),
    ],
)
def test_bot_arguments_refuse_a_match_that_cannot_be_played_with_the_flag_to_fix(
    bots, attach, sprt, refusal
):
    with pytest.raises(PitchError, match=re.escape(refusal)):
        bot_arguments(bots, attach, sprt)


def test_bot_arguments_are_two_or_four_in_their_order():
    assert bot_arguments(["a", "b", None, None], ["b"], "elo0=0,elo1=20") == ["a", "b"]
    assert bot_arguments(["a", "b", "c", "d"], [], None) == ["a", "b", "c", "d"]


def test_a_bot_given_to_attach_is_an_entrant_started_by_hand():
    assert entrant_of("mine", ["mine"]).by_hand


def test_a_missing_bot_folder_says_how_to_give_one(tmp_path):
    with pytest.raises(PitchError, match=r"--attach .* to start it by hand"):
        entrant_of(str(tmp_path / "nothing"), [])


def test_the_default_folder_is_named_by_the_time_and_the_bots(monkeypatch):
    monkeypatch.setattr(time, "strftime", lambda _format: "20260101-120000")
    two = [Entrant("greedy", None), Entrant("random", None)]
    four = [Entrant(name, None) for name in "abcd"]
    assert str(match_root(None, two)) == "matches/20260101-120000-greedy-vs-random"
    assert str(match_root(None, four)) == "matches/20260101-120000-mixed-a-b-c-d"


def test_a_folder_holding_a_match_is_refused_with_how_to_resume_it(tmp_path):
    (tmp_path / "match.json").write_text("{}")
    with pytest.raises(PitchError, match=re.escape(f"resume it with --resume {tmp_path}")):
        match_root(tmp_path, [Entrant("a", None), Entrant("b", None)])
