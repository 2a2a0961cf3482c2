"""The reference bots shipped in the SDK: their folders and their fixed scale."""

from __future__ import annotations

import tomllib

import pytest

from pitch_sdk import reference
from pitch_sdk.bot import Bot
from pitch_sdk.bots import BeginnerBot, GreedyBot, RandomBot
from pitch_sdk.bots.ddbot import DoubleDummyBot
from pitch_sdk.bots.montecarlo import FastMonteCarloBot, MonteCarloBot
from pitch_sdk.reference import ReferenceBotError
from pitch_sdk.reference.scale import FIRST_LEAGUE, rungs

LADDER = ["random", "beginner", "greedy", "montecarlo-fast", "montecarlo"]
OFF_THE_SCALE = ["ddbot"]
"""Reference bots not (yet) measured against the scale."""


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


def test_every_reference_bot_is_a_folder_named_as_its_manifest() -> None:
    assert reference.names() == sorted(LADDER + OFF_THE_SCALE)
    for name in reference.names():
        manifest = (reference.folder(name) / "bot.toml").read_text()
        assert f'name = "{name}"' in manifest
        assert (reference.folder(name) / "bot.py").is_file()


RUNS: dict[str, type[Bot]] = {
    "random": RandomBot,
    "beginner": BeginnerBot,
    "greedy": GreedyBot,
    "montecarlo-fast": FastMonteCarloBot,
    "montecarlo": MonteCarloBot,
    "ddbot": DoubleDummyBot,
}
"""The bot class each reference folder runs."""


@pytest.mark.parametrize("name", sorted(RUNS))
def test_a_reference_bots_manifest_names_the_version_its_class_plays_as(name: str) -> None:
    # a match's summary reads the manifest, its records the bot's own hello: they agree
    folder = reference.folder(name)
    manifest = tomllib.loads((folder / "bot.toml").read_text())
    bot = RUNS[name]
    assert f"run({bot.__name__}(" in (folder / "bot.py").read_text()
    assert (manifest["name"], manifest["version"]) == (bot.name, bot.version)


def test_every_reference_bot_has_its_class_named() -> None:
    assert sorted(RUNS) == reference.names()


def test_an_unknown_name_is_an_error_listing_the_names() -> None:
    with pytest.raises(reference.ReferenceBotError, match=r"grandmaster.*beginner, ddbot, greedy"):
        reference.folder("grandmaster")


def test_the_scale_rates_every_reference_bot_weakest_first_from_random_at_zero() -> None:
    ladder = rungs()
    assert [rung.name for rung in ladder[:3]] == LADDER[:3]
    assert sorted(rung.name for rung in ladder) == sorted(LADDER)
    assert ladder[0].rating == ladder[0].low == ladder[0].high == 0
    assert all(rung.low <= rung.rating <= rung.high for rung in ladder)
    assert len({rung.league for rung in ladder} | {FIRST_LEAGUE}) == len(LADDER) + 1
