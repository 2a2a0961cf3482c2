"""Fixtures for the referee tests: the reference random bot and misbehaving bots (the
helpers they share are in ``pitch_testkit.referee``)."""

from __future__ import annotations

from pitch_sdk import reference
from pitch_sdk.grpc_io import prefer_classic_io

prefer_classic_io()  # as the pitch command does, before anything imports grpc

# isort: split

import sys
from pathlib import Path

import pytest

from pitch_referee.manifest import BotManifest, load_manifest
from pitch_testkit.referee import write_bot

MISBEHAVING = Path(__file__).with_name("misbehaving_bot.py")


@pytest.fixture
def random_bot() -> BotManifest:
    return load_manifest(reference.folder("random"))


@pytest.fixture
def misbehaving(tmp_path: Path):
    def make(mode: str, k: int = 1) -> BotManifest:
        return write_bot(tmp_path / f"bot-{mode}", ["python", str(MISBEHAVING), mode, str(k)], mode)

    return make


if sys.platform != "linux":  # the leftover checks read /proc
    pytest.skip("referee tests need Linux", allow_module_level=True)
