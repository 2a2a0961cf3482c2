"""Game records as text for people (``pitch replay``), read off the engine step by step.

The record is replayed through ``GameState`` (``pitch_sdk.replay``) and every line comes from a
``PlayerView``: the table view is each seat's own view put together (a seat's private
cards shown next to its name), and ``seat=N`` uses N's view alone, the way its bot saw
the game. The functions return rich renderables; the CLI prints them, tests capture them.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Mapping
from typing import TypeAlias

from rich.console import Console, Group, RenderableType
from rich.padding import Padding
from rich.panel import Panel
from rich.rule import Rule
from rich.text import Text

from pitch_sdk.actions import Decision, StockMove
from pitch_sdk.cards import (
    CLUBS,
    DIAMONDS,
    HEARTS,
    SPADES,
    SUIT_NAMES,
    SUIT_SYMBOLS,
    TRUMPS,
    Card,
    CardMask,
    Seat,
    card_symbol,
    cards_in,
    left_of,
    mask_of,
    mask_points,
    partner,
    rank_of,
    seats_from,
    suit_of,
    team_of,
)
from pitch_sdk.gamerecord import Fault, GameRecord
from pitch_sdk.progress import LOOKING, PLAYING, HandResult, Phase
from pitch_sdk.replay import Dealt, ReplayResult, Step
from pitch_sdk.rules import GameState
from pitch_sdk.views import LookEvent, PlayerView

from .terminal import printable

BotLines: TypeAlias = Mapping[tuple[int, int | None], list[tuple[Seat, str]]]
"""The bots' log lines of a game by hand and the index of the decision they are shown
under (``None``: the hand's deal; ``pitch_referee.logindex.LogTag.under``)."""

OUTPUT_WIDTH = 100
"""Columns used when the output is not a terminal, so that piped text is stable."""

_SUIT_ORDER = (SPADES, HEARTS, CLUBS, DIAMONDS)
"""Black and red alternate, so neighbouring suits are easy to tell apart."""
_RED = (DIAMONDS, HEARTS)
_BEFORE_THE_LOOK = (Phase.TRUMP, Phase.DISCARD, Phase.PICKUP)
_SECTIONS = {
    Decision.BID: "Bidding",
    Decision.TRUMP: "Contract",
    Decision.DISCARD: "Down to six",
    Decision.PICKUP: "Pick-up",
    Decision.STOCK: "Look through the stock",
    Decision.PLAY: "Play",
}
_TERMINATIONS = {
    "target": "reached the target",
    "moon": "shot the moon",
    "hand_cap": "hand cap",
    "forfeit": "forfeit",
}


def count_of(number: int, noun: str) -> str:
    """``1 card``, ``2 cards``: the counts in the output read as sentences."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


def output_console(width: int = OUTPUT_WIDTH) -> Console:
    """Colour at a terminal; otherwise plain text ``width`` columns wide, stable for tests."""
    if sys.stdout.isatty():
        return Console(highlight=False)
    return Console(
        highlight=False, color_system=None, force_terminal=False, width=width, emoji=False
    )


# --- cards ------------------------------------------------------------------------------


def card_text(card: Card) -> Text:
    """``A♠``, ``10♥``, ``JK``: hearts and diamonds in red."""
    suit = suit_of(card)
    style = "bold" if suit is None else "red" if suit in _RED else ""
    return Text(card_symbol(card), style=style)


def _sort_key(card: Card) -> tuple[int, int]:
    suit, rank = suit_of(card), rank_of(card)
    if suit is None or rank is None:
        return (len(_SUIT_ORDER), 0)
    return (_SUIT_ORDER.index(suit), -rank)


def cards_text(mask: CardMask) -> Text:
    """The cards grouped by suit, highest first, jokers last; ``-`` for none."""
    cards = sorted(cards_in(mask), key=_sort_key)
    if not cards:
        return Text("-")
    text = Text()
    for position, card in enumerate(cards):
        if position:
            same_suit = suit_of(card) == suit_of(cards[position - 1])
            text.append(" " if same_suit else "  ")
        text.append_text(card_text(card))
    return text


def context_text(view: PlayerView) -> Text:
    """Where a seat stood at a decision: its hand, trump and bid, the trick, the score."""
    text = Text("hand ").append_text(cards_text(view.hand))
    if view.trump >= 0:
        text.append("  trump ").append_text(_suit_text(view.trump))
    if view.bidder >= 0:
        text.append(f"  bid {view.bid} by seat {view.bidder}")
    if view.trick:
        text.append("  trick")
        for seat, card in view.trick:
            text.append(f" {seat}:").append_text(card_text(card))
    return text.append(f"  score {view.scores[0]}-{view.scores[1]}")


def _suit_text(suit: int) -> Text:
    return Text(f"{SUIT_SYMBOLS[suit]} {SUIT_NAMES[suit]}", style="red" if suit in _RED else "")


# --- the whole game ------------------------------------------------------------------------


def render_game(
    record: GameRecord,
    steps: Iterable[Dealt | Step],
    replayed: ReplayResult,
    *,
    hand: int | None = None,
    seat: Seat | None = None,
    logs: BotLines | None = None,
) -> RenderableType:
    """The game hand by hand: header, each hand (or only ``hand``), then any discrepancy.

    ``steps`` and ``replayed`` are what ``pitch_sdk.replay.replay_all`` gives: the steps
    that replayed cleanly, and the verdict. With ``seat``,
    only what that seat knew is shown. ``logs``: the bots' lines, each under the decision
    it came during or after.
    """
    logs = logs or {}
    names = _player_names(record)
    faults = record.faults
    parts: list[RenderableType] = [*_header(record, replayed, names, seat)]
    early = [fault for fault in faults if fault.hand == 0]
    if early and hand is None:
        parts.append(Text("Before the first deal", style="bold"))
        parts.extend(_fault_line(fault) for fault in early)
    if hand is None and logs.get((0, None)):
        parts.append(Text("Before the first deal", style="bold"))
        parts.extend(_log_line(None, line) for line in logs[(0, None)])
    current: _HandView | None = None
    for event in steps:
        if hand is not None and event.hand != hand:
            continue
        if isinstance(event, Dealt):
            if current is not None:
                parts.extend(current.finish())
            in_hand = [fault for fault in faults if fault.hand == event.hand]
            current = _HandView(event.state, seat, in_hand, logs)
        else:
            assert current is not None
            current.step(event)
    if current is not None:
        parts.extend(current.finish())
    if replayed.discrepancy is not None:
        parts.append(_discrepancy(replayed.discrepancy))
    return Group(*parts)


def _player_names(record: GameRecord) -> dict[Seat, str]:
    """``seat -> "name version"`` for the seats the record describes."""
    return {
        player.seat: f"{player.name} {player.version}".strip()
        for player in record.players
        if player.seat in range(4)
    }


def _header(
    record: GameRecord, replayed: ReplayResult, names: dict[Seat, str], seat: Seat | None
) -> Iterable[RenderableType]:
    rules = record.rules.to_dict()
    shown_rules = ", ".join(f"{key}={_json_value(value)}" for key, value in rules.items())
    yield Text(
        f"Seed {json.dumps(record.seed)} · first dealer seat {record.first_dealer} · "
        f"rules: {shown_rules}",
        style="bold",
    )
    for player in range(4):
        yield Text(f"  seat {player}  team {team_of(player)}  {names.get(player, '?')}")
    yield Text(f"Result: {_result_line(replayed)}")
    if seat is not None:
        yield Text(f"Shown as seat {seat} saw it: other seats' cards are hidden.", style="italic")


def _json_value(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _result_line(replayed: ReplayResult) -> str:
    if not replayed.ok:
        return "not known: the record does not replay (see the end)"
    state = replayed.state
    outcome = state.outcome
    hands = count_of(state.hand_number, "hand")
    scores = f"scores {state.scores[0]} to {state.scores[1]}"
    if outcome is None:
        return f"not finished after {hands}, {scores}"
    how = _TERMINATIONS[outcome.termination.value]
    if outcome.forfeited_by is not None:
        how += f" by seat {outcome.forfeited_by}"
    winner = "a draw" if outcome.winner is None else f"team {outcome.winner} wins"
    return f"{winner} ({how}) after {hands}, {scores}"


def _fault_line(fault: Fault) -> RenderableType:
    """A recorded fault, indented also where a long detail wraps."""
    where = f"#{fault.decision + 1} " if fault.hand else ""
    text = f"FAULT {where}seat {fault.seat} {fault.kind}: {fault.detail}"
    return Padding(Text(text, style="bold red"), (0, 0, 0, 4), expand=False)


def _log_line(under: int | None, line: tuple[Seat, str]) -> RenderableType:
    """A bot's log line, under its decision (``#N``, or the deal's), escaped for a terminal."""
    seat, text = line
    number = f"#{under + 1}" if under is not None else "deal"
    return Text(f"      {number:<5}seat {seat} | {printable(text)}", style="dim")


def _forced(text: Text, step: Step) -> Text:
    """Mark a decision the engine took alone (a single legal option)."""
    return text.append(" (forced)", style="dim") if step.forced else text


def _discrepancy(message: str) -> RenderableType:
    return Panel(
        Text(message),
        title="the record does not replay",
        title_align="left",
        subtitle="everything above replayed cleanly; the replay stops here",
        subtitle_align="left",
        border_style="red",
    )


# --- one hand ------------------------------------------------------------------------------


class _HandView:
    """The lines of one hand, as the table (``viewer`` None) or one seat saw it."""

    def __init__(
        self,
        dealt: GameState,
        viewer: Seat | None,
        faults: list[Fault],
        logs: BotLines,
    ) -> None:
        self.viewer = viewer
        self.logs = {
            under: lines for (hand, under), lines in logs.items() if hand == dealt.hand_number
        }
        self.waiting: list[RenderableType] = []
        """Log lines of a trick's plays, shown after the trick's line."""
        self.faults = sorted(faults, key=lambda fault: fault.decision)
        self.lines: list[RenderableType] = [
            Text(""),
            Rule(f"Hand {dealt.hand_number} · dealer seat {dealt.dealer}", align="left"),
        ]
        self.section = ""
        self.order = seats_from(left_of(dealt.dealer))
        self.trick_start = 0
        self.last = dealt
        self._heading("Dealt")
        for seat in self.order:
            view = self._view(dealt, seat)
            self._seat_line(seat, self._cards_of(view, seat, view.hand))
        self.lines.extend(self._logged(None))

    # --- what the viewer may see ----------------------------------------------------------

    def _view(self, state: GameState, seat: Seat) -> PlayerView:
        """The view that tells about ``seat``: its own, or the viewer's."""
        return state.view(seat if self.viewer is None else self.viewer)

    def _sees(self, seat: Seat) -> bool:
        return self.viewer is None or self.viewer == seat

    def _cards_of(self, view: PlayerView, seat: Seat, cards: CardMask) -> Text:
        if self._sees(seat):
            return cards_text(cards)
        return Text(f"{count_of(view.hand_sizes[seat], 'card')}, hidden", style="dim")

    # --- lines ----------------------------------------------------------------------------

    def _heading(self, title: str) -> None:
        if title != self.section:
            self.section = title
            self.lines.append(Text(f"  {title}", style="bold"))

    def _seat_line(self, seat: Seat, body: Text, number: str = "") -> None:
        line = Text(f"    {number:<5}seat {seat}  " if number else f"    seat {seat}  ")
        line.append_text(body)
        self.lines.append(line)

    def _logged(self, under: int | None) -> list[RenderableType]:
        return [_log_line(under, line) for line in self.logs.pop(under, [])]

    def _faults_upto(self, index: int | None) -> None:
        """Faults recorded before decision ``index`` (all that are left, for ``None``)."""
        while self.faults and (index is None or self.faults[0].decision <= index):
            self.lines.append(_fault_line(self.faults.pop(0)))

    # --- steps ----------------------------------------------------------------------------

    def step(self, step: Step) -> None:
        """Add the lines for one recorded decision and whatever the engine did after it."""
        kind = step.before.decision()
        assert kind is not None  # a step is a decision
        self._heading(_SECTIONS[kind])
        self._faults_upto(step.index)
        self.last = step.after
        number = f"#{step.index + 1}"
        if kind is Decision.BID:
            self._seat_line(step.seat, _forced(Text(str(step.action)), step), number)
        elif kind is Decision.TRUMP:
            self._contract(step, number)
        elif kind is Decision.DISCARD:
            down = self._view(step.after, step.seat).discarded_down[step.seat]
            self._seat_line(step.seat, self._action(step, "discards ", down), number)
        elif kind is Decision.PICKUP:
            picked = self._view(step.after, step.seat).picked[step.seat]
            self._seat_line(step.seat, self._action(step, "picks up ", picked), number)
        elif kind is Decision.STOCK:
            event = self._view(step.after, step.seat).look[-1]
            self._seat_line(step.seat, self._look(event, step), number)
        else:
            self._play(step)
        if kind is Decision.PLAY:
            self.waiting += self._logged(step.index)
            if not step.after.trick:  # the trick's line is written: its lines follow
                self.lines += self.waiting
                self.waiting = []
        else:
            self.lines += self._logged(step.index)
        if step.before.phase in _BEFORE_THE_LOOK and step.after.phase not in _BEFORE_THE_LOOK:
            self._fill(step.after)
        if step.before.phase != PLAYING and step.after.phase == PLAYING:
            self._hands_for_play(step.after)
        if len(step.after.hand_results) > len(step.before.hand_results):
            self._scored(step.after, step.after.hand_results[-1])

    def _action(self, step: Step, verb: str, cards: CardMask) -> Text:
        text = Text(verb).append_text(cards_text(cards) if cards else Text("nothing"))
        return _forced(text, step)

    def _contract(self, step: Step, number: str) -> None:
        after = step.after
        body = Text(f"bid {after.bid} for team {team_of(after.bidder)}, names ")
        body.append_text(_suit_text(after.trump))
        self._seat_line(step.seat, _forced(body, step), number)
        self._heading("Non-trumps out, face up")
        for seat in self.order:
            self._seat_line(seat, cards_text(self._view(after, seat).discarded[seat]))

    def _look(self, event: LookEvent, step: Step) -> Text:
        if event.card is None:
            return _forced(Text(event.move.name.lower()), step)
        text = Text("turns ").append_text(card_text(event.card)).append(": ")
        if event.move is StockMove.TAKE and event.give_up is not None:
            text.append("takes it, gives up ").append_text(card_text(event.give_up))
        elif event.move is StockMove.LEAVE:
            text.append("leaves it")
        elif step.seat == step.before.bidder:
            text.append(f"stops; the rest goes to seat {partner(step.seat)}")
        else:
            text.append("stops; the rest leaves play")
        return _forced(text, step)

    def _fill(self, after: GameState) -> None:
        self._heading("Fill from the stock")
        for seat in self.order:
            view = self._view(after, seat)
            count = view.fill_sizes[seat]
            body = Text(count_of(count, "card"))
            if count and self._sees(seat):
                body.append(": ").append_text(cards_text(view.fill))
            self._seat_line(seat, body)
        left = self._view(after, after.bidder).look_remaining if after.phase == LOOKING else 0
        self.lines.append(Text(f"    {count_of(left, 'card')} left for the look"))

    def _hands_for_play(self, after: GameState) -> None:
        self._heading("Play")
        self.lines.append(Text("    hands at the start of play:"))
        for seat in self.order:
            view = self._view(after, seat)
            self._seat_line(seat, self._cards_of(view, seat, view.hand))

    def _play(self, step: Step) -> None:
        if not step.before.trick:
            self.trick_start = step.index
        if len(step.after.tricks) == len(step.before.tricks):
            return
        trick = step.after.tricks[-1]
        points = mask_points(mask_of(card for _, card in trick.plays), step.after.trump)
        line = self._trick_line(len(step.after.tricks), step.index, trick.plays)
        self.lines.append(line.append(f"  → seat {trick.winner} wins, {count_of(points, 'point')}"))

    def _trick_line(self, number: int, last_index: int, plays: Iterable[tuple[Seat, Card]]) -> Text:
        """``trick 2  #15-18  seat 2 leads J♠, seat 3 6♠, ...``: the cards in play order."""
        decisions = f"#{self.trick_start + 1}-{last_index + 1}"
        line = Text(f"    trick {number:<2} {decisions:<8}")
        for position, (seat, card) in enumerate(plays):
            line.append(f", seat {seat} " if position else f"seat {seat} leads ")
            line.append_text(card_text(card))
        return line

    def _scored(self, after: GameState, result: HandResult) -> None:
        self._still_held(after)
        self._heading("Score")
        bidding = team_of(result.bidder)
        verdict = "made it" if result.made else "went set"
        self.lines.extend(
            [
                Text(
                    f"    points: team 0 {result.points[0]}, team 1 {result.points[1]}, "
                    f"dead {result.dead}"
                ),
                Text(f"    team {bidding} bid {result.bid} and {verdict}"),
                Text(
                    f"    scores after the hand: team 0 {result.scores[0]}, "
                    f"team 1 {result.scores[1]}",
                    style="bold",
                ),
            ]
        )

    def _still_held(self, after: GameState) -> None:
        """Trumps still held when play ended: the holders' team scores their points."""
        for seat in self.order:
            held = self._view(after, seat).hand & TRUMPS[after.trump]
            if held and self._sees(seat):
                points = mask_points(held, after.trump)
                line = Text(f"    seat {seat} still holds ").append_text(cards_text(held))
                line.append(f": {count_of(points, 'point')} for team {team_of(seat)}")
                self.lines.append(line)

    def finish(self) -> list[RenderableType]:
        """The hand's lines, closing an unfinished trick and any faults at its end."""
        last = self.last
        if last.trick:
            played_last = self.trick_start + len(last.trick) - 1
            line = self._trick_line(len(last.tricks) + 1, played_last, last.trick)
            self.lines.append(line.append("  (unfinished)"))
        self.lines += self.waiting
        self._faults_upto(None)
        for under in sorted(self.logs, key=lambda under: -1 if under is None else under):
            self.lines += self._logged(under)  # a decision never recorded: a fault's
        return self.lines
