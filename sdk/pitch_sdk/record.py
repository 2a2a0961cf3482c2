"""Game records: writing them as a game is played, and replaying them exactly.

A record is a JSON object (schema: ``docs/record-format.md``) holding the rule options,
the seed, each hand's dealer and deck order, every decision in order (seat, action,
whether it was forced), trick winners, points, dead points, scores, faults and the
result. ``GameRecorder`` writes one while it drives a ``GameState``; ``replay`` re-runs
one through the engine, checks every recorded fact and reports the first discrepancy.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from .actions import Action, IllegalActionError, InvalidActionError, parse_action
from .cards import ALL_CARDS, DECK_SIZE, SUIT_LETTERS, Card, Seat, card_name, parse_card
from .deck import deck_for
from .options import RuleOptions
from .progress import Termination, Trick
from .rules import CHANCE, GameState

FORMAT = "pitch-game-record"
"""A record's ``format`` field: what says a JSON file is a game record."""
VERSION = 1
"""The record format's version, which this SDK writes and reads."""


class RecordError(ValueError):
    """A record that cannot be read at all (not JSON, wrong format or version)."""


def deck_names(deck: Sequence[Card]) -> list[str]:
    """A deck order as a record writes it: card names, top card first."""
    return [card_name(card) for card in deck]


def parse_deck(names: Sequence[str]) -> list[Card]:
    """Card codes from names; the second ``JK`` is the second joker.

    Raises:
        ValueError: a name is not a card.
    """
    codes, jokers = [], 0
    for name in names:
        card = parse_card(name)
        if name.upper() == "JK":
            card += jokers
            jokers += 1
        codes.append(card)
    return codes


def tricks_json(tricks: Sequence[Trick]) -> list[dict[str, Any]]:
    """Tricks as a record writes them: leader, [seat, card name] plays, winner."""
    return [
        {
            "leader": trick.leader,
            "plays": [[seat, card_name(card)] for seat, card in trick.plays],
            "winner": trick.winner,
        }
        for trick in tricks
    ]


class GameRecorder:
    """Drives a ``GameState`` and writes down everything a record holds."""

    def __init__(
        self,
        options: RuleOptions | None = None,
        *,
        seed: int | str | None = None,
        first_dealer: Seat = 0,
        players: Sequence[dict[str, Any]] = (),
    ) -> None:
        self.state = GameState(options, first_dealer)
        """The game being recorded: apply actions through ``decide``, not to it."""
        self.seed = seed
        """The game's seed: each hand's deck comes from it unless ``deal`` is given one."""
        self._record: dict[str, Any] = {
            "format": FORMAT,
            "version": VERSION,
            "rules": self.state.options.to_dict(),
            "seed": seed,
            "first_dealer": first_dealer,
            "players": [dict(player) for player in players],
            "hands": [],
            "faults": [],
            "result": None,
        }

    def deal(self, deck: Sequence[Card] | None = None) -> None:
        """Deal the next hand: ``deck`` or, by default, the seeded deck for its number."""
        if deck is None:
            if self.seed is None:
                raise ValueError("a game without a seed needs explicit deck orders")
            deck = deck_for(self.seed, self.state.hand_number + 1)
        self.state.deal(deck)
        self._record["hands"].append(
            {
                "number": self.state.hand_number,
                "dealer": self.state.dealer,
                "deck": deck_names(self.state.deck),
                "decisions": [],
            }
        )

    def decide(self, action: Action, *, ms: float | None = None) -> None:
        """Apply ``action`` for the current seat (checked) and record it.

        Raises:
            InvalidActionError, IllegalActionError: as ``GameState.apply``.
        """
        state = self.state
        seat, forced = state.current_seat(), len(state.legal_actions()) == 1
        state.apply(action)
        entry: dict[str, Any] = {"seat": seat, "action": str(action), "forced": forced}
        if ms is not None:
            entry["ms"] = round(ms, 3)
        self._current_hand()["decisions"].append(entry)
        if state.current_seat() < 0 and state.hand_results:  # the hand was scored
            self._close_hand()

    def fault(self, fault: dict[str, Any]) -> None:
        """Record a bot fault (seat, kind, detail...); the referee decides what follows."""
        hand = self._record["hands"]
        entry = {"hand": len(hand), "decision": len(hand[-1]["decisions"]) if hand else 0}
        self._record["faults"].append({**entry, **fault})

    def forfeit(self, seat: Seat) -> None:
        """End the game: ``seat``'s team loses (``GameState.forfeit``)."""
        self.state.forfeit(seat)

    def record(self) -> dict[str, Any]:
        """The record so far; its ``result`` is set once the game is over."""
        outcome = self.state.outcome
        if outcome is not None:
            self._record["result"] = {
                "termination": outcome.termination.value,
                "winner": outcome.winner,
                "forfeited_by": outcome.forfeited_by,
                "scores": list(self.state.scores),
                "hands": self.state.hand_number,
            }
        return self._record

    def _current_hand(self) -> dict[str, Any]:
        hand: dict[str, Any] = self._record["hands"][-1]
        return hand

    def _close_hand(self) -> None:
        state, hand = self.state, self._current_hand()
        result = state.hand_results[-1]
        hand.update(
            {
                "bidder": result.bidder,
                "bid": result.bid,
                "trump": SUIT_LETTERS[result.trump],
                "tricks": tricks_json(state.tricks),
                "points": list(result.points),
                "dead": result.dead,
                "scores": list(result.scores),
                "made": result.made,
            }
        )


