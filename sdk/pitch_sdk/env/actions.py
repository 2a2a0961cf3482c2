"""The environment's fixed action space: every decision of the game as one of 230 ids.

Each id means one thing whatever the state (``docs/env.md`` lists the blocks), so a
policy's output and a log line read the same in every phase; the mask says which ids are
legal now. A discard or a pick-up (a set of cards) is chosen a card at a time, in
ascending card order, with ``DONE`` to stop picking up: the space stays small (one slot
per card, not one per subset) and every set has exactly one sequence of ids.

``DecisionSteps`` turns one table decision into those steps, for the environment and
for ``PolicyBot`` alike, from the legal actions the engine lists: no rule is re-derived.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..actions import (
    LEAVE,
    PASS,
    STOP,
    Action,
    Bid,
    Discard,
    NameTrump,
    PickUp,
    Play,
    StockChoice,
    StockMove,
)
from ..cards import JOKER, SECOND_JOKER, SUITS, CardMask, card_name, cards_in

CARD_SLOTS = 53
"""One slot per card code 0-52: the jokers are identical, so both are slot 52 (``JOKER``)."""

PASS_ID = 0
"""The pass."""
BID_IDS = 1
"""The first bid id: bids 4..13 are ids 1..10."""
TRUMP_IDS = 11
"""The first trump id: naming suit s (clubs, diamonds, hearts, spades) is 11 + s."""
DISCARD_IDS = 15
"""The first discard id: discarding card c is 15 + c."""
PICKUP_IDS = DISCARD_IDS + CARD_SLOTS
"""The first pick-up id: picking up card c is 68 + c."""
DONE = PICKUP_IDS + CARD_SLOTS
"""121: pick up no more cards."""
TAKE_IDS = DONE + 1
"""The first take id: taking the turned stock card, giving up card c, is 122 + c."""
LEAVE_ID = TAKE_IDS + CARD_SLOTS
"""175: leave the turned stock card."""
STOP_ID = LEAVE_ID + 1
"""176: stop looking through the stock."""
PLAY_IDS = STOP_ID + 1
"""The first play id: playing card c is 177 + c."""
ACTION_COUNT = PLAY_IDS + CARD_SLOTS
"""230: the size of the action space."""

_ID_OF: dict[Action, int] = {PASS: PASS_ID, LEAVE: LEAVE_ID, STOP: STOP_ID}
_ID_OF.update({Bid(amount): BID_IDS + amount - 4 for amount in range(4, 14)})
_ID_OF.update({NameTrump(suit): TRUMP_IDS + suit for suit in SUITS})
_ID_OF.update({StockChoice(StockMove.TAKE, card): TAKE_IDS + card for card in range(CARD_SLOTS)})
_ID_OF.update({Play(card): PLAY_IDS + card for card in range(CARD_SLOTS)})
_ACTION_OF = {number: action for action, number in _ID_OF.items()}


def action_id(action: Action) -> int:
    """The id of a single-step action (anything but a discard or a pick-up).

    Raises:
        KeyError: a discard or pick-up (chosen card by card), or a malformed action.
    """
    return _ID_OF[action]


def describe(number: int) -> str:
    """What an id means, in the action's text form (``bid 7``, ``discard card AS``...)."""
    if number in _ACTION_OF:
        return str(_ACTION_OF[number])
    if number == DONE:
        return "pickup done"
    if DISCARD_IDS <= number < DONE:
        kind, base = ("discard", DISCARD_IDS) if number < PICKUP_IDS else ("pickup", PICKUP_IDS)
        return f"{kind} card {card_name(number - base)}"
    raise ValueError(f"no action has id {number} (ids are 0-{ACTION_COUNT - 1})")


class IllegalIdError(ValueError):
    """An id that the mask does not allow now."""


