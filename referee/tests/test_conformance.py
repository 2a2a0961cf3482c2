"""The conformance check (``pitch check``): real bot processes over real gRPC."""

from __future__ import annotations

from pathlib import Path

import pytest

from pitch_referee.conformance import (
    DECISION_KINDS,
    MAX_RESTARTS,
    STOCK_CHOICES,
    check_bot,
    positions,
)
from pitch_referee.manifest import BotManifest, load_manifest
from pitch_referee.sandbox import SandboxLimits, unavailable_reason
from pitch_sdk import reference
from pitch_sdk.actions import Decision, StockChoice, StockMove
from pitch_sdk.faults import FaultKind
from pitch_sdk.table import Dealt, Decided

BAD_DISCARD = """\
from pitch_sdk.actions import Discard
from pitch_sdk.bot import Bot
from pitch_sdk.run import run


class BadDiscard(Bot):
    name = "bad-discard"

    def discard(self, view, legal):
        return Discard(0)  # well formed, never legal: it keeps every trump


raise SystemExit(run(BadDiscard()))
"""

SLEEPER = """\
import time

from pitch_sdk.bot import Bot
from pitch_sdk.run import run


class Sleeper(Bot):
    name = "sleeper"

    def decide(self, view):
        time.sleep(2)
        return super().decide(view)


raise SystemExit(run(Sleeper()))
"""

CRASHER = """\
from pitch_sdk.bot import Bot
from pitch_sdk.run import run


class Crasher(Bot):
    name = "crasher"

    def decide(self, view):
        raise RuntimeError("crashing on my first decision")


raise SystemExit(run(Crasher()))
"""

NO_START = """\
import sys
print("ModuleNotFoundError: No module named 'numpyy'", file=sys.stderr)
sys.exit(3)
"""


def write_bot(folder: Path, name: str, code: str) -> BotManifest:
    folder.mkdir(parents=True)
    (folder / "bot.toml").write_text(
        f'name = "{name}"\nversion = "0.1"\ncommand = ["python", "bot.py"]\n'
    )
    (folder / "bot.py").write_text(code)
    return load_manifest(folder)


def test_the_positions_cover_every_decision_and_stock_choice_and_never_change() -> None:
    chosen = positions()
    assert {position.kind for position in chosen} == set(DECISION_KINDS)
    assert {move for p in chosen for move in p.stock_choices} == set(STOCK_CHOICES)
    assert chosen[0].name == "first decision of a game" and chosen[0].state.hand_number == 1
    assert len({position.name for position in chosen}) == len(chosen)
    for position in chosen:
        assert len(position.state.legal_actions()) > 1  # forced decisions are never asked
        assert isinstance(position.events[0], Dealt)
    positions.cache_clear()
    again = positions()
    assert [(p.name, p.state.key()) for p in again] == [(p.name, p.state.key()) for p in chosen]


def test_each_position_holds_what_the_table_told_its_seat() -> None:
    """Its own cards only, and other seats' stock takes without the card given up."""
    others_takes = 0
    for position in positions():
        for event in position.events:
            if isinstance(event, Dealt):
                assert event.hands[position.seat] != 0
                assert not any(event.hands[s] for s in range(4) if s != position.seat)
            elif (
                isinstance(event, Decided)
                and event.seat != position.seat
                and event.action.decision is Decision.STOCK
                and event.action.move is StockMove.TAKE  # type: ignore[union-attr]
            ):
                assert event.action == StockChoice(StockMove.TAKE), (position.name, event)
                others_takes += 1
    assert others_takes  # some bot is shown another seat's take


@pytest.mark.slow
@pytest.mark.parametrize(
    ("bot", "sandboxed"),
    [("greedy", False), ("random", False), ("greedy", True)],
)
def test_the_reference_bots_pass_and_every_decision_is_asked(bot: str, sandboxed: bool) -> None:
    if sandboxed and unavailable_reason() is not None:
        pytest.skip(f"no sandbox here: {unavailable_reason()}")
    manifest = load_manifest(reference.folder(bot))
    report = check_bot(manifest, sandbox=SandboxLimits() if sandboxed else None)
    assert report.ok, [str(failure) for failure in report.failures]
    assert report.sandboxed is sandboxed
    assert all(report.kinds[kind].asked >= 1 for kind in DECISION_KINDS), report.kinds
    assert report.stock_choices_offered == set(STOCK_CHOICES)
    assert len(report.asked) == len(positions()) and not report.not_asked
    assert all(asked.answer is not None for asked in report.asked)
    assert report.first_ms is not None and report.first_ms < report.time_limit_ms
    assert report.median_ms is not None and report.median_ms <= report.p95_ms  # type: ignore[operator]
    assert len(report.latencies_ms) == len(positions()) - 1
    assert report.restarts == 0 and not report.notes


@pytest.mark.slow
def test_an_illegal_discard_fails_the_discard_only(tmp_path: Path) -> None:
    report = check_bot(write_bot(tmp_path / "bot", "bad-discard", BAD_DISCARD))
    assert not report.ok
    assert len(report.failures) == 1, [str(failure) for failure in report.failures]
    failure = report.failures[0]
    assert failure.decision == "discard" and failure.fault is FaultKind.ILLEGAL_ACTION
    assert str(failure).startswith("discard down to six (discard): illegal_action: discard - ")
    assert "legal are discard" in failure.detail
    assert {kind for kind, result in report.kinds.items() if result.failed} == {"discard"}
    assert len(report.asked) == len(positions()) and report.restarts == 0


@pytest.mark.slow
def test_a_bot_that_sleeps_past_the_limit_times_out(tmp_path: Path) -> None:
    report = check_bot(write_bot(tmp_path / "bot", "sleeper", SLEEPER), time_limit_ms=300)
    assert not report.ok
    assert [failure.fault for failure in report.failures] == ["timeout"] * (MAX_RESTARTS + 1)
    first = report.failures[0]
    assert first.position == "first decision of a game" and first.decision == "bid"
    assert "no answer within the limit of 300 ms" in first.detail
    assert report.stopped is not None and "hung" in report.stopped
    assert report.not_asked == [p.name for p in positions()[MAX_RESTARTS + 1 :]]
    assert report.first_ms is None and report.median_ms is None


@pytest.mark.slow
def test_a_bot_that_crashes_on_its_first_decision_shows_its_exception(tmp_path: Path) -> None:
    report = check_bot(write_bot(tmp_path / "bot", "crasher", CRASHER))
    assert not report.ok
    first = report.failures[0]
    assert (first.position, first.decision, first.fault) == (
        "first decision of a game",
        "bid",
        "crashed",
    )
    assert "RuntimeError: crashing on my first decision" in first.log_tail
    assert report.restarts == MAX_RESTARTS and report.stopped is not None
    assert "crashed" in report.stopped


@pytest.mark.slow
def test_a_bot_that_does_not_start_says_why(tmp_path: Path) -> None:
    report = check_bot(write_bot(tmp_path / "bot", "nostart", NO_START))
    assert not report.ok and not report.asked
    (failure,) = report.failures
    assert (failure.position, failure.decision, failure.fault) == ("start", None, "start_failed")
    assert "ModuleNotFoundError: No module named 'numpyy'" in failure.log_tail
    assert report.stopped == "the bot did not start (start_failed)"
    assert len(report.not_asked) == len(positions())