GZIP_MAGIC = b"\x1f\x8b"
"""The first two bytes of a gzip file: how ``load_record`` tells one, whatever its name."""

COMPRESSED_SUFFIX = ".gz"
"""A record file whose name ends so is written gzip-compressed (``write_record``)."""

COMPRESS_LEVEL = 6
"""gzip's level for records (``bench/match_memory.py`` compares levels)."""


def write_record(record: dict[str, Any], path: Path, *, compress: bool | None = None) -> None:
    """Write a record atomically, so a crash never leaves half a file.

    Compressed (gzip, compact JSON) when ``compress`` says so or, by default, when the
    name ends in ``.gz`` (``game.json.gz``); otherwise indented JSON. ``load_record``
    reads both.
    """
    path = Path(path)
    if compress is None:
        compress = path.name.endswith(COMPRESSED_SUFFIX)
    write_record_bytes(record_bytes(record, compress), path)


def record_bytes(record: dict[str, Any], compress: bool) -> bytes:
    """A record file's bytes, as ``write_record`` writes them: for a caller that also
    needs the bytes (their digest, say)."""
    if compress:  # mtime 0: the same record gives the same bytes
        import gzip  # here: the commands that write no compressed record never import it

        return gzip.compress(
            json.dumps(record, separators=(",", ":")).encode(), COMPRESS_LEVEL, mtime=0
        )
    return (json.dumps(record, indent=1) + "\n").encode()


def write_record_bytes(data: bytes, path: Path) -> None:
    """Write a record file's bytes (``record_bytes``) atomically."""
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_bytes(data)
    temporary.replace(path)


def load_record(path: Path) -> dict[str, Any]:
    """Read a record file, plain JSON or gzip-compressed JSON (told by its first bytes,
    whatever the file is called).

    Raises:
        RecordError: the file is missing, not (gzip-compressed) JSON, or not a game
            record of a known version.
    """
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise RecordError(f"{path}: no such record file") from None
    except OSError as error:
        raise RecordError(f"{path}: not a readable JSON game record ({error})") from None
    return parse_record(data, str(path))


def parse_record(data: bytes, where: str = "record") -> dict[str, Any]:
    """A record file's bytes (``record_bytes``) read as ``load_record`` reads the file;
    ``where`` names them in errors.

    Raises:
        RecordError: not (gzip-compressed) JSON, or not a game record of a known version.
    """
    try:
        if data.startswith(GZIP_MAGIC):
            data = _decompressed(data)
        record = json.loads(data)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise RecordError(f"{where}: not a readable JSON game record ({error})") from None
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise RecordError(f"{where}: not a pitch game record (no format {FORMAT!r})")
    if record.get("version") != VERSION:
        raise RecordError(
            f"{where}: record version {record.get('version')!r}; this tool reads version {VERSION}"
        )
    return record


def _decompressed(data: bytes) -> bytes:
    """``data`` gunzipped.

    Raises:
        OSError: not gzip, or cut short (``gzip.BadGzipFile`` or the reason).
    """
    import gzip  # here: the commands that read no compressed record never import it
    import zlib

    try:
        return gzip.decompress(data)
    except (EOFError, zlib.error) as error:  # cut short, or damaged inside
        raise OSError(str(error)) from None


@dataclass(frozen=True)
class ReplayResult:
    """What ``replay`` found."""

    state: GameState
    """The engine state after the last recorded event that replayed cleanly."""
    discrepancy: str | None
    """The first recorded fact the engine disagrees with; ``None`` when all agree."""
    malformed: bool = False
    """The record cannot be walked at all: a field missing or of the wrong type, a deck
    that is not the 54 cards, an action that does not read (``discrepancy`` says which)."""

    @property
    def ok(self) -> bool:
        """Whether every recorded fact agrees with the engine."""
        return self.discrepancy is None


