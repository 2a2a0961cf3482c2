"""The wire contract: generated code is fresh, and values survive the round trip."""

from __future__ import annotations

import copy
import dataclasses
import importlib.util
import pickle
import random
from pathlib import Path

import pytest

from pitch_sdk import wire
from pitch_sdk.actions import InvalidActionError, Play, StockChoice, StockMove
from pitch_sdk.deck import deck_for
from pitch_sdk.protocol import messages as pb
from pitch_sdk.rules import CHANCE, GameState
from pitch_sdk.table import Decided
from pitch_sdk.views import PlayerView

ROOT = Path(__file__).resolve().parents[2]


def test_generated_protobuf_code_matches_the_proto_file():
    spec = importlib.util.spec_from_file_location("generate", ROOT / "proto" / "generate.py")
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    committed = {path.name: path.read_text() for path in generate.TARGET.glob("*.py*")}
    assert committed == generate.generate(), "stale: run `uv run python proto/generate.py`"


def test_views_and_legal_actions_round_trip_through_messages():
    rng = random.Random(5)
    for seed in range(6):
        state = GameState()
        for _ in range(300):
            if state.is_over():
                break
            if state.current_seat() == CHANCE:
                state.deal(deck_for(seed, state.hand_number + 1))
                continue
            for seat in range(4):
                view = state.view(seat)
                message = pb.PlayerView.FromString(wire.view_to_proto(view).SerializeToString())
                assert wire.view_from_proto(message, view.legal_actions) == view
            for action in state.legal_actions():
                assert wire.action_from_proto(wire.action_to_proto(action)) == action
            state.apply(rng.choice(state.legal_actions()))


def _mid_hand_view() -> tuple[PlayerView, pb.PlayerView]:
    """A view with finished tricks, a look and a last hand, and its message."""
    rng = random.Random(3)
    state = GameState()
    while not (state.hand_number > 1 and state.tricks):
        if state.current_seat() == CHANCE:
            state.deal(deck_for(3, state.hand_number + 1))
        else:
            state.apply(rng.choice(state.legal_actions()))
    view = state.view(state.current_seat())
    return view, pb.PlayerView.FromString(wire.view_to_proto(view).SerializeToString())


def test_a_view_from_the_wire_decodes_each_list_and_record_only_when_first_read():
    view, message = _mid_hand_view()
    decoded = wire.view_from_proto(message, view.legal_actions)
    tricks = PlayerView.__dict__["tricks"]  # the field's slot
    with pytest.raises(AttributeError):
        tricks.__get__(decoded, PlayerView)
    assert decoded.hand == view.hand  # a single number: set at once
    assert decoded.tricks == view.tricks
    assert tricks.__get__(decoded, PlayerView) is decoded.tricks  # kept once read


def test_a_view_from_the_wire_compares_hashes_prints_copies_and_pickles_as_the_engines():
    view, message = _mid_hand_view()
    for read in (
        lambda decoded: decoded == view and view == decoded,
        lambda decoded: hash(decoded) == hash(view),
        lambda decoded: repr(decoded) == repr(view),
        lambda decoded: dataclasses.replace(decoded, seat=1) == dataclasses.replace(view, seat=1),
        lambda decoded: pickle.loads(pickle.dumps(decoded)) == view,
        lambda decoded: copy.copy(decoded) == view,
    ):
        assert read(wire.view_from_proto(message, view.legal_actions))


def test_a_view_has_no_attribute_beyond_its_fields_from_the_wire_or_the_engine():
    view, message = _mid_hand_view()
    for each in (view, wire.view_from_proto(message)):
        with pytest.raises(AttributeError, match="'PlayerView' object has no attribute 'hands'"):
            each.hands  # noqa: B018


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        (pb.Action(), "no field of Action is set"),
        (pb.Action(play=54), "out of range"),
        (pb.Action(bid=14), "out of range"),
        (pb.Action(trump=4), "out of range"),
        (pb.Action(discard=1 << 60), "beyond the 54 card codes"),
        (pb.Action(stock=pb.StockChoice(move=1)), "must name the card given up"),
        (pb.Action(stock=pb.StockChoice(move=7)), "not take, leave or stop"),
    ],
)
def test_malformed_action_messages_are_refused_at_the_edge(message, reason):
    with pytest.raises(InvalidActionError, match=reason):
        wire.action_from_proto(message)


def test_either_joker_code_reads_as_the_one_joker_option():
    assert wire.action_from_proto(pb.Action(play=53)) == Play(52)


def test_a_stock_take_without_its_card_reads_back_as_another_seats_take():
    hidden = StockChoice(StockMove.TAKE)
    message = wire.event_to_proto(Decided(2, 1, hidden, False), seat=3)
    assert wire.event_from_proto(message, seat=3) == Decided(2, 1, hidden, False)
