"""``@NAME`` in place of a bot folder: the reference bot NAME shipped with pitch_sdk."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import pitch_cli
from pitch_cli import app
from pitch_cli.bot_folder import bot_folder
from pitch_sdk import reference


def test_at_name_is_the_reference_bots_folder_and_anything_else_a_path() -> None:
    assert bot_folder("@greedy") == reference.folder("greedy")
    assert bot_folder("mybot") == Path("mybot")
    assert bot_folder("bots/@greedy") == Path("bots/@greedy")


@pytest.mark.parametrize(
    "command",
    [
        ["check", "@nope"],
        ["match", "@greedy", "@nope"],
        ["rerun", "record.json", "@nope", "--seat", "0"],
        ["submit", "@nope", "--server", "http://arena", "--token", "pa_x"],
        ["ladder", "submit", "@nope"],
    ],
)
def test_an_unknown_reference_bot_is_one_error_line_listing_the_known_ones(
    command: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    if command[0] == "ladder":
        assert CliRunner().invoke(app, ["ladder", "init"]).exit_code == 0
    monkeypatch.setattr(sys, "argv", ["pitch", *command])
    with pytest.raises(SystemExit) as exit:
        pitch_cli.main()
    assert exit.value.code == 1
    names = ", ".join(reference.names())
    assert capsys.readouterr().err == (
        f"error: no reference bot 'nope': the reference bots are {names}\n"
    )


@pytest.mark.slow
def test_a_match_between_reference_bots_named_with_at(tmp_path: Path) -> None:
    out = tmp_path / "m"
    args = ["match", "@random", "@greedy", "--games", "2", "--seed", "3",
            "--rule", "hand_cap=1", "--sandbox", "off", "--out", str(out)]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "random 1.0 vs greedy 1.0: 2 of 2 games (finished)" in result.output
    assert len(list((out / "games").glob("*.json*"))) == 2
