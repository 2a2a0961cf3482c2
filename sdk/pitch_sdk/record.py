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
from pathlib import Path
from typing import Any

from .actions import Action, IllegalActionError, InvalidActionError, parse_action
from .cards import SUIT_LETTERS, Card, Seat, card_name, parse_card
from .deck import deck_for
from .options import RuleOptions
from .rules import CHANCE, GameState, Termination, Trick

FORMAT = "pitch-game-record"
VERSION = 1


class RecordError(ValueError):
    """A record that cannot be read at all (not JSON, wrong format or version)."""


def deck_names(deck: Sequence[Card]) -> list[str]:
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
        self.seed = seed
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
        return self._record["hands"][-1]

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


def write_record(record: dict[str, Any], path: Path) -> None:
    """Write a record atomically, so a crash never leaves half a file."""
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(record, indent=1) + "\n")
    temporary.replace(path)


def load_record(path: Path) -> dict[str, Any]:
    """Read a record file.

    Raises:
        RecordError: the file is missing, not JSON, or not a game record of a known version.
    """
    try:
        record = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise RecordError(f"{path}: no such record file") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise RecordError(f"{path}: not a readable JSON game record ({error})") from None
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise RecordError(f"{path}: not a pitch game record (no format {FORMAT!r})")
    if record.get("version") != VERSION:
        raise RecordError(
            f"{path}: record version {record.get('version')!r}; this tool reads version {VERSION}"
        )
    return record


@dataclass(frozen=True)
class ReplayResult:
    state: GameState
    """The engine state after the last recorded event that replayed cleanly."""
    discrepancy: str | None
    """The first recorded fact the engine disagrees with; ``None`` when all agree."""

    @property
    def ok(self) -> bool:
        return self.discrepancy is None


class _Discrepancy(Exception):
    pass


def replay(record: dict[str, Any]) -> ReplayResult:
    """Re-run ``record`` through the engine and check every fact it states.

    >>> recorder = GameRecorder(seed=3)
    >>> recorder.deal()
    >>> replay(recorder.record()).ok
    True
    """
    state = GameState()
    try:
        state = GameState(
            RuleOptions.from_dict(dict(record.get("rules", {}))),
            _int(record, "first_dealer", "record"),
        )
        seed = record.get("seed")
        for index, hand in enumerate(record.get("hands", []), start=1):
            _replay_hand(state, hand, index, seed)
        _check_result(state, record)
    except _Discrepancy as found:
        return ReplayResult(state, str(found))
    except (ValueError, TypeError, KeyError) as error:
        return ReplayResult(state, f"malformed record: {error!r}")
    return ReplayResult(state, None)


def _int(data: dict[str, Any], key: str, where: str) -> int:
    value = data.get(key)
    if not isinstance(value, int):
        raise _Discrepancy(f"{where}: {key!r} should be a whole number, found {value!r}")
    return value


def _expect(where: str, what: str, recorded: object, actual: object) -> None:
    if recorded != actual:
        raise _Discrepancy(f"{where}: recorded {what} {recorded!r}, the engine says {actual!r}")


def _replay_hand(state: GameState, hand: dict[str, Any], index: int, seed: object) -> None:
    where = f"hand {index}"
    if state.is_over():
        raise _Discrepancy(f"{where}: recorded, but the game was already over")
    if state.current_seat() != CHANCE:
        raise _Discrepancy(f"{where}: recorded, but hand {index - 1} was not finished")
    _expect(where, "hand number", hand.get("number"), index)
    _expect(where, "dealer", hand.get("dealer"), state.dealer)
    try:
        deck = parse_deck(hand["deck"])
    except (ValueError, TypeError, KeyError) as error:
        raise _Discrepancy(f"{where}: unreadable deck ({error})") from None
    if seed is not None:
        _expect(where, "deck order", deck_names(deck), deck_names(deck_for(seed, index)))
    try:
        state.deal(deck)
    except InvalidActionError as error:
        raise _Discrepancy(f"{where}: {error}") from None
    for number, decision in enumerate(hand.get("decisions", []), start=1):
        _replay_decision(state, decision, f"{where}, decision {number}")
    if "scores" in hand:
        _check_hand(state, hand, where)
    elif state.hand_results and state.hand_results[-1].number == index:
        raise _Discrepancy(f"{where}: recorded as unfinished, but the engine says it ended")


def _replay_decision(state: GameState, decision: dict[str, Any], where: str) -> None:
    _expect(where, "seat", decision.get("seat"), state.current_seat())
    legal = state.legal_actions()
    _expect(where, "forced flag", decision.get("forced"), len(legal) == 1)
    try:
        state.apply(parse_action(str(decision.get("action"))))
    except (InvalidActionError, IllegalActionError) as error:
        raise _Discrepancy(f"{where}: {error}") from None


def _check_hand(state: GameState, hand: dict[str, Any], where: str) -> None:
    if not state.hand_results or state.hand_results[-1].number != hand["number"]:
        raise _Discrepancy(f"{where}: recorded as finished, but the engine says it goes on")
    result = state.hand_results[-1]
    _expect(where, "bidder", hand.get("bidder"), result.bidder)
    _expect(where, "bid", hand.get("bid"), result.bid)
    _expect(where, "trump", hand.get("trump"), SUIT_LETTERS[result.trump])
    _expect(where, "tricks", hand.get("tricks"), tricks_json(state.tricks))
    _expect(where, "points", hand.get("points"), list(result.points))
    _expect(where, "dead points", hand.get("dead"), result.dead)
    _expect(where, "scores", hand.get("scores"), list(result.scores))
    _expect(where, "made", hand.get("made"), result.made)


def _check_result(state: GameState, record: dict[str, Any]) -> None:
    result = record.get("result")
    if result is None:
        if state.outcome is not None:
            raise _Discrepancy("result: recorded as unfinished, but the engine says it is over")
        return
    if result.get("termination") == Termination.FORFEIT.value and state.outcome is None:
        state.forfeit(_int(result, "forfeited_by", "result"))
    if state.outcome is None:
        raise _Discrepancy("result: recorded as over, but the engine says the game goes on")
    outcome = state.outcome
    _expect("result", "termination", result.get("termination"), outcome.termination.value)
    _expect("result", "winner", result.get("winner"), outcome.winner)
    _expect("result", "scores", result.get("scores"), list(state.scores))
    _expect("result", "hand count", result.get("hands"), state.hand_number)
