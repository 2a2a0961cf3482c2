"""Replaying a game record through the engine, once, step by step, to its verdict.

``replay`` deals the recorded decks and applies the recorded actions to a ``GameState``,
checking every fact the record states (``docs/record-format.md``, "How replay checks a
record"). It yields each deal and decision with copies of the engine around it, so a
viewer shows what the engine computes, and ends with the ``ReplayResult``: the first
discrepancy, or none. ``check`` is the same walk for a reader that wants only the verdict
(it makes no copies). ``replayed`` keeps a record with its steps and verdict, for readers
that go over one game several times (the analyses of ``pitch analyze``) without replaying
it again.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from .actions import Action, IllegalActionError, InvalidActionError
from .cards import SUIT_LETTERS, Seat, card_name
from .deck import deck_for
from .gamerecord import GameRecord, HandRecord, HandScore, TrickRecord, deck_names
from .rules import CHANCE, GameState


@dataclass(frozen=True)
class Dealt:
    """A hand was dealt; ``state`` is the engine just after the deal."""

    hand: int
    """The hand's number, from 1."""
    state: GameState
    """A copy of the engine just after the deal."""


@dataclass(frozen=True)
class Step:
    """One recorded decision that replayed cleanly, and the engine around it."""

    hand: int
    """The hand's number, from 1."""
    index: int
    """0-based position in the hand's ``decisions`` (messages count from 1)."""
    seat: Seat
    """The seat that decided."""
    action: Action
    """What it decided."""
    forced: bool
    """The seat had a single legal option (the record and the engine agree)."""
    before: GameState
    """A copy of the engine before the decision."""
    after: GameState
    """A copy of the engine after it."""


@dataclass(frozen=True)
class ReplayResult:
    """What ``replay`` found: its last item."""

    state: GameState
    """The engine state after the last recorded event that replayed cleanly."""
    discrepancy: str | None
    """The first recorded fact the engine disagrees with; ``None`` when all agree."""

    @property
    def ok(self) -> bool:
        """Whether every recorded fact agrees with the engine."""
        return self.discrepancy is None


class _Discrepancy(Exception):
    pass


def replay(record: GameRecord) -> Iterator[Dealt | Step | ReplayResult]:
    """Re-run ``record`` through the engine: yield each deal and each decision that
    replays cleanly, then the ``ReplayResult`` (always the last item).

    Examples:
        >>> from pitch_sdk.record import GameRecorder
        >>> recorder = GameRecorder(seed=3)
        >>> recorder.deal()
        >>> [type(item).__name__ for item in replay(recorder.record())]
        ['Dealt', 'ReplayResult']
    """
    state = GameState(record.rules, record.first_dealer)
    try:
        yield from _game(state, record, copies=True)
    except _Discrepancy as found:
        yield ReplayResult(state, str(found))
        return
    yield ReplayResult(state, None)


def replay_all(record: GameRecord) -> tuple[list[Dealt | Step], ReplayResult]:
    """Every step ``replay`` yields, and its verdict: for a reader that shows the steps
    and then whether the record held (a viewer, ``pitch replay``).

    Examples:
        >>> from pitch_sdk.record import GameRecorder
        >>> recorder = GameRecorder(seed=3)
        >>> recorder.deal()
        >>> steps, verdict = replay_all(recorder.record())
        >>> len(steps), verdict.ok
        (1, True)
    """
    steps: list[Dealt | Step] = []
    for item in replay(record):
        if isinstance(item, ReplayResult):
            return steps, item
        steps.append(item)
    raise AssertionError("replay always ends with its verdict")


@dataclass(frozen=True)
class Replayed:
    """A record replayed once: its steps (``replay``'s, without the verdict) and verdict."""

    record: GameRecord
    """The record replayed."""
    steps: tuple[Dealt | Step, ...]
    """Each deal and decision that replayed cleanly, in order (``replay``'s items)."""
    result: ReplayResult
    """The verdict: the first discrepancy, or none."""


def replayed(game: GameRecord | Replayed) -> Replayed:
    """``game`` replayed, or ``game`` itself when it already is: what a reader that takes
    either calls first, so that a game passed on replayed is never replayed again.

    Examples:
        >>> from pitch_sdk.record import GameRecorder
        >>> recorder = GameRecorder(seed=3)
        >>> recorder.deal()
        >>> game = replayed(recorder.record())
        >>> len(game.steps), game.result.ok, replayed(game) is game
        (1, True, True)
    """
    if isinstance(game, Replayed):
        return game
    steps, result = replay_all(game)
    return Replayed(game, tuple(steps), result)


