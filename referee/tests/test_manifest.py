"""Broken bot manifests give one-line errors that name the field."""

from __future__ import annotations

import sys

import pytest

from pitch_referee.errors import ManifestError
from pitch_referee.manifest import load_manifest


def write(tmp_path, text):
    (tmp_path / "bot.toml").write_text(text)
    return tmp_path


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('version = "1"\ncommand = ["python", "bot.py"]', "field 'name' is missing"),
        ('name = "a b"\nversion = "1"\ncommand = "x"', "field 'name'"),
        ('name = "a"\ncommand = "x"', "field 'version' is missing"),
        ('name = "a"\nversion = "1"', "field 'command'"),
        ('name = "a"\nversion = "1"\ncommand = []', "field 'command'"),
        ('name = "a"\nversion = "1"\ncommand = [1]', "field 'command'"),
        ('name = "a"\nversion = 1\ncommand = "x"', "field 'version'"),
        ('name = "a"\nversion = "1"\ncommand = "x"\ncolour = "red"', "unknown field 'colour'"),
        ("name = ", "not valid TOML"),
    ],
)
def test_broken_manifest_names_the_field(tmp_path, text, message):
    with pytest.raises(ManifestError, match=message) as error:
        load_manifest(write(tmp_path, text))
    assert "\n" not in str(error.value)


def test_missing_folder_and_missing_manifest_are_reported(tmp_path):
    with pytest.raises(ManifestError, match="no such bot folder"):
        load_manifest(tmp_path / "nowhere")
    with pytest.raises(ManifestError, match=r"missing; a bot folder needs a bot\.toml"):
        load_manifest(tmp_path)


def test_command_string_is_split_and_python_means_the_referees_interpreter(tmp_path):
    manifest = load_manifest(
        write(tmp_path, 'name = "a"\nversion = "1"\ncommand = "python bot.py --x \'y z\'"')
    )
    assert manifest.command == ("python", "bot.py", "--x", "y z")
    assert manifest.argv() == [sys.executable, "bot.py", "--x", "y z"]


def test_a_hello_that_names_the_bot_as_its_manifest_does_is_no_mismatch(tmp_path):
    manifest = load_manifest(write(tmp_path, 'name = "a"\nversion = "1"\ncommand = "x"'))
    assert manifest.hello_mismatch("a", "1") is None
    assert manifest.hello_mismatch("a", "2") == (
        "a: bot.toml says a 1 but the bot says a 2 (its Hello); bot.toml's name and version "
        "are used"
    )


NODE_BOT = 'name = "jsbot"\nversion = "1"\ncommand = ["node", "bot.js"]'


@pytest.mark.parametrize(
    ("package", "installed", "missing"),
    [
        ('{"dependencies": {"@grpc/grpc-js": "^1.14.0"}}', False, True),
        ('{"dependencies": {"@grpc/grpc-js": "^1.14.0"}}', True, False),
        ('{"dependencies": {}}', False, False),
        (None, False, False),
        ("not json", False, False),
    ],
)
def test_a_node_bot_whose_declared_packages_are_not_installed_is_told_to_run_npm_install(
    tmp_path, package, installed, missing
):
    folder = write(tmp_path, NODE_BOT)
    if package is not None:
        (folder / "package.json").write_text(package)
    if installed:
        (folder / "node_modules").mkdir()
    expected = f"jsbot: its Node packages are not installed: run npm install in {tmp_path}"
    assert load_manifest(folder).missing_packages() == (expected if missing else None)
