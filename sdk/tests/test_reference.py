"""The reference bots shipped in the SDK: their folders and their fixed scale."""

from __future__ import annotations

import pytest

from pitch_sdk import reference
from pitch_sdk.reference.scale import FIRST_LEAGUE, rungs

LADDER = ["random", "beginner", "greedy", "montecarlo-fast", "montecarlo"]


def test_every_reference_bot_is_a_folder_named_as_its_manifest() -> None:
    assert reference.names() == sorted(LADDER)
    for name in reference.names():
        manifest = (reference.folder(name) / "bot.toml").read_text()
        assert f'name = "{name}"' in manifest
        assert (reference.folder(name) / "bot.py").is_file()


def test_an_unknown_name_is_an_error_listing_the_names() -> None:
    with pytest.raises(reference.ReferenceBotError, match=r"grandmaster.*beginner, greedy"):
        reference.folder("grandmaster")


def test_the_scale_rates_every_reference_bot_weakest_first_from_random_at_zero() -> None:
    ladder = rungs()
    assert [rung.name for rung in ladder[:3]] == LADDER[:3]
    assert sorted(rung.name for rung in ladder) == sorted(LADDER)
    assert ladder[0].rating == ladder[0].low == ladder[0].high == 0
    assert all(rung.low <= rung.rating <= rung.high for rung in ladder)
    assert len({rung.league for rung in ladder} | {FIRST_LEAGUE}) == len(LADDER) + 1