class DecisionSteps:
    """One decision at the table, taken as one or more environment steps.

    A single-step decision is answered by one id. A set decision (``Discard`` or
    ``PickUp``) is a path of card ids in ascending order, ending where the set is
    complete; ``DONE`` closes a pick-up early. Steps with only one legal id are taken
    here at once, as the table takes forced decisions: an agent is never asked a
    question with a single answer.
    """

    def __init__(self, legal: Sequence[Action]) -> None:
        self.legal = legal
        """The decision's legal actions, as the table lists them."""
        self.chosen: CardMask = 0
        """The cards chosen so far in a set decision (an observation field)."""
        self.action: Action | None = None
        """The finished decision, once the last step is taken."""
        self._base = _SET_BASE.get(type(legal[0]))
        if self._base is None:
            self.legal_ids = _single_step_ids(legal)
            """The ids legal at this step."""
        else:
            self._card_base: int = self._base
            """The id of card 0 in this set decision's block."""
            self._paths = {_path(action.cards): action for action in legal}  # type: ignore[union-attr]
            self._prefix: tuple[int, ...] = ()
            self.legal_ids = self._next_card_ids()
        if len(self.legal_ids) == 1:
            self._take_forced()

    def mask(self) -> np.ndarray:
        """The legal ids now, as 0/1 (``int8``) over the whole action space."""
        mask = bytearray(ACTION_COUNT)  # set in Python, then one numpy call: half the cost
        for number in self.legal_ids:  # of numpy's zeros and a fancy index for a few ids
            mask[number] = 1
        return np.frombuffer(mask, dtype=np.int8)  # writable: it shares the bytearray

    def take(self, number: int) -> Action | None:
        """Take one step; return the finished action, or ``None`` while a set is chosen.

        Raises:
            IllegalIdError: ``number`` is not legal now.
        """
        if number not in self.legal_ids:
            raise IllegalIdError(
                f"action {number} ({_safe_describe(number)}) is not legal now: legal are "
                + ", ".join(f"{n} ({describe(n)})" for n in self.legal_ids)
            )
        if self._base is None:
            # The engine's own object rather than an equal one: the table's legality
            # check finds it by identity, without comparing dataclasses field by field.
            self.action = self.legal[self.legal_ids.index(number)]
            return self.action
        self._step(number)
        self._take_forced()
        return self.action

    def _step(self, number: int) -> None:
        if number == DONE:
            self.action = self._paths[self._prefix]
            return
        card = number - self._card_base
        self._prefix += (card,)
        self.chosen |= 1 << (SECOND_JOKER if card == JOKER and self.chosen >> JOKER & 1 else card)
        self.legal_ids = self._next_card_ids()

    def _take_forced(self) -> None:
        while self.action is None and len(self.legal_ids) == 1:
            self.take(self.legal_ids[0])

    def _next_card_ids(self) -> list[int]:
        """The cards that extend the set chosen so far towards a legal set, and ``DONE``
        if the set so far is itself legal."""
        depth, prefix = len(self._prefix), self._prefix
        cards = {
            path[depth] for path in self._paths if len(path) > depth and path[:depth] == prefix
        }
        ids = [self._card_base + card for card in sorted(cards)]
        if prefix in self._paths:
            ids.append(DONE)
        return ids


_SET_BASE: dict[type, int] = {Discard: DISCARD_IDS, PickUp: PICKUP_IDS}
"""The decisions chosen card by card, and the first id of their cards."""


def _single_step_ids(legal: Sequence[Action]) -> list[int]:
    """The ids of single-step actions, in the engine's order (``take`` relies on it).

    Plays and bids, the common cases, read their ids off the actions: looking them up
    in ``_ID_OF`` hashes each action, field by field in Python."""
    kind = type(legal[0])
    if kind is Play:
        return [PLAY_IDS + action.card for action in legal]  # type: ignore[union-attr]
    if kind is Bid:
        amounts = [action.amount for action in legal]  # type: ignore[union-attr]
        return [BID_IDS + amount - 4 if amount else PASS_ID for amount in amounts]
    return [_ID_OF[action] for action in legal]


def _path(cards: CardMask) -> tuple[int, ...]:
    """A set as its ascending card slots: a joker is slot 52, twice for both jokers."""
    return tuple(min(card, JOKER) for card in cards_in(cards))


def _safe_describe(number: int) -> str:
    try:
        return describe(number)
    except ValueError:
        return "no such action"