class _Discrepancy(Exception):
    pass


def replay(record: dict[str, Any]) -> ReplayResult:
    """Re-run ``record`` through the engine and check every fact it states.

    Examples:
        >>> recorder = GameRecorder(seed=3)
        >>> recorder.deal()
        >>> replay(recorder.record()).ok
        True
    """
    state = GameState()
    try:
        state = GameState(_rules(record), _seat(record, "first_dealer", "record"))
        seed = _field(record, "seed", (int, str), "record", optional=True)
        _check_entries(record, "players", {"seat": int, "name": str})
        _check_entries(record, "faults", _FAULT_FIELDS)
        for index, hand in enumerate(_field(record, "hands", list, "record"), start=1):
            _replay_hand(state, _entry(hand, f"hand {index}"), index, seed)
        _check_result(state, record)
    except _Discrepancy as found:
        return ReplayResult(state, str(found))
    except RecordError as error:
        return ReplayResult(state, str(error), malformed=True)
    return ReplayResult(state, None)


_KINDS = {int: "a whole number", bool: "true or false", str: "a string", list: "a list"}
_FAULT_FIELDS = {"hand": int, "decision": int, "seat": int, "kind": str, "detail": str}
_SCORED_HAND_FIELDS = {
    "bidder": int,
    "bid": int,
    "trump": str,
    "tricks": list,
    "points": list,
    "dead": int,
    "scores": list,
    "made": bool,
}


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
        expected = " or ".join(_KINDS.get(k, "an object") for k in kinds)
        raise RecordError(f"{where}: {key!r} should be {expected}, found {_shown(value)}")
    return value


def _seat(data: dict[str, Any], key: str, where: str) -> Seat:
    seat: Seat = _field(data, key, int, where)
    if seat not in range(4):
        raise RecordError(f"{where}: {key!r} should be a seat, 0 to 3, found {seat}")
    return seat


def _entry(value: object, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise RecordError(f"{where}: should be an object, found {_shown(value)}")
    return value


def _shown(value: object) -> str:
    """A value for a message: its repr, cut short."""
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:57]}..."


def _rules(record: dict[str, Any]) -> RuleOptions:
    rules = _field(record, "rules", dict, "record")
    try:
        return RuleOptions.from_dict(dict(rules))
    except (ValueError, TypeError) as error:
        raise RecordError(f"rules: {error}") from None


def _check_entries(record: dict[str, Any], key: str, fields: dict[str, type]) -> None:
    """``record[key]`` is a list of objects with these fields (players, faults)."""
    for number, entry in enumerate(_field(record, key, list, "record")):
        where = f"{key}[{number}]"
        for name, kind in fields.items():
            _field(_entry(entry, where), name, kind, where)


def _expect(where: str, what: str, recorded: object, actual: object) -> None:
    if recorded != actual:
        raise _Discrepancy(f"{where}: recorded {what} {recorded!r}, the engine says {actual!r}")


def _replay_hand(
    state: GameState, hand: dict[str, Any], index: int, seed: int | str | None
) -> None:
    where = f"hand {index}"
    if state.is_over():
        raise _Discrepancy(f"{where}: recorded, but the game was already over")
    if state.current_seat() != CHANCE:
        raise _Discrepancy(f"{where}: recorded, but hand {index - 1} was not finished")
    _expect(where, "hand number", _field(hand, "number", int, where), index)
    _expect(where, "dealer", _field(hand, "dealer", int, where), state.dealer)
    deck = _deck(hand, where)
    if seed is not None:
        _expect(where, "deck order", deck_names(deck), deck_names(deck_for(seed, index)))
    state.deal(deck)
    for number, decision in enumerate(_field(hand, "decisions", list, where), start=1):
        at = f"{where}, decision {number}"
        _replay_decision(state, _entry(decision, at), at)
    if "scores" in hand:
        _check_hand(state, hand, where)
    elif state.hand_results and state.hand_results[-1].number == index:
        raise _Discrepancy(f"{where}: recorded as unfinished, but the engine says it ended")


def _deck(hand: dict[str, Any], where: str) -> list[Card]:
    """The hand's deck: 54 card names, each card once (the two jokers both ``JK``)."""
    names = _field(hand, "deck", list, where)
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
    return deck


