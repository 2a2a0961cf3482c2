"""The game record as typed values, and its one conversion from and to JSON.

A record (schema: ``docs/record-format.md``) is read from JSON once, here, into frozen
dataclasses; everything else reads attributes. ``GameRecord.from_json`` checks every key
the format defines and raises ``RecordError`` with a one-line message naming the place
(``hand 2, decision 5: 'seat' should be a whole number, found 'one'``); ``to_json`` gives
back the format's object. Keys a reader does not know are ignored (the format allows new
optional ones), so they do not survive a round trip. This module imports no engine state:
the recorder (``record``) and the replay (``replay``) build on it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from .actions import Action, InvalidActionError, parse_action
from .cards import ALL_CARDS, DECK_SIZE, JOKER, Card, Seat, card_name, parse_card
from .options import RuleOptions

FORMAT = "pitch-game-record"
"""A record's ``format`` field: what says a JSON file is a game record."""
VERSION = 1
"""The record format's version, which this SDK writes and reads."""


MALFORMED = "not a well-formed game record"
"""How the message of a record whose keys do not read begins."""


class RecordError(ValueError):
    """A record that cannot be read: not JSON, wrong format or version, or a key of the
    format missing or of the wrong type (the message names the place)."""


@dataclass(frozen=True, slots=True)
class Player:
    """One entry of ``players``: who sat where."""

    seat: Seat
    """The seat, 0 to 3."""
    name: str
    """The bot's name."""
    version: str = ""
    """The bot's version."""
    log: str | None = None
    """The file the bot's output went to, relative to the match folder (older records: an
    absolute path)."""
    seed: int | str | None = None
    """The seed the bot got in its ``GameStart`` (what ``pitch rerun`` gives it again)."""
    cpu_ms: float | None = None
    """The CPU the bot and its processes used in this game, where the sandbox measured it."""

    @classmethod
    def from_json(cls, data: object, where: str) -> Player:
        """A player from its JSON object.

        Raises:
            RecordError: a key missing or of the wrong type.
        """
        entry = _object(data, where)
        cpu = _field(entry, "cpu_ms", (int, float), where, optional=True)
        return cls(
            seat=_field(entry, "seat", int, where),
            name=_field(entry, "name", str, where),
            version=_field(entry, "version", str, where, optional=True) or "",
            log=_field(entry, "log", str, where, optional=True),
            seed=_field(entry, "seed", (int, str), where, optional=True),
            cpu_ms=None if cpu is None else float(cpu),
        )

    def to_json(self) -> dict[str, Any]:
        """The player's JSON object (optional keys only when set)."""
        data: dict[str, Any] = {"seat": self.seat, "name": self.name, "version": self.version}
        return data | _present(log=self.log, seed=self.seed, cpu_ms=self.cpu_ms)


@dataclass(frozen=True, slots=True)
class Decision:
    """One recorded decision of a hand."""

    seat: Seat
    """The seat that decided (replay checks it is the one the engine expects)."""
    action: Action
    """What it decided."""
    forced: bool
    """Recorded as the only legal option, so the bot was not asked."""
    ms: float | None = None
    """The time the bot took to answer, where the referee timed it."""

    @classmethod
    def from_json(cls, data: object, where: str) -> Decision:
        """A decision from its JSON object.

        Raises:
            RecordError: a key missing or of the wrong type, or an action that does not read.
        """
        entry = data if type(data) is dict else _object(data, where)
        seat, forced, text, ms = (
            entry.get("seat"),
            entry.get("forced"),
            entry.get("action"),
            entry.get("ms"),
        )
        if not (  # the common case checked at once; a record's thousands of decisions
            type(seat) is int
            and type(forced) is bool
            and type(text) is str
            and (ms is None or type(ms) in (int, float))
        ):
            seat = _field(entry, "seat", int, where)
            forced = _field(entry, "forced", bool, where)
            text = _field(entry, "action", str, where)
            ms = _field(entry, "ms", (int, float), where, optional=True)
        try:
            action = _parsed_action(text)
        except InvalidActionError as error:
            raise RecordError(f"{where}: {error}") from None
        return cls(seat, action, forced, None if ms is None else float(ms))

    def to_json(self) -> dict[str, Any]:
        """The decision's JSON object."""
        data = {"seat": self.seat, "action": str(self.action), "forced": self.forced}
        return data | _present(ms=self.ms)


