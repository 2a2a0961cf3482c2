"""``pitch ladder author ...``: the token printed once on its own line, the list without
secrets, and one-line errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from pitch_ladder.authors import AuthenticationError, authenticate
from pitch_ladder.ladder import Ladder
from pitch_testkit.ladder import RANDOM, cli, cli_error, cli_refusal


def _token(output: str) -> str:
    return output.strip().splitlines()[-1]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    cli("ladder", "init", "--ladder", tmp_path / "ladder")
    return tmp_path / "ladder"


def test_author_add_prints_a_working_token_alone_on_its_last_line(folder: Path) -> None:
    output = cli("ladder", "author", "add", "ops", "--admin", "--ladder", folder)
    assert output.startswith("added admin ops (token id ")
    assert "shown only now" in output
    with Ladder.open(folder) as ladder:
        author = authenticate(ladder, _token(output))
    assert (author.name, author.admin) == ("ops", True)


def test_author_list_shows_roles_and_token_ids_but_no_secret(folder: Path) -> None:
    token = _token(cli("ladder", "author", "add", "alice", "--ladder", folder))
    listing = cli("ladder", "author", "list", "--ladder", folder)
    _, token_id, secret = token.split("_", 2)
    rows = {line.split()[0]: line.split() for line in listing.splitlines()[3:] if line.strip()}
    assert rows["alice"][:3] == ["alice", "author", token_id]
    assert rows["local"][:4] == ["local", "author", "none", "-"]
    assert secret not in listing


def test_author_rotate_prints_a_new_token_and_the_old_one_stops(folder: Path) -> None:
    old = _token(cli("ladder", "author", "add", "alice", "--ladder", folder))
    output = cli("ladder", "author", "rotate", "alice", "--ladder", folder)
    assert output.startswith("new token for alice; the previous one is revoked")
    with Ladder.open(folder) as ladder:
        assert authenticate(ladder, _token(output)).name == "alice"
        with pytest.raises(AuthenticationError, match="was revoked"):
            authenticate(ladder, old)


def test_author_revoke_names_the_token_it_stopped(folder: Path) -> None:
    token = _token(cli("ladder", "author", "add", "alice", "--ladder", folder))
    output = cli("ladder", "author", "revoke", "alice", "--ladder", folder)
    assert output.strip() == f"revoked alice's token {token.split('_')[1]}; their bots stay theirs"
    assert "no working token to revoke" in cli_refusal(
        "ladder", "author", "revoke", "alice", "--ladder", folder
    )


def test_author_errors_are_one_line_without_a_traceback(folder: Path) -> None:
    cli("ladder", "author", "add", "alice", "--ladder", folder)
    message = cli_error("ladder", "author", "add", "alice", "--ladder", folder)
    assert message.startswith("error: author 'alice' exists already") and message.count("\n") == 1
    message = cli_error("ladder", "author", "rotate", "bob", "--ladder", folder)
    assert message.startswith("error: no author named 'bob'") and message.count("\n") == 1


def test_submit_for_an_unknown_author_is_refused_before_anything_runs(folder: Path) -> None:
    message = cli_refusal("ladder", "submit", RANDOM, "--author", "nobody", "--ladder", folder)
    assert message.startswith("no author named 'nobody'")


@pytest.mark.slow
def test_submit_for_another_authors_bot_name_is_refused_naming_it(folder: Path) -> None:
    cli("ladder", "author", "add", "alice", "--ladder", folder)
    cli("ladder", "submit", RANDOM, "--author", "alice", "--ladder", folder)
    message = cli_error("ladder", "submit", RANDOM, "--ladder", folder)
    assert message == (
        "error: refused: the bot name 'random' belongs to another author; submit your bot "
        "under a name of your own (`--name`)\n"
    )
    listing = cli("ladder", "author", "list", "--ladder", folder)
    assert [line.split()[-1] for line in listing.splitlines() if "alice" in line] == ["1"]