def check(record: GameRecord) -> ReplayResult:
    """The verdict of ``replay`` alone, without copying the engine at each step.

    Examples:
        >>> from pitch_sdk.record import GameRecorder
        >>> recorder = GameRecorder(seed=3)
        >>> recorder.deal()
        >>> check(recorder.record()).ok
        True
    """
    state = GameState(record.rules, record.first_dealer)
    try:
        for _ in _game(state, record, copies=False):
            pass
    except _Discrepancy as found:
        return ReplayResult(state, str(found))
    return ReplayResult(state, None)


def _game(state: GameState, record: GameRecord, *, copies: bool) -> Iterator[Dealt | Step]:
    """Replay into ``state``; raise ``_Discrepancy`` at the first disagreement."""
    for index, hand in enumerate(record.hands, start=1):
        yield from _hand(state, hand, index, record.seed, copies)
    _check_result(state, record)


def _expect(where: str, what: str, recorded: object, actual: object) -> None:
    if recorded != actual:
        raise _Discrepancy(f"{where}: recorded {what} {recorded!r}, the engine says {actual!r}")


def _hand(
    state: GameState, hand: HandRecord, index: int, seed: int | str | None, copies: bool
) -> Iterator[Dealt | Step]:
    where = f"hand {index}"
    if state.is_over():
        raise _Discrepancy(f"{where}: recorded, but the game was already over")
    if state.current_seat() != CHANCE:
        raise _Discrepancy(f"{where}: recorded, but hand {index - 1} was not finished")
    _expect(where, "hand number", hand.number, index)
    _expect(where, "dealer", hand.dealer, state.dealer)
    if seed is not None:
        _expect(where, "deck order", deck_names(hand.deck), deck_names(deck_for(seed, index)))
    state.deal(hand.deck)
    if copies:
        yield Dealt(index, state.copy())
    for number, decision in enumerate(hand.decisions):
        at = f"{where}, decision {number + 1}"
        _expect(at, "seat", decision.seat, state.current_seat())
        _expect(at, "forced flag", decision.forced, len(state.legal_actions()) == 1)
        before = state.copy() if copies else state
        try:
            state.apply(decision.action)
        except (InvalidActionError, IllegalActionError) as error:
            raise _Discrepancy(f"{at}: {error}") from None
        if copies:
            yield Step(
                index, number, decision.seat, decision.action, decision.forced, before, state.copy()
            )
    if hand.score is not None:
        _check_hand(state, hand.score, index, where)
    elif state.hand_results and state.hand_results[-1].number == index:
        raise _Discrepancy(f"{where}: recorded as unfinished, but the engine says it ended")


def scored_hand(state: GameState) -> HandScore:
    """What a record states of the hand ``state`` has just scored."""
    result = state.hand_results[-1]
    return HandScore(
        bidder=result.bidder,
        bid=result.bid,
        trump=SUIT_LETTERS[result.trump],
        tricks=tuple(
            TrickRecord(
                trick.leader,
                tuple((seat, card_name(card)) for seat, card in trick.plays),
                trick.winner,
            )
            for trick in state.tricks
        ),
        points=(result.points[0], result.points[1]),
        dead=result.dead,
        scores=(result.scores[0], result.scores[1]),
        made=result.made,
    )


def _check_hand(state: GameState, recorded: HandScore, index: int, where: str) -> None:
    if not state.hand_results or state.hand_results[-1].number != index:
        raise _Discrepancy(f"{where}: recorded as finished, but the engine says it goes on")
    engine = scored_hand(state)
    _expect(where, "bidder", recorded.bidder, engine.bidder)
    _expect(where, "bid", recorded.bid, engine.bid)
    _expect(where, "trump", recorded.trump, engine.trump)
    _expect(where, "tricks", recorded.tricks, engine.tricks)
    _expect(where, "points", list(recorded.points), list(engine.points))
    _expect(where, "dead points", recorded.dead, engine.dead)
    _expect(where, "scores", list(recorded.scores), list(engine.scores))
    _expect(where, "made", recorded.made, engine.made)


def _check_result(state: GameState, record: GameRecord) -> None:
    result = record.result
    if result is None:
        if state.outcome is not None:
            raise _Discrepancy("result: recorded as unfinished, but the engine says it is over")
        return
    forfeit = result.termination == "forfeit" and result.forfeited_by is not None
    if forfeit and state.outcome is None and result.forfeited_by is not None:
        state.forfeit(result.forfeited_by)
    if state.outcome is None:
        raise _Discrepancy("result: recorded as over, but the engine says the game goes on")
    outcome = state.outcome
    _expect("result", "termination", result.termination, outcome.termination.value)
    _expect("result", "winner", result.winner, outcome.winner)
    _expect("result", "scores", list(result.scores), list(state.scores))
    _expect("result", "hand count", result.hands, state.hand_number)