@dataclass(frozen=True, slots=True)
class TrickRecord:
    """One trick of a scored hand, as recorded (cards by name: both jokers are ``JK``)."""

    leader: Seat
    """The seat that led."""
    plays: tuple[tuple[Seat, str], ...]
    """(seat, card name) in the order played."""
    winner: Seat
    """The seat that won the trick."""

    @classmethod
    def from_json(cls, data: object, where: str) -> TrickRecord:
        """A trick from its JSON object.

        Raises:
            RecordError: a key missing or of the wrong type.
        """
        entry = _object(data, where)
        plays = []
        for play in _field(entry, "plays", list, where):
            if not (
                type(play) is list
                and len(play) == 2
                and type(play[0]) is int
                and type(play[1]) is str
            ):
                raise RecordError(f"{where}: a play should be [seat, card], found {_shown(play)}")
            plays.append((play[0], play[1]))
        leader = _field(entry, "leader", int, where)
        return cls(leader, tuple(plays), _field(entry, "winner", int, where))

    def to_json(self) -> dict[str, Any]:
        """The trick's JSON object."""
        plays = [[seat, card] for seat, card in self.plays]
        return {"leader": self.leader, "plays": plays, "winner": self.winner}


@dataclass(frozen=True, slots=True)
class HandScore:
    """What a scored hand's record states (the keys added once the hand is scored)."""

    bidder: Seat
    """The bidder's seat."""
    bid: int
    """The winning bid."""
    trump: str
    """The trump suit's letter."""
    tricks: tuple[TrickRecord, ...]
    """The tricks in order."""
    points: tuple[int, int]
    """Points each team took in the hand."""
    dead: int
    """Points nobody scored."""
    scores: tuple[int, int]
    """The game scores after the hand."""
    made: bool
    """Whether the bidding team took at least its bid."""

    @classmethod
    def from_json(cls, hand: dict[str, Any], where: str) -> HandScore:
        """The scored keys of a hand's JSON object.

        Raises:
            RecordError: one missing or of the wrong type.
        """
        tricks = _field(hand, "tricks", list, where)
        return cls(
            bidder=_field(hand, "bidder", int, where),
            bid=_field(hand, "bid", int, where),
            trump=_field(hand, "trump", str, where),
            tricks=tuple(
                TrickRecord.from_json(trick, f"{where}, trick {number}")
                for number, trick in enumerate(tricks, start=1)
            ),
            points=_pair(hand, "points", where),
            dead=_field(hand, "dead", int, where),
            scores=_pair(hand, "scores", where),
            made=_field(hand, "made", bool, where),
        )

    def to_json(self) -> dict[str, Any]:
        """The scored keys, as the hand's object holds them."""
        return {
            "bidder": self.bidder,
            "bid": self.bid,
            "trump": self.trump,
            "tricks": [trick.to_json() for trick in self.tricks],
            "points": list(self.points),
            "dead": self.dead,
            "scores": list(self.scores),
            "made": self.made,
        }


@dataclass(frozen=True, slots=True)
class HandRecord:
    """One dealt hand: its deck and decisions, and its score once it was scored."""

    number: int
    """1 for the first hand, then 2, 3..."""
    dealer: Seat
    """The dealer's seat."""
    deck: tuple[Card, ...]
    """The deck order, top card first (the first ``JK`` is joker 52, the second 53)."""
    decisions: tuple[Decision, ...]
    """Every decision of the hand, forced ones included."""
    score: HandScore | None = None
    """What the hand's scoring recorded; ``None`` for an unfinished hand."""

    @classmethod
    def from_json(cls, data: object, where: str) -> HandRecord:
        """A hand from its JSON object.

        Raises:
            RecordError: a key missing or of the wrong type, a deck that is not the 54
                cards, an action that does not read.
        """
        hand = _object(data, where)
        number = _field(hand, "number", int, where)
        dealer = _field(hand, "dealer", int, where)
        deck = _deck(_field(hand, "deck", list, where), where)
        decisions = tuple(
            Decision.from_json(decision, f"{where}, decision {index}")
            for index, decision in enumerate(_field(hand, "decisions", list, where), start=1)
        )
        score = HandScore.from_json(hand, where) if "scores" in hand else None
        return cls(number, dealer, deck, decisions, score)

    def to_json(self) -> dict[str, Any]:
        """The hand's JSON object."""
        data = {
            "number": self.number,
            "dealer": self.dealer,
            "deck": deck_names(self.deck),
            "decisions": [decision.to_json() for decision in self.decisions],
        }
        return data | (self.score.to_json() if self.score else {})


