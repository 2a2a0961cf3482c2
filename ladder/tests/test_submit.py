"""Submissions: the content hash, and refusals that say why and store nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from pitch_ladder.errors import LadderError
from pitch_ladder.ladder import Ladder
from pitch_ladder.scratch import remove_tree
from pitch_ladder.submit import bot_files, content_hash, copy_bot
from pitch_testkit.ladder import RANDOM, cli, cli_error, cli_refusal, write_bot

CRASHES_AT_FIRST_DECISION = """\
import os, sys
from pitch_sdk.bots import RandomBot
from pitch_sdk.run import run

class Crasher(RandomBot):
    def decide(self, view):
        print("crasher: giving up on my first decision", file=sys.stderr, flush=True)
        os._exit(7)

raise SystemExit(run(Crasher()))
"""

DISCARDS_ILLEGALLY_AFTER_THE_FIRST_HAND = """\
from pitch_sdk.actions import Discard
from pitch_sdk.bots import RandomBot
from pitch_sdk.run import run

class BadDiscard(RandomBot):
    def discard(self, view, legal):
        if view.hand_number == 1:  # the smoke game has one hand: it never sees the bug
            return super().discard(view, legal)
        return Discard(0)  # well formed, never legal: it keeps every trump

raise SystemExit(run(BadDiscard()))
"""

RAISES_AT_FIRST_DECISION = """\
import sys
from pitch_sdk.bots import RandomBot
from pitch_sdk.run import run

class Raiser(RandomBot):
    def decide(self, view):
        print("raiser: thinking about my first decision", file=sys.stderr, flush=True)
        raise KeyError("the card I wanted")

