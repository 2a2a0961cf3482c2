"""A game record expanded into the viewer's timeline, by the engine's own replay.

A record holds decisions; the table shows far more (the non-trumps going out, the fill,
each trick's winner and points, the hand's score). ``timeline`` replays the record once through
``GameState`` (``pitch_sdk.replay``) and writes down, step by step, what the engine says
changed, so that the browser only draws and never applies a rule. The format is in
``docs/viewer.md``: a header and a flat list of steps, each a small delta; a ``deal``
step carries the four hands, so any moment is rebuilt from its hand's deal forward.

What one seat may see follows ``PlayerView``: a seat's cards (dealt, filled, turned in the
look through the stock, given up there) are private to it, and everything else is public.
The steps name whose private facts they carry (``hands``, ``fill``, a ``stock`` step's
``card`` and ``give``) and the viewer hides the others' in a seat's view.

A record still being played gives the steps so far, a prefix of the finished game's:
``timeline(partial)["steps"][n:]`` are the steps after the first ``n``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from pitch_referee.logindex import LogTag
from pitch_referee.logtail import bot_first, exception_line
from pitch_sdk.actions import Bid, Decision
from pitch_sdk.cards import (
    DEUCE,
    POINTS,
    STRENGTH,
    SUIT_LETTERS,
    TRUMPS,
    Card,
    CardMask,
    card_name,
    cards_in,
    mask_points,
    team_of,
)
from pitch_sdk.gamerecord import Fault, GameRecord
from pitch_sdk.progress import LOOKING, Phase
from pitch_sdk.record import public_logs
from pitch_sdk.replay import Dealt, ReplayResult, Step, replay_all
from pitch_sdk.rules import GameState

FORMAT = "pitch-timeline"
VERSION = 1
FAULT_LINES = 20
"""A fault step's last lines of its bot, as many as a verdict quotes."""
SEATS = range(4)
_BEFORE_THE_FILL = (Phase.BID, Phase.TRUMP, Phase.DISCARD, Phase.PICKUP)


def timeline(
    record: GameRecord,
    *,
    game: str | None = None,
    logs: Iterable[dict[str, Any]] = (),
) -> dict[str, Any]:
    """The viewer's timeline of ``record`` (finished or still being played), JSON-ready.

    ``game`` names the game in the header (a ladder game number, a record's path).
    ``logs`` are bot log lines ``{"seat", "text", "hand"?, "decision"?, "asked"?}``
    (``botlogs``), ``hand`` from 1 and ``decision`` counted as faults count: a line that
    came while its bot was asked for a decision (``asked``, the default) is at that
    decision's step, or at the fault step where the bot failed it; a line that came after
    the hand's first ``decision`` decisions is at the last of them (at the deal for none).
    A fault step carries its bot's last lines up to it and the exception among them.

    A record that stops replaying (the engine disagrees with it) gives the steps up to
    there, and the header's ``discrepancy`` says what is wrong.
    """
    events, replayed = replay_all(record)
    record = public_logs(record)  # sent to browsers: no absolute path of the server's
    builder = _TimelineBuilder(record.faults)
    for event in events:
        if isinstance(event, Dealt):
            builder.dealt(event)
        else:
            builder.decided(event)
    builder.faults_left()
    aligned = builder.aligned_logs(logs)
    builder.fault_lines(aligned)
    outcome = replayed.state.outcome if replayed.ok else None
    if outcome is not None:
        builder.steps.append(
            {
                "k": "end",
                "termination": outcome.termination.value,
                "winner": outcome.winner,
                "forfeited_by": outcome.forfeited_by,
                "scores": list(replayed.state.scores),
            }
        )
    return {
        "format": FORMAT,
        "version": VERSION,
        "header": _header(record, game, replayed.discrepancy) | {"to_act": _to_act(replayed)},
        "steps": builder.steps,
        "logs": aligned,
    }


def _to_act(replayed: ReplayResult) -> dict[str, Any] | None:
    """Who decides next in a game still being played, and what: a live page says so (the
    browser never applies the rules). None when the game is over, a deal is due, or the
    record stopped replaying."""
    if not replayed.ok or replayed.state.is_over():
        return None
    decision = replayed.state.decision()
    if decision is None:
        return None
    return {"seat": replayed.state.current_seat(), "decision": decision.name.lower()}


def _header(record: GameRecord, game: str | None, discrepancy: str | None) -> dict[str, Any]:
    players = {seat: record.player(seat) for seat in SEATS}
    return {
        "game": game,
        "players": [
            {
                "seat": seat,
                "team": team_of(seat),
                "name": player.name if player else "?",
                "version": player.version if player else "",
            }
            for seat, player in players.items()
        ],
        "rules": record.rules.to_dict(),
        "seed": record.seed,
        "first_dealer": record.first_dealer,
        "result": record.result.to_json() if record.result else None,
        "faults": [fault.to_json() for fault in record.faults],
        "discrepancy": discrepancy,
    }


