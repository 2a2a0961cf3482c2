"""The examples in the ladder's docstrings run and say what they show."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["pitch_ladder.pairing", "pitch_ladder.schedule"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_of_the_module_pass(name: str) -> None:
    module = importlib.import_module(name)
    failed, attempted = doctest.testmod(module, verbose=False, report=True)
    assert attempted > 0, f"{name} has no docstring examples"
    assert failed == 0
