"""``pitch_sdk.reference``: the bot folders shipped inside the package, found by name."""

from __future__ import annotations

import pytest

from pitch_sdk import reference
from pitch_sdk.reference import ReferenceBotError


def test_names_are_the_bot_folders_sorted_random_and_greedy_among_them() -> None:
    names = reference.names()
    assert names == sorted(names)
    assert {"greedy", "random"} <= set(names)
    assert "__pycache__" not in names


def test_each_name_has_a_folder_with_a_manifest_and_a_bot_file() -> None:
    for name in reference.names():
        folder = reference.folder(name)
        assert folder.name == name
        assert (folder / "bot.toml").is_file() and (folder / "bot.py").is_file()


@pytest.mark.parametrize("name", ["nope", "", "../random", "__pycache__"])
def test_an_unknown_name_is_a_value_error_on_one_line_listing_the_names(name: str) -> None:
    with pytest.raises(ReferenceBotError) as raised:
        reference.folder(name)
    assert isinstance(raised.value, ValueError)
    message = str(raised.value)
    assert "\n" not in message
    assert message.endswith(f"the reference bots are {', '.join(reference.names())}")
