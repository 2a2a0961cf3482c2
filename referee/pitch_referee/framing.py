"""Messages to a bot assembled from parts already encoded, rather than copied together.

Protobuf's encoding of a message is the concatenation of its fields' encodings, and a
length-delimited field (a sub-message) added to a message's bytes sets it, or adds an
element to a repeated one. The Python runtime copies a sub-message whenever it is put
in another (a decision request's view into the request, the request into its
``RefereeMessage``): about twice the cost of encoding it, three times a decision. So the
referee encodes the view and each event once (an event once for all four seats; a legal
action, the bids, a finished trick and the last hand once a game) and frames the bytes;
the bot decodes the same message either way.
"""

from __future__ import annotations

import functools

from google.protobuf.message import Message

from pitch_sdk.protocol import messages as pb


def field(number: int, payload: bytes) -> bytes:
    """Field ``number`` holding ``payload`` (an encoded message, or a string's bytes)."""
    size = len(payload)
    length = _ONE_BYTE[size] if size < 0x80 else _varint(size)
    return _tag(number) + length + payload


def retag(number: int, framed: bytes) -> bytes:
    """A field made by ``field``, as field ``number`` with the same payload: for events,
    framed once as a request's and numbered otherwise in a game's end."""
    tag_end = 0
    while framed[tag_end] & 0x80:  # the old tag's varint ends at a byte under 0x80
        tag_end += 1
    return _tag(number) + framed[tag_end + 1 :]


def number_of(message: type[Message], name: str) -> int:
    """The field number of ``message``'s field ``name``, from the protocol's descriptor."""
    return message.DESCRIPTOR.fields_by_name[name].number


@functools.cache
def _tag(number: int) -> bytes:
    return _varint(number << 3 | 2)


def _varint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


_ONE_BYTE = [bytes((size,)) for size in range(0x80)]
"""The length of a field under 128 bytes (most events), encoded, without a loop."""

REQUEST = number_of(pb.RefereeMessage, "request")
GAME_END = number_of(pb.RefereeMessage, "game_end")
REQUEST_VIEW = number_of(pb.DecisionRequest, "view")
REQUEST_LEGAL_ACTIONS = number_of(pb.DecisionRequest, "legal_actions")
REQUEST_EVENTS = number_of(pb.DecisionRequest, "events")
END_VIEW = number_of(pb.GameEnd, "view")
END_EVENTS = number_of(pb.GameEnd, "events")
VIEW_BIDS = number_of(pb.PlayerView, "bids")
VIEW_LOOK = number_of(pb.PlayerView, "look")
VIEW_TRICKS = number_of(pb.PlayerView, "tricks")
VIEW_LAST_HAND = number_of(pb.PlayerView, "last_hand")