@dataclass(frozen=True, slots=True)
class Fault:
    """One bot fault, in the order they happened."""

    hand: int
    """The hand it happened in (0: before the first deal)."""
    decision: int
    """0-based index, in that hand's ``decisions``, of the decision the bot was asked for."""
    seat: Seat
    """The faulty seat."""
    kind: str
    """A ``pitch_sdk.faults.FaultKind`` value."""
    detail: str
    """What went wrong, in words."""
    decision_kind: str | None = None
    """The kind of decision asked (``bid``, ``play``...); ``None`` outside a decision."""
    elapsed_ms: float | None = None
    """How long the referee waited."""
    log: str | None = None
    """The bot's log file, relative to the match folder (like ``Player.log``)."""

    @property
    def team(self) -> int:
        """The team of the seat that faulted."""
        return self.seat % 2

    @classmethod
    def from_json(cls, data: object, where: str) -> Fault:
        """A fault from its JSON object.

        Raises:
            RecordError: a key missing or of the wrong type, or a seat outside 0-3.
        """
        entry = _object(data, where)
        elapsed = _field(entry, "elapsed_ms", (int, float), where, optional=True)
        return cls(
            hand=_field(entry, "hand", int, where),
            decision=_field(entry, "decision", int, where),
            seat=_seat(entry, "seat", where),
            kind=_field(entry, "kind", str, where),
            detail=_field(entry, "detail", str, where),
            decision_kind=_field(entry, "decision_kind", str, where, optional=True),
            elapsed_ms=None if elapsed is None else float(elapsed),
            log=_field(entry, "log", str, where, optional=True),
        )

    def to_json(self) -> dict[str, Any]:
        """The fault's JSON object (``elapsed_ms`` and ``log`` only when set)."""
        data = {
            "hand": self.hand,
            "decision": self.decision,
            "seat": self.seat,
            "kind": self.kind,
            "detail": self.detail,
            "decision_kind": self.decision_kind,
        }
        return data | _present(elapsed_ms=self.elapsed_ms, log=self.log)


@dataclass(frozen=True, slots=True)
class GameResult:
    """How a finished game ended."""

    termination: str
    """A ``pitch_sdk.progress.Termination`` value."""
    winner: int | None
    """The winning team; ``None`` for a draw at the hand cap."""
    forfeited_by: Seat | None
    """The seat whose fault ended the game, for a forfeit."""
    scores: tuple[int, int]
    """The final game scores."""
    hands: int
    """How many hands were dealt, an unfinished one included."""

    @classmethod
    def from_json(cls, data: object, where: str = "result") -> GameResult:
        """A result from its JSON object.

        Raises:
            RecordError: a key missing or of the wrong type; a forfeit without its seat.
        """
        entry = _object(data, where)
        termination = _field(entry, "termination", str, where)
        forfeit = termination == "forfeit"
        forfeited_by = (
            _seat(entry, "forfeited_by", where)
            if forfeit or entry.get("forfeited_by") is not None
            else None
        )
        return cls(
            termination=termination,
            winner=_field(entry, "winner", int, where, optional=True),
            forfeited_by=forfeited_by,
            scores=_pair(entry, "scores", where),
            hands=_field(entry, "hands", int, where),
        )

    def to_json(self) -> dict[str, Any]:
        """The result's JSON object."""
        return {
            "termination": self.termination,
            "winner": self.winner,
            "forfeited_by": self.forfeited_by,
            "scores": list(self.scores),
            "hands": self.hands,
        }


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A whole game record: everything needed to replay the game, and who played it."""

    rules: RuleOptions
    """The rule options in force."""
    seed: int | str | None
    """The seed the decks were drawn from, if any."""
    first_dealer: Seat
    """The seat that dealt hand 1."""
    players: tuple[Player, ...]
    """Who sat where, in seat order."""
    hands: tuple[HandRecord, ...]
    """Every hand dealt, in order."""
    faults: tuple[Fault, ...]
    """Bot faults, in the order they happened."""
    result: GameResult | None
    """``None`` while the game goes on."""

    @classmethod
    def from_json(cls, data: object) -> GameRecord:
        """A record from its JSON object (``json.loads`` of a record file).

        Raises:
            RecordError: not a version 1 game record, or one that is not well formed: a key
                of the format missing or of the wrong type (the message names the place).
        """
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise RecordError(f"not a pitch game record (no format {FORMAT!r})")
        if data.get("version") != VERSION:
            raise RecordError(
                f"record version {data.get('version')!r}; this tool reads version {VERSION}"
            )
        try:
            return cls._from_fields(data)
        except RecordError as error:
            raise RecordError(f"{MALFORMED}: {error}") from None

    @classmethod
    def _from_fields(cls, data: dict[str, Any]) -> GameRecord:
        rules = _field(data, "rules", dict, "record")
        try:
            options = RuleOptions.from_dict(dict(rules))
        except (ValueError, TypeError) as error:
            raise RecordError(f"rules: {error}") from None
        first_dealer = _seat(data, "first_dealer", "record")
        seed = _field(data, "seed", (int, str), "record", optional=True)
        players = tuple(
            Player.from_json(entry, f"players[{index}]")
            for index, entry in enumerate(_field(data, "players", list, "record"))
        )
        faults = tuple(
            Fault.from_json(entry, f"faults[{index}]")
            for index, entry in enumerate(_field(data, "faults", list, "record"))
        )
        hands = tuple(
            HandRecord.from_json(hand, f"hand {number}")
            for number, hand in enumerate(_field(data, "hands", list, "record"), start=1)
        )
        result = _field(data, "result", dict, "record", optional=True)
        return cls(
            rules=options,
            seed=seed,
            first_dealer=first_dealer,
            players=players,
            hands=hands,
            faults=faults,
            result=None if result is None else GameResult.from_json(result),
        )

    def to_json(self) -> dict[str, Any]:
        """The record's JSON object, ``format`` and ``version`` first."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "first_dealer": self.first_dealer,
            "players": [player.to_json() for player in self.players],
            "hands": [hand.to_json() for hand in self.hands],
            "faults": [fault.to_json() for fault in self.faults],
            "result": None if self.result is None else self.result.to_json(),
        }

    def player(self, seat: Seat) -> Player | None:
        """The ``players`` entry of ``seat``, if the record has one."""
        return next((player for player in self.players if player.seat == seat), None)