def names(mask: CardMask) -> list[str]:
    """Card names of a mask, in code order (the viewer sorts for display)."""
    return [card_name(card) for card in cards_in(mask)]


def trump_order(trump: int) -> list[str]:
    """The 17 trumps, strongest first, one ``JK`` for both jokers (for sorting a hand)."""
    strength = STRENGTH[trump]
    ranked = sorted(cards_in(TRUMPS[trump]), key=lambda card: -strength[card])
    return list(dict.fromkeys(card_name(card) for card in ranked))


def point_values(trump: int) -> dict[str, int]:
    """Each point card's points under ``trump``, by name."""
    table = POINTS[trump]
    return {card_name(card): table[card] for card in range(len(table)) if table[card]}


class _TimelineBuilder:
    """The steps, written one engine event at a time."""

    def __init__(self, faults: Sequence[Fault]) -> None:
        self.steps: list[dict[str, Any]] = []
        self.pending = sorted(faults, key=lambda fault: (fault.hand, fault.decision))
        self.at_decision: dict[tuple[int, int], int] = {}
        self.at_deal: dict[int, int] = {}
        self.at_fault: dict[tuple[object, object, object], int] = {}
        """Fault steps by seat, hand and decision."""
        self.substituted: set[tuple[int, int]] = set()
        self.hand = 0
        self._faults_until(0, None)

    # --- faults ---------------------------------------------------------------------------

    def _faults_until(self, hand: int, decision: int | None) -> None:
        """Fault steps for faults up to ``hand`` (before ``decision`` there; all, if None)."""
        while self.pending:
            fault = self.pending[0]
            where = (fault.hand, fault.decision)
            if where[0] > hand or (
                decision is not None and where[0] == hand and where[1] > decision
            ):
                return
            self.pending.pop(0)
            self.substituted.add(where)
            self.at_fault[(fault.seat, *where)] = len(self.steps)
            self.steps.append({"k": "fault", **fault.to_json()})

    def faults_left(self) -> None:
        """The faults after the last decision walked (a forfeit, or a fault mid-game)."""
        self._faults_until(self.hand, None)

    # --- events ---------------------------------------------------------------------------

    def dealt(self, event: Dealt) -> None:
        self._faults_until(self.hand, None)
        self.hand = event.hand
        self.at_deal[event.hand] = len(self.steps)
        state = event.state
        self.steps.append(
            {
                "k": "deal",
                "hand": event.hand,
                "dealer": state.dealer,
                "scores": list(state.scores),
                "hands": [names(state.hands[seat]) for seat in SEATS],
            }
        )

    def decided(self, event: Step) -> None:
        self._faults_until(event.hand, event.index)
        before, after = event.before, event.after
        kind = before.decision()
        assert kind is not None  # the walk yields decisions only
        step: dict[str, Any] = {"k": kind.name.lower(), "s": event.seat, "a": str(event.action)}
        if event.forced:
            step["forced"] = True
        if (event.hand, event.index) in self.substituted:
            step["substitute"] = True
        self.at_decision[(event.hand, event.index)] = len(self.steps)
        _KIND_DETAILS[kind](step, event)
        if before.centre != after.centre:
            step["centre"] = names(after.centre)
        if before.phase in _BEFORE_THE_FILL and after.phase not in _BEFORE_THE_FILL:
            _filled(step, after)
        if before.taken != after.taken:
            step["taken"] = list(after.taken)
        if len(after.hand_results) > len(before.hand_results):
            _scored(step, event)
        self.steps.append(step)

    def aligned_logs(self, logs: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
        """Log lines as ``{"s", "t", "at"}``: ``at`` is the step they came at (``None``:
        not known, or not reached yet in a game being played)."""
        return [
            {"s": line.get("seat"), "t": str(line.get("text", "")), "at": self._step_of(line)}
            for line in logs
        ]

    def _step_of(self, line: dict[str, Any]) -> int | None:
        hand, decision = line.get("hand"), line.get("decision")
        if not isinstance(hand, int) or not isinstance(decision, int):
            return None
        asked = bool(line.get("asked", True))
        if asked and (line.get("seat"), hand, decision) in self.at_fault:
            return self.at_fault[(line.get("seat"), hand, decision)]
        under = LogTag("", hand, decision, asked).under
        if under is not None:
            return self.at_decision.get((hand, under))
        return self.at_deal.get(hand, 0 if hand == 0 and self.steps else None)

    def fault_lines(self, aligned: Sequence[dict[str, Any]]) -> None:
        """Each fault step's ``last``: its bot's last lines up to that step, its own and its
        exception first (as a verdict quotes them), and that ``exception``, if it logged one."""
        for (seat, _, _), at in self.at_fault.items():
            before = [line["t"] for line in aligned if line["s"] == seat and _upto(line, at)]
            if before:
                self.steps[at]["last"] = bot_first(before, FAULT_LINES)
            found = exception_line(before)
            if found is not None:
                self.steps[at]["exception"] = found


def _upto(line: dict[str, Any], step: int) -> bool:
    return line["at"] is not None and line["at"] <= step


# --- what each kind of decision changed -----------------------------------------------------


def _bid(step: dict[str, Any], event: Step) -> None:
    action = event.action
    assert isinstance(action, Bid)
    step["bid"] = action.amount
    if event.after.phase != Phase.BID:
        step["contract"] = [event.after.bidder, event.after.bid]


def _trump(step: dict[str, Any], event: Step) -> None:
    after = event.after
    step["trump"] = SUIT_LETTERS[after.trump]
    step["order"] = trump_order(after.trump)
    step["points"] = point_values(after.trump)
    step["out"] = [names(after.discarded[seat]) for seat in SEATS]
    step["hands"] = {str(seat): names(after.hands[seat]) for seat in SEATS}


def _discard(step: dict[str, Any], event: Step) -> None:
    seat = event.seat
    step["cards"] = names(event.after.discarded_down[seat] ^ event.before.discarded_down[seat])
    step["hands"] = {str(seat): names(event.after.hands[seat])}


def _pickup(step: dict[str, Any], event: Step) -> None:
    seat = event.seat
    step["cards"] = names(event.after.picked[seat] ^ event.before.picked[seat])
    step["hands"] = {str(seat): names(event.after.hands[seat])}


def _stock(step: dict[str, Any], event: Step) -> None:
    seat, after = event.seat, event.after
    seen = after.view(seat).look[-1]  # the looker's own view: the card turned and given up
    step["move"] = seen.move.name.lower()
    step["card"] = None if seen.card is None else card_name(seen.card)
    step["give"] = None if seen.give_up is None else card_name(seen.give_up)
    looking = after.phase == LOOKING
    step["looker"] = after.looker if looking else None
    step["pile"] = len(after.look_cards) if looking else 0
    step["hands"] = {str(seat): names(after.hands[seat])}


def _play(step: dict[str, Any], event: Step) -> None:
    before, after = event.before, event.after
    card: Card = after.trick[-1][1] if after.trick else after.tricks[-1].plays[-1][1]
    step["card"] = card_name(card)
    if len(after.tricks) > len(before.tricks):
        trick = after.tricks[-1]
        played = [c for _, c in trick.plays]
        deuce = DEUCE[after.trump]
        step["trick"] = {
            "number": len(after.tricks),
            "winner": trick.winner,
            "points": sum(POINTS[after.trump][c] for c in played),
            "deuce": next((team_of(s) for s, c in trick.plays if c == deuce), None),
            "teams": list(trick.points_by_team(after.trump)),
        }


_KIND_DETAILS = {
    Decision.BID: _bid,
    Decision.TRUMP: _trump,
    Decision.DISCARD: _discard,
    Decision.PICKUP: _pickup,
    Decision.STOCK: _stock,
    Decision.PLAY: _play,
}


def _filled(step: dict[str, Any], after: GameState) -> None:
    """The fill from the stock, which follows the last discard or pick-up (or trump)."""
    step["fill"] = [names(after.fill[seat]) for seat in SEATS]
    step["hands"] = {str(seat): names(after.hands[seat]) for seat in SEATS}
    looking = after.phase == LOOKING
    step["pile_cards"] = [card_name(card) for card in after.look_cards] if looking else []
    step["looker"] = after.looker if looking else None


def _scored(step: dict[str, Any], event: Step) -> None:
    """The hand's end: trumps still held (their points go to the holders' team), the score."""
    after = event.after
    result = after.hand_results[-1]
    held = []
    for seat in SEATS:
        trumps = after.hands[seat] & TRUMPS[result.trump]
        if trumps:
            held.append(
                {"seat": seat, "cards": names(trumps), "points": mask_points(trumps, result.trump)}
            )
    previous = event.before.scores
    outcome = after.outcome
    step["scored"] = {
        "bidder": result.bidder,
        "bid": result.bid,
        "points": list(result.points),
        "dead": result.dead,
        "made": result.made,
        "gain": [result.scores[team] - previous[team] for team in (0, 1)],
        "scores": list(result.scores),
        "held": held,
        "moon": outcome is not None and outcome.termination.value == "moon",
    }
