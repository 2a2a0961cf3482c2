"""The bytes the referee frames itself decode, at the bot, to exactly what the table meant.

The referee sends a decision request and a game's end as bytes assembled from parts
encoded once (``framing``): the view, and each event, legal action, finished trick and
last hand once for the four seats. Whatever
the game, a bot decoding them must get the view its seat was shown, the legal actions,
and the events its seat was told, in order, as if the messages had been built whole.
"""

from __future__ import annotations

import asyncio

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pitch_referee import framing
from pitch_referee.connection import BotConnection
from pitch_referee.game_loop import EventMessages, RemotePlayer, ViewMessages
from pitch_referee.process import BotProcess
from pitch_sdk.options import RuleOptions
from pitch_sdk.protocol import messages as pb
from pitch_sdk.table import Answer, SeatEvent, Table, Turn
from pitch_sdk.views import PlayerView
from pitch_sdk.wire import action_from_proto, event_from_proto, view_from_proto


class _AnswersAtOnce(BotConnection):
    """A bot's stream that keeps every message sent and answers with the last legal action,
    decoding the request from the bytes the referee would write."""

    def __init__(self) -> None:
        super().__init__("framed", "0")
        self.requests: list[pb.DecisionRequest] = []

    async def ask(
        self, request: pb.DecisionRequest, timeout_s: float, *, encoded: bytes = b""
    ) -> tuple[pb.Answer, float]:
        wire = framing.field(framing.REQUEST, request.SerializeToString() + encoded)
        decoded = pb.RefereeMessage.FromString(wire).request
        self.requests.append(decoded)
        return pb.Answer(request_id=1, action=decoded.legal_actions[-1]), 0.001


class _Witness(RemotePlayer):
    """The seat as the table drives it, keeping what the table meant it to be told."""

    def __init__(
        self,
        bot: BotProcess,
        told: list[tuple[PlayerView, list[SeatEvent]]],
        messages: EventMessages,
        views: ViewMessages,
    ) -> None:
        super().__init__(bot, messages=messages, views=views)
        self.told = told
        self.since: list[SeatEvent] = []
        self.final: PlayerView | None = None

    def observe(self, event: SeatEvent) -> None:
        super().observe(event)
        self.since.append(event)

    async def decide(self, turn: Turn) -> Answer:
        self.told.append((turn.view, self.since))
        self.since = []
        return await super().decide(turn)

    def end(self, view: PlayerView) -> None:
        self.final = view
        super().end(view)


def _play(seed: int, hands: int) -> tuple[list[BotProcess], list[_Witness], dict]:
    """A game at the SDK's table between seats that answer at once (as ``play_game`` plays:
    the four seats share what is encoded once)."""
    bots, seats = [], []
    messages, views = EventMessages(), ViewMessages()
    for seat in range(4):
        bot = BotProcess(f"framed-{seat}", None)
        bot.connection = _AnswersAtOnce()
        bots.append(bot)
        seats.append(_Witness(bot, [], messages, views))
    table = Table(seats, seed=seed, options=RuleOptions(hand_cap=hands), game_id="g")
    record = asyncio.run(table.play()).record
    return bots, seats, record


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), hands=st.integers(1, 4))
def test_every_framed_request_decodes_to_the_seats_view_legal_actions_and_events(seed, hands):
    bots, seats, _ = _play(seed, hands)
    assert any(witness.told for witness in seats)
    for seat, (bot, witness) in enumerate(zip(bots, seats, strict=True)):
        sent = bot.connection.requests
        assert len(sent) == len(witness.told)
        for request, (view, events) in zip(sent, witness.told, strict=True):
            legal = [action_from_proto(action) for action in request.legal_actions]
            assert tuple(legal) == view.legal_actions
            assert view_from_proto(request.view, legal) == view
            assert [event_from_proto(e, seat) for e in request.events] == events


def test_a_framed_game_end_decodes_to_the_final_view_and_the_events_since_the_last_request():
    bots, seats, record = _play(seed=7, hands=2)
    for seat, (bot, witness) in enumerate(zip(bots, seats, strict=True)):
        sent = []
        while not bot.connection.outbox.empty():
            sent.append(bot.connection.outbox.get_nowait())
        wire = sent[-1]
        assert isinstance(wire, bytes)
        end = pb.RefereeMessage.FromString(wire).game_end
        assert end.game_id == "g" and tuple(end.scores) == record.result.scores
        assert view_from_proto(end.view) == witness.final
        assert [event_from_proto(e, seat) for e in end.events] == witness.since
        assert witness.since, "at least the last hand's scoring comes with the end"


@given(text=st.text(min_size=1, max_size=40_000))
def test_a_framed_field_is_protobufs_own_encoding_of_that_field(text):
    """Against the runtime's encoder, for lengths of one to three bytes of varint: a
    string field has the wire type of a message field, and is framed the same way."""
    expected = pb.Shutdown(reason=text).SerializeToString()
    reason = framing.number_of(pb.Shutdown, "reason")
    assert framing.field(reason, text.encode()) == expected


@given(old=st.integers(1, 2**29 - 1), new=st.integers(1, 2**29 - 1), payload=st.binary())
def test_a_retagged_field_is_the_same_payload_framed_under_the_new_number(old, new, payload):
    """Tags of one to five bytes of varint, both ways: an event is framed once as a
    request's and retagged for a game's end."""
    assert framing.retag(new, framing.field(old, payload)) == framing.field(new, payload)