def deck_names(deck: tuple[Card, ...] | list[Card]) -> list[str]:
    """A deck order as a record writes it: card names, top card first."""
    return [card_name(card) for card in deck]


@functools.lru_cache(maxsize=4096)
def _parsed_action(text: str) -> Action:
    """``parse_action``, remembered: a record repeats its action texts, and actions are
    frozen, so one object serves every decision that reads the same."""
    return parse_action(text)


def record_deck(deck: tuple[Card, ...] | list[Card]) -> tuple[Card, ...]:
    """A deck as a record holds it: the first joker in deck order is joker 52 (the record
    names both ``JK``, so which joker code the engine dealt first is not kept)."""
    jokers = iter((JOKER, JOKER + 1))
    return tuple(next(jokers) if card >= JOKER else card for card in deck)


def parse_deck(names: list[str] | tuple[str, ...]) -> list[Card]:
    """Card codes from names; the second ``JK`` is the second joker.

    Raises:
        ValueError: a name is not a card.
    """
    codes, jokers = [], 0
    for name in names:
        card = _CARD_CODES.get(name)
        if card is None:
            card = parse_card(name)
        if card == JOKER:
            card += jokers
            jokers += 1
        codes.append(card)
    return codes


_CARD_CODES = {card_name(card): card for card in ALL_CARDS if card <= JOKER}
"""Card codes by the names writers write (``JK``: the first joker), to read decks fast."""


_KINDS = {int: "a whole number", bool: "true or false", str: "a string", list: "a list"}


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _field(
    data: dict[str, Any],
    key: str,
    kind: type | tuple[type, ...],
    where: str,
    *,
    optional: bool = False,
) -> Any:
    """``data[key]``, which must be of ``kind`` (or missing or null, if ``optional``).

    Raises:
        RecordError: the record is malformed there.
    """
    value = data.get(key)
    if value is None and optional:
        return None
    if key not in data:
        raise RecordError(f"{where}: {key!r} is missing")
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        expected = " or ".join(
            _KINDS.get(k, "a number" if k is float else "an object") for k in kinds
        )
        raise RecordError(f"{where}: {key!r} should be {expected}, found {_shown(value)}")
    return value


def _seat(data: dict[str, Any], key: str, where: str) -> Seat:
    seat: Seat = _field(data, key, int, where)
    if seat not in range(4):
        raise RecordError(f"{where}: {key!r} should be a seat, 0 to 3, found {seat}")
    return seat


def _pair(data: dict[str, Any], key: str, where: str) -> tuple[int, int]:
    """``data[key]``: ``[team0, team1]``, two whole numbers."""
    value = _field(data, key, list, where)
    if len(value) != 2 or not all(_is_int(number) for number in value):
        raise RecordError(f"{where}: {key!r} should be two whole numbers, found {_shown(value)}")
    return (value[0], value[1])


def _object(value: object, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise RecordError(f"{where}: should be an object, found {_shown(value)}")
    return value


def _deck(names: list[Any], where: str) -> tuple[Card, ...]:
    """The hand's deck: 54 card names, each card once (the two jokers both ``JK``)."""
    try:
        if not all(isinstance(name, str) for name in names):
            raise ValueError("every card should be a name like 'AS'")
        deck = parse_deck(names)
    except ValueError as error:
        raise RecordError(f"{where}: unreadable deck ({error})") from None
    if sorted(deck) != list(ALL_CARDS):
        raise RecordError(
            f"{where}: the deck should hold each of the {DECK_SIZE} cards once; it has "
            f"{len(deck)} cards, {len(set(deck))} of them different"
        )
    return tuple(deck)


def _shown(value: object) -> str:
    """A value for a message: its repr, cut short."""
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:57]}..."


def _present(**values: object) -> dict[str, object]:
    """The optional keys that are set."""
    return {key: value for key, value in values.items() if value is not None}