raise SystemExit(run(Raiser()))
"""

EXITS_AT_ONCE = """\
import sys
print("starting up", file=sys.stderr)
print("ModuleNotFoundError: no module named 'numpyy'", file=sys.stderr)
sys.exit(3)
"""


def test_the_content_hash_ignores_bytecode_and_sees_every_byte_and_name(tmp_path: Path) -> None:
    bot = write_bot(tmp_path / "bot", "hashed", "print('hello')\n")
    digest = content_hash(bot)
    (bot / "__pycache__").mkdir()
    (bot / "__pycache__" / "bot.cpython-311.pyc").write_bytes(b"\0\1")
    (bot / "helper.pyc").write_bytes(b"\2")
    assert content_hash(bot) == digest
    (bot / "bot.py").write_text("print('hello!')\n")
    assert content_hash(bot) != digest
    (bot / "bot.py").write_text("print('hello')\n")
    (bot / "data").mkdir()
    (bot / "data" / "weights.txt").write_text("")
    assert content_hash(bot) != digest


def _empty(folder: Path) -> bool:
    with Ladder.open(folder) as ladder:
        return not ladder.bots() and not (folder / "bots").exists()


def test_a_bad_manifest_is_refused_naming_the_field(tmp_path: Path) -> None:
    folder = tmp_path / "ladder"
    cli("ladder", "init", "--ladder", folder)
    bot = write_bot(tmp_path / "bad", "bad", "")
    (bot / "bot.toml").write_text('name = "bad"\nversion = "1"\n')
    message = cli_error("ladder", "submit", bot, "--ladder", folder)
    assert message.startswith("error: refused:") and "field 'command'" in message
    message = cli_refusal("ladder", "submit", tmp_path / "nowhere", "--ladder", folder)
    assert "no such bot folder" in message
    message = cli_refusal("ladder", "submit", RANDOM, "--name", "no spaces", "--ladder", folder)
    assert "bot name 'no spaces'" in message
    assert _empty(folder)


@pytest.mark.parametrize(
    ("link", "target"),
    [
        ("secret.txt", "/etc/hostname"),  # absolute, out of the folder
        ("data", "../elsewhere"),  # a folder out of the folder
        ("gone.py", "missing.py"),  # dangling
        ("again.py", "bot.py"),  # inside the folder: refused all the same
    ],
)
def test_a_bot_folder_holding_a_symlink_is_refused_naming_it(
    tmp_path: Path, link: str, target: str
) -> None:
    folder = tmp_path / "ladder"
    cli("ladder", "init", "--ladder", folder)
    (tmp_path / "elsewhere").mkdir()
    bot = write_bot(tmp_path / "linked", "linked", "")
    (bot / link).symlink_to(target)
    message = cli_error("ladder", "submit", bot, "--ladder", folder)
    assert message.startswith(f"error: refused: {link} in {bot} is a symbolic link (to {target})")
    assert "copy the file in" in message and message.count("\n") == 1
    assert _empty(folder)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("code", "fault", "stderr"),
    [
        (EXITS_AT_ONCE, "start_failed", "ModuleNotFoundError: no module named 'numpyy'"),
        (CRASHES_AT_FIRST_DECISION, "crashed", "crasher: giving up on my first decision"),
    ],
)
def test_a_bot_that_cannot_play_is_refused_with_its_stderr(
    tmp_path: Path, code: str, fault: str, stderr: str
) -> None:
    folder = tmp_path / "ladder"
    cli("ladder", "init", "--ladder", folder)
    bot = write_bot(tmp_path / "broken", "broken", code)
    message = cli_error("ladder", "submit", bot, "--ladder", folder)
    assert message.startswith("error: refused: broken did not finish a one-hand game")
    assert f"({fault}:" in message
    assert f"  | {stderr}" in message
    assert _empty(folder)
    assert list((folder / "smoke").glob("broken-*/match/logs/worker-0/A1-a-broken.log"))


@pytest.mark.slow
def test_a_refusals_stderr_shows_the_bots_own_lines_and_exception_before_the_sdks_frames(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "ladder"
    cli("ladder", "init", "--ladder", folder)
    bot = write_bot(tmp_path / "raiser", "raiser", RAISES_AT_FIRST_DECISION)
    with Ladder.open(folder) as ladder, pytest.raises(LadderError) as refused:
        ladder.submit(bot)
    message = str(refused.value)
    quoted = [line.removeprefix("  | ") for line in message.splitlines() if line.startswith("  | ")]
    exception = quoted.index("KeyError: 'the card I wanted'")
    assert "raiser: thinking about my first decision" in quoted[:exception]
    sdk = quoted.index("(the frames of the SDK and libraries, last:)")
    assert 'raise KeyError("the card I wanted")' in "\n".join(quoted[exception:sdk])
    assert all("pitch_sdk" not in line for line in quoted[:sdk])
    assert any("pitch_sdk" in line for line in quoted[sdk:])


@pytest.mark.slow
def test_a_bot_that_fails_the_conformance_check_on_a_rare_decision_is_refused_naming_it(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "ladder"
    cli("ladder", "init", "--ladder", folder)
    bot = write_bot(tmp_path / "rare", "rare", DISCARDS_ILLEGALLY_AFTER_THE_FIRST_HAND)
    message = cli_error("ladder", "submit", bot, "--ladder", folder)
    assert message.startswith(
        "error: refused: rare failed the conformance check: discard down to six (discard): "
        "illegal_action: discard - is not legal here"
    ), message
    assert "also:" not in message  # every other decision was answered well
    assert "`pitch check` on the bot folder shows the whole report" in message
    assert _empty(folder)
    assert list((folder / "smoke").glob("rare-*/conformance.log"))


def test_a_bot_folder_1100_folders_deep_is_hashed_and_copied_without_recursion(
    tmp_path: Path,
) -> None:
    bot = write_bot(tmp_path / "deep", "deep", "")
    try:
        made = bot
        for _ in range(1100):  # not mkdir(parents=True): it recurses
            made /= "d"
            made.mkdir()
        (made / "weights.bin").write_bytes(b"w")
        assert len(content_hash(bot)) == 64  # Path.rglob raised RecursionError here
        copy = copy_bot(bot, tmp_path / "copy", "deep")
        assert content_hash(copy.folder) == content_hash(bot)
    finally:  # pytest's own clean-up of old temporary folders recurses
        remove_tree(tmp_path)


def test_the_files_of_a_bot_are_those_rglob_found_in_the_same_order(tmp_path: Path) -> None:
    bot = write_bot(tmp_path / "bot", "order", "")
    for name in (
        "a.py",
        "a/b.py",
        "a-b/c",
        ".hidden",
        "__pycache__/x.py",
        "lib/__pycache__/y",
        "z.pyc",
        "lib/.pyc",
        "A/B",
    ):
        (bot / name).parent.mkdir(parents=True, exist_ok=True)
        (bot / name).write_text(name)
    found = [
        path.relative_to(bot)
        for path in sorted(bot.rglob("*"))
        if path.is_file()
        and "__pycache__" not in path.relative_to(bot).parts
        and path.suffix != ".pyc"
    ]
    assert list(bot_files(bot)) == found  # the content hashes of stored versions stay