def _replay_decision(state: GameState, decision: dict[str, Any], where: str) -> None:
    seat = _field(decision, "seat", int, where)
    forced = _field(decision, "forced", bool, where)
    text = _field(decision, "action", str, where)
    try:
        action = parse_action(text)
    except InvalidActionError as error:
        raise RecordError(f"{where}: {error}") from None
    _expect(where, "seat", seat, state.current_seat())
    _expect(where, "forced flag", forced, len(state.legal_actions()) == 1)
    try:
        state.apply(action)
    except (InvalidActionError, IllegalActionError) as error:
        raise _Discrepancy(f"{where}: {error}") from None


def _check_hand(state: GameState, hand: dict[str, Any], where: str) -> None:
    if not state.hand_results or state.hand_results[-1].number != hand["number"]:
        raise _Discrepancy(f"{where}: recorded as finished, but the engine says it goes on")
    result = state.hand_results[-1]
    recorded = {key: _field(hand, key, kind, where) for key, kind in _SCORED_HAND_FIELDS.items()}
    _expect(where, "bidder", recorded["bidder"], result.bidder)
    _expect(where, "bid", recorded["bid"], result.bid)
    _expect(where, "trump", recorded["trump"], SUIT_LETTERS[result.trump])
    _expect(where, "tricks", recorded["tricks"], tricks_json(state.tricks))
    _expect(where, "points", recorded["points"], list(result.points))
    _expect(where, "dead points", recorded["dead"], result.dead)
    _expect(where, "scores", recorded["scores"], list(result.scores))
    _expect(where, "made", recorded["made"], result.made)


def _check_result(state: GameState, record: dict[str, Any]) -> None:
    result = _field(record, "result", dict, "record", optional=True)
    if result is None:
        if state.outcome is not None:
            raise _Discrepancy("result: recorded as unfinished, but the engine says it is over")
        return
    termination = _field(result, "termination", str, "result")
    if termination == Termination.FORFEIT.value and state.outcome is None:
        state.forfeit(_seat(result, "forfeited_by", "result"))
    if state.outcome is None:
        raise _Discrepancy("result: recorded as over, but the engine says the game goes on")
    outcome = state.outcome
    _expect("result", "termination", termination, outcome.termination.value)
    winner = _field(result, "winner", int, "result", optional=True)
    _expect("result", "winner", winner, outcome.winner)
    _expect("result", "scores", _field(result, "scores", list, "result"), list(state.scores))
    _expect("result", "hand count", _field(result, "hands", int, "result"), state.hand_number)


# --- the bots' log files a record names ------------------------------------------------


def log_file(folder: Path, log: str) -> Path:
    """The file a record's ``log`` names: relative to the record's match ``folder`` (as
    the referee writes them), or, in records written before, an absolute path.

    Examples:
        >>> log_file(Path("matches/m1"), "logs/worker-0/A1-greedy.log").as_posix()
        'matches/m1/logs/worker-0/A1-greedy.log'
    """
    return folder / PurePosixPath(log)


def match_folder(record_path: Path) -> Path:
    """The folder a record's logs are named from: its match folder (records are in
    ``games/``), or the record's own folder for a loose record."""
    return record_path.parent.parent if record_path.parent.name == "games" else record_path.parent


def public_logs(record: dict[str, Any], folder: Path | None = None) -> dict[str, Any]:
    """``record`` with no absolute path of the disk it was played on: each ``log`` of its
    ``players`` and ``faults`` relative to its match ``folder`` (forward slashes), and the
    mentions of an absolute one in a fault's ``detail`` too. An absolute path outside
    ``folder`` (or any, without one) is dropped, and its mentions become its file name.
    A record whose logs are all relative (as the referee writes them) is returned as is.
    """
    entries = [*record.get("players", ()), *record.get("faults", ())]
    logs = {log for e in entries if isinstance(e, dict) and isinstance(log := e.get("log"), str)}
    absolute = {log for log in logs if PurePosixPath(log).is_absolute() or Path(log).is_absolute()}
    if not absolute:
        return record
    shown = {log: _relative_log(log, folder) for log in absolute}
    copy = dict(record)
    for key in ("players", "faults"):
        if isinstance(record.get(key), list):
            copy[key] = [_public_entry(entry, shown) for entry in record[key]]
    return copy


def _relative_log(log: str, folder: Path | None) -> str | None:
    if folder is not None:
        for base in (folder.absolute(), folder.resolve()):
            if Path(log).is_relative_to(base):
                return Path(log).relative_to(base).as_posix()
    return None


def _public_entry(entry: object, shown: dict[str, str | None]) -> object:
    if not isinstance(entry, dict):
        return entry
    entry = dict(entry)
    log = entry.get("log")
    if isinstance(log, str) and log in shown:
        if shown[log] is None:
            del entry["log"]
        else:
            entry["log"] = shown[log]
    if isinstance(entry.get("detail"), str):
        for old, new in shown.items():
            entry["detail"] = entry["detail"].replace(old, new or PurePosixPath(old).name)
    return entry


# --- reading a finished game's result -------------------------------------------------


@dataclass(frozen=True)
class RecordFault:
    """One entry of a record's ``faults``, as ``record_result`` reads it."""

    seat: Seat
    """The seat that faulted."""
    kind: str
    """A ``pitch_sdk.faults.FaultKind`` value (records hold the string)."""
    detail: str
    """What went wrong, in words."""
    hand: int
    """The hand it happened in (0: before the first deal)."""
    decision: int
    """How many decisions of that hand came before it."""
    decision_kind: str | None = None
    """The kind of decision asked (``bid``, ``play``...); ``None`` outside a decision."""
    log: str | None = None
    """The file the bot's output went to, when it had one."""

    @property
    def team(self) -> int:
        """The team of the seat that faulted."""
        return self.seat % 2


@dataclass(frozen=True)
class RecordResult:
    """How a recorded game ended, with its faults and CPU: what match tallies, the
    ladder and the command line read from a record, read in one place."""

    termination: str
    """Why the game ended: a ``pitch_sdk.progress.Termination`` value."""
    winner: int | None
    """The winning team; ``None`` for a draw at the hand cap."""
    forfeited_by: Seat | None
    """The seat whose fault forfeited the game, for a forfeit."""
    scores: tuple[int, int]
    """The final score of each team."""
    hands: int
    """How many hands were dealt."""
    faults: tuple[RecordFault, ...]
    """Every fault, in order."""
    cpu_ms: tuple[float | None, ...]
    """Each seat's CPU in this game, where the sandbox measured it."""

    def score_of(self, team: int) -> float:
        """``team``'s game score: 1 for a win, 0.5 for a draw, 0 for a loss."""
        return 0.5 if self.winner is None else float(self.winner == team)

    def faults_of(self, team: int) -> tuple[RecordFault, ...]:
        """The faults of ``team``'s two seats."""
        return tuple(fault for fault in self.faults if fault.team == team)

    def team_cpu_ms(self, team: int) -> float | None:
        """The CPU of ``team``'s two seats (``None`` unless both were measured)."""
        spent = [ms for seat, ms in enumerate(self.cpu_ms) if seat % 2 == team]
        if len(spent) != 2 or None in spent:
            return None
        return sum(ms for ms in spent if ms is not None)


def record_result(record: dict[str, Any]) -> RecordResult | None:
    """The result of a game record, or ``None`` while the game goes on (``result`` null).

    Reads only ``result``, ``faults`` and the players' ``cpu_ms``; it does not replay the
    game (``replay`` checks that the result is the one the rules give).

    Raises:
        RecordError: one of those is missing or of the wrong type; the message names it.
    """
    result = _field(record, "result", dict, "record", optional=True)
    if result is None:
        return None
    winner = _field(result, "winner", int, "result", optional=True)
    forfeited_by = _field(result, "forfeited_by", int, "result", optional=True)
    scores = _field(result, "scores", list, "result")
    if len(scores) != 2 or not all(isinstance(s, int) and not isinstance(s, bool) for s in scores):
        raise RecordError(f"result: 'scores' should be two whole numbers, found {_shown(scores)}")
    faults = []
    for number, entry in enumerate(_field(record, "faults", list, "record")):
        where = f"faults[{number}]"
        entry = _entry(entry, where)
        faults.append(
            RecordFault(
                seat=_seat(entry, "seat", where),
                kind=_field(entry, "kind", str, where),
                detail=_field(entry, "detail", str, where),
                hand=_field(entry, "hand", int, where),
                decision=_field(entry, "decision", int, where),
                decision_kind=_field(entry, "decision_kind", str, where, optional=True),
                log=_field(entry, "log", str, where, optional=True),
            )
        )
    players = record.get("players")
    cpu: list[float | None] = [None] * 4
    for player in players if isinstance(players, list) else []:
        if not isinstance(player, dict):
            continue
        seat, ms = player.get("seat"), player.get("cpu_ms")
        if type(seat) is int and seat in range(4) and type(ms) in (int, float):
            assert isinstance(ms, int | float)  # for the type checker: no bool, as above
            cpu[seat] = float(ms)
    return RecordResult(
        termination=_field(result, "termination", str, "result"),
        winner=winner,
        forfeited_by=forfeited_by,
        scores=(scores[0], scores[1]),
        hands=_field(result, "hands", int, "result"),
        faults=tuple(faults),
        cpu_ms=tuple(cpu),
    )
