"""Sampling after the fill (the look, the play, a finished hand).

The current places are sampled first, then the hidden history of the look, the fills and
the kept trumps are rebuilt backwards from them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..actions import StockChoice
from ..cards import (
    JOKER,
    POINT_CARDS,
    SEATS,
    SECOND_JOKER,
    Card,
    CardMask,
    Seat,
    left_of,
    mask_of,
    mask_points,
    partner,
    seats_from,
)
from .bits import (
    ALL_MASK,
    LEAVE_MOVE,
    LOW_JOKER_BIT,
    POINT_CLASSES,
    STOP_MOVE,
    TAKE,
    _cards,
    _mask,
)
from .counting import _count_table, _gone_draws, _Spec, _trump_draws, _weighted
from .deal import _deck_order, _mixed, _shuffled
from .model import LookEntry, _Entry, _Facts, _Infeasible, _World

_UNDONE: LookEntry = (-1, -1, StockChoice(TAKE))
"""A look log's slot not rebuilt yet: every slot is rebuilt before the log is used."""


@dataclass(frozen=True, slots=True)
class _Layout:
    """Where the known cards are and how much room is left around them.

    It depends only on the view and on the codes chosen for the seat's own joker
    give-ups, so it is worked out once and reused by every try.
    """

    gone: CardMask
    """Face-down cards the seat knows."""
    pile: tuple[tuple[int, Card], ...]
    """Known cards of the looked-through pile, by position."""
    pinned: tuple[CardMask, ...]
    """Known cards in each hidden hand."""
    reserved: tuple[tuple[tuple[Card, int], ...], ...]
    """Per seat: known cards it must have given up in a take after entry ``since``."""
    pool: CardMask
    """The unseen cards."""
    rooms: tuple[int, ...]
    """Free places in each hidden hand."""
    pile_free: tuple[int, ...]
    """Positions of the remaining pile whose card is unknown."""
    gone_free: int
    """Face-down cards that are unknown."""
    spec: _Spec | None
    """The counting problem (strict tries only)."""


class _AfterFill:
    """One try at the look, the play or a finished hand: current places, then history."""

    def __init__(self, facts: _Facts, rng: random.Random, strict: bool) -> None:
        self.facts, self.view, self.rng, self.strict = facts, facts.view, rng, strict
        self.me = facts.me
        if facts.my_options:
            option = rng.randrange(len(facts.my_options))
            self.my_codes, self.my_before = facts.my_options[option]
        elif strict:
            raise _Infeasible
        else:
            option = -1
            self.my_codes, self.my_before = facts.my_fallback
        self.gone_known = 0
        self.pile: dict[int, Card] = {}
        self.pinned = [0, 0, 0, 0]
        self.reserved: list[list[tuple[Card, int]]] = [[], [], [], []]
        """Per seat: known cards it must have given up in a take after entry ``since``."""
        self.hands = [0, 0, 0, 0]
        self.gone_pool: list[Card] = []
        self.before: dict[Seat, CardMask] = {}
        """Each seat's hand as the look is undone, last turn first."""
        self.takes_left = [0, 0, 0, 0]
        """Hidden takes per seat not undone yet."""
        self.gone_all = 0
        """Every face-down card: known ones, reserved give-ups and the sampled rest."""
        layout = facts.layouts.get((option, strict))
        if layout is None:
            layout = facts.layouts[option, strict] = self._lay_out()
        self.layout = layout
        self.gone_known = layout.gone
        self.pile = dict(layout.pile)
        self.pinned = list(layout.pinned)
        self.reserved = [list(cards) for cards in layout.reserved]

    def sample(self) -> _World | None:
        if not self._place_unknown():
            return None
        history = self._undo_look()
        if history is None:
            return None
        before, log = history
        split = self._split_fills(before)
        if split is None or not self._points_fit():
            return None
        kept, fill = split
        return self._world(kept, fill, log)

    # - what the seat knows -

    def _lay_out(self) -> _Layout:
        """Place the known cards and measure the room left for the unseen ones."""
        facts, view = self.facts, self.view
        self._place_known()
        located = view.centre | view.hand | self.gone_known | mask_of(self.pile.values())
        for seat in SEATS:
            located |= facts.played[seat] | self.pinned[seat]
            located |= mask_of(card for card, _ in self.reserved[seat])
        pool = ALL_MASK & ~located
        rooms = [view.hand_sizes[seat] - self.pinned[seat].bit_count() for seat in facts.hidden]
        pile_free = [p for p in range(facts.pile_start, facts.pile_size) if p not in self.pile]
        gone_free = pool.bit_count() - sum(rooms) - len(pile_free)
        if min(rooms, default=0) < 0 or gone_free < 0:
            raise ValueError("the view is not consistent with the rules: cards do not add up")
        if self.strict and self._gone_size_wrong(gone_free):
            raise _Infeasible
        return _Layout(
            gone=self.gone_known,
            pile=tuple(self.pile.items()),
            pinned=tuple(self.pinned),
            reserved=tuple(tuple(cards) for cards in self.reserved),
            pool=pool,
            rooms=tuple(rooms),
            pile_free=tuple(pile_free),
            gone_free=gone_free,
            spec=self._spec(pool, rooms, gone_free) if self.strict else None,
        )

    def _place_known(self) -> None:
        """Pin every card whose place the seat knows or the public history implies."""
        facts, view, me = self.facts, self.view, self.me
        for entry in facts.entries:
            if entry.seat != me:
                continue
            self.pile[entry.pos] = entry.card  # type: ignore[assignment]
            if entry.move is LEAVE_MOVE:
                self.gone_known |= 1 << entry.card  # type: ignore[operator]
            elif entry.move is TAKE:
                self.gone_known |= 1 << self.my_codes.get(entry.index, entry.give_up)  # type: ignore[operator]
            elif me != view.bidder:
                self.gone_known |= 1 << entry.card  # type: ignore[operator]
        if view.look_card is not None:
            self.pile[facts.pile_start] = view.look_card
        for seat in facts.hidden:
            self.pinned[seat] = view.picked[seat] & ~facts.played[seat]
            if seat in facts.voids and self.pinned[seat]:
                if seat in facts.lookers:  # a void looker must have given them up
                    self.reserved[seat] = [(card, -1) for card in _cards(self.pinned[seat])]
                    self.pinned[seat] = 0
                elif self.strict:
                    raise _Infeasible
        if me == view.bidder:
            self._place_my_stop_card()

    def _place_my_stop_card(self) -> None:
        """The bidder's stop card is the first card its partner turned."""
        facts, me = self.facts, self.me
        stop = next((e for e in facts.entries if e.seat == me and e.move is STOP_MOVE), None)
        if stop is None:
            return
        mate = partner(me)
        first = next((e for e in facts.entries if e.seat == mate), None)
        card = stop.card
        if first is None:  # the partner is looking at it now: it is on the pile
            return
        if first.move is not TAKE:
            self.gone_known |= 1 << card  # type: ignore[operator]
        elif not self.facts.played[mate] >> card & 1:  # type: ignore[operator]
            if mate in facts.voids:
                self.reserved[mate].append((card, first.index))  # type: ignore[arg-type]
            else:
                self.pinned[mate] |= 1 << card  # type: ignore[operator]

    # - the current places -

    def _place_unknown(self) -> bool:
        """Deal the unseen cards to the hidden hands, the rest of the pile and gone."""
        facts, layout = self.facts, self.layout
        self.hands[self.me] = self.view.hand
        if self.strict:
            gone, pile = self._deal_by_kind(layout)
        else:  # fallback: sizes only
            gone, pile = self._deal_any(layout)
        for position, card in zip(layout.pile_free, pile, strict=True):
            self.pile[position] = card
        self.gone_pool = gone
        self.gone_all = self.gone_known | _mask(gone)
        for seat in SEATS:
            self.gone_all |= _mask(card for card, _ in self.reserved[seat])
        if self.strict:
            return not any(self.hands[seat] & LOW_JOKER_BIT for seat in facts.no_low_joker_in_hand)
        return True

    def _deal_any(self, layout: _Layout) -> tuple[list[Card], list[Card]]:
        cards = _shuffled(layout.pool, self.rng)
        for seat, room in zip(self.facts.hidden, layout.rooms, strict=True):
            self.hands[seat] = self.pinned[seat] | _mask(cards[:room])
            cards = cards[room:]
        return cards[: layout.gone_free], cards[layout.gone_free :]

    def _deal_by_kind(self, layout: _Layout) -> tuple[list[Card], list[Card]]:
        """Draw the counts by weight (``_count_table``), then the cards of each kind."""
        facts, rng, spec = self.facts, self.rng, layout.spec
        pool, rooms, gone_free = layout.pool, layout.rooms, layout.gone_free
        assert spec is not None
        splits, cumulative = _count_table(spec)
        if not splits:
            raise _Infeasible
        split = rng.choices(splits, cum_weights=cumulative)[0]
        trump_counts = tuple(room - non for room, non in zip(rooms, split, strict=True))
        non_trumps = _shuffled(pool & ~facts.trumps, rng)
        draw = _weighted(rng, _trump_draws(spec, trump_counts))
        team_cards: list[list[Card]] = [[], []]
        if draw:  # the points rule: each team's trumps drawn by point class
            classes = [_shuffled(pool & mask, rng) for mask in POINT_CLASSES[self.view.trump]]
            for team, taken in enumerate(draw):
                for kind, count in enumerate(taken):
                    team_cards[team] += classes[kind][:count]
                    del classes[kind][:count]
                team_cards[team] = _mixed(team_cards[team], rng)
            trumps = _mixed(classes[0] + classes[1] + classes[2], rng)
        else:
            trumps = _shuffled(pool & facts.trumps, rng)
        for seat, non, count in zip(facts.hidden, split, trump_counts, strict=True):
            source = team_cards[seat % 2] if draw else trumps
            cards = non_trumps[:non] + source[:count]
            del non_trumps[:non], source[:count]
            self.hands[seat] = self.pinned[seat] | _mask(cards)
        rest_non = len(non_trumps)
        gone_trumps = _weighted(rng, _gone_draws(spec, split, rest_non, len(trumps)))
        gone = trumps[:gone_trumps] + non_trumps[: gone_free - gone_trumps]
        pile = trumps[gone_trumps:] + non_trumps[gone_free - gone_trumps :]
        return _mixed(gone, rng), _mixed(pile, rng)

    def _spec(self, pool: CardMask, rooms: list[int], gone_free: int) -> _Spec:
        """The counting problem for ``_count_table``."""
        facts, view = self.facts, self.view
        lows, highs, gives = [], [], []
        for seat, room in zip(facts.hidden, rooms, strict=True):
            high = min(room, view.fill_sizes[seat])
            lows.append(high if seat in facts.voids else 0)
            highs.append(high)
            gives.append((facts.takes[seat] - len(self.reserved[seat]), view.fill_sizes[seat]))
        base = [0, 0, 0, 0]
        base[self.me] = (view.hand & facts.trumps).bit_count()
        sure = [0, 0]
        for seat in SEATS:
            held = view.hand if seat == self.me else self.pinned[seat]
            sure[seat % 2] += mask_points(held & facts.trumps, view.trump)
        return _Spec(
            seats=facts.hidden,
            rooms=tuple(rooms),
            lows=tuple(lows),
            highs=tuple(highs),
            pinned=tuple(self.pinned[seat].bit_count() for seat in facts.hidden),
            pinned_points=(sure[0], sure[1]),
            non_trumps=(pool & ~facts.trumps).bit_count(),
            classes=tuple((pool & mask).bit_count() for mask in POINT_CLASSES[self.view.trump]),  # type: ignore[arg-type]
            base=(base[0], base[1], base[2], base[3]),
            rules=(facts.voids, facts.must_hold, facts.team_need, facts.team_out),
            gone=gone_free,
            gives=tuple(gives),
            points=facts.held_points if facts.finished else None,
        )

    def _gone_size_wrong(self, gone_free: int) -> bool:
        """Cross-check the face-down count against the look events that made it."""
        facts = self.facts
        expected = 0
        for entry in facts.entries:
            if entry.move is not STOP_MOVE:
                expected += 1
            elif entry.seat != self.view.bidder:
                expected += facts.pile_size - entry.pos
        reserved = sum(len(cards) for cards in self.reserved)
        return self.gone_known.bit_count() + reserved + gone_free != expected

    # - the hidden history of the look -

    def _undo_look(self) -> tuple[dict[Seat, CardMask], list[LookEntry]] | None:
        """Rebuild the other lookers' turns backwards from the hands after the look.

        Returns each seat's hand before the look and the full look log, or ``None``.
        """
        facts, me = self.facts, self.me
        before = self.before = {seat: self.hands[seat] | facts.played[seat] for seat in SEATS}
        before[me] = self.my_before
        self.takes_left = [0 if seat == me else facts.takes[seat] for seat in SEATS]
        known_pile = mask_of(self.pile.values())
        log: list[LookEntry] = [_UNDONE] * len(facts.entries)  # every slot rebuilt below
        for entry in reversed(facts.entries):
            if entry.seat == me:
                assert entry.card is not None  # the seat saw its own turns' cards
                log[entry.index] = (me, entry.card, StockChoice(entry.move, entry.give_up))
                if entry.move is STOP_MOVE and not self._undo_leave_or_stop(entry):
                    return None  # the rest of the pile went face down unseen
                continue
            if entry.move is TAKE:
                step = self._undo_take(entry, before, known_pile)
                if step is None:
                    return None
                log[entry.index] = step
            elif not self._undo_leave_or_stop(entry):
                return None
            else:
                choice = StockChoice(entry.move)
                log[entry.index] = (entry.seat, self.pile[entry.pos], choice)
        used_up = not self.gone_pool and not any(self.reserved)
        if len(self.pile) != facts.pile_size or (self.strict and not used_up):
            return None
        return before, log

    def _undo_take(
        self, entry: _Entry, before: dict[Seat, CardMask], known_pile: CardMask
    ) -> LookEntry | None:
        seat, view = entry.seat, self.view
        hand = before[seat]
        self.takes_left[seat] -= 1
        if entry.pos in self.pile:  # the bidder's own stop card, taken by its partner
            card = self.pile[entry.pos]
            if not hand >> card & 1 and self.strict:
                return None
        else:
            eligible = hand & POINT_CARDS[view.trump] & ~view.picked[seat] & ~known_pile
            if self.strict and not eligible:
                return None
            choices = eligible or (hand & ~view.picked[seat]) or hand
            card = self.rng.choice(_cards(choices))
            self.pile[entry.pos] = card
        after = hand & ~(1 << card)
        give_up = self._give_up(entry, after)
        if give_up is None:
            return None
        before[seat] = after | 1 << give_up
        shown = JOKER if give_up >= JOKER else give_up
        return (seat, card, StockChoice(TAKE, shown))

    def _give_up(self, entry: _Entry, after: CardMask) -> Card | None:
        """The face-down card a take gave up: a reserved card first, else one from gone."""
        seat = entry.seat
        mine = [i for i, (_, since) in enumerate(self.reserved[seat]) if since < entry.index]
        if mine:
            latest = max(mine, key=lambda i: self.reserved[seat][i][1])
            card = self.reserved[seat].pop(latest)[0]
            if self.strict and card == SECOND_JOKER and after & LOW_JOKER_BIT:
                return None  # holding both jokers, a seat gives up the first one
            return card
        trumps = self.facts.trumps
        room = self.view.fill_sizes[seat] - (after & ~trumps).bit_count()
        spare = self._spare_trumps()
        fits = []
        for i, card in enumerate(self.gone_pool):
            if card == SECOND_JOKER and after & LOW_JOKER_BIT:
                continue  # holding both jokers, a seat gives up the first one
            if trumps >> card & 1:
                if spare > 0 or room == 0:  # a trump spent here is missing later
                    fits.append(i)
            elif room > 0 and (spare > 0 or self._short(seat, room) == self._short(seat, room - 1)):
                fits.append(i)  # a non-trump uses up fill room: later takes may need trumps
        if not fits:
            if self.strict:
                return None
            return self._any_gone_card()
        return self.gone_pool.pop(self.rng.choice(fits))

    def _short(self, seat: Seat, room: int) -> int:
        """Trump give-ups ``seat`` still needs, with ``room`` non-trumps left to give up."""
        return max(0, self.takes_left[seat] - len(self.reserved[seat]) - room)

    def _spare_trumps(self) -> int:
        """Face-down trumps not needed by the takes still to undo.

        A looker whose non-trumps already fill its fill size can only have given up
        trumps; drawing the face-down cards without keeping enough trumps for those
        give-ups would fail later for no reason.
        """
        trumps, sizes = self.facts.trumps, self.view.fill_sizes
        need = 0
        for seat in self.facts.hidden:
            if self.takes_left[seat]:
                room = sizes[seat] - (self.before[seat] & ~trumps).bit_count()
                need += self._short(seat, room)
        return sum(1 for card in self.gone_pool if trumps >> card & 1) - need

    def _draw_face_down(self) -> Card | None:
        """A face-down card for a left or stopped pile card, sparing needed trumps.

        The pool is in random order, so its last card (of the kind allowed) is a random one.
        """
        if not self.strict:
            return self._any_gone_card()
        pool = self.gone_pool
        if not any(self.takes_left) or self._spare_trumps() > 0:
            return pool.pop() if pool else None
        trumps = self.facts.trumps
        for i in range(len(pool) - 1, -1, -1):
            if not trumps >> pool[i] & 1:
                return pool.pop(i)
        return None

    def _any_gone_card(self) -> Card | None:
        if self.gone_pool:
            return self.gone_pool.pop()
        for cards in self.reserved:
            if cards:
                return cards.pop()[0]
        return None

    def _undo_leave_or_stop(self, entry: _Entry) -> bool:
        """A left card, or a partner's stop and the rest of the pile, went face down."""
        facts = self.facts
        if entry.move is STOP_MOVE and entry.seat == self.view.bidder:
            return entry.pos in self.pile  # the partner's first card, placed already
        end = entry.pos + 1 if entry.move is LEAVE_MOVE else facts.pile_size
        for position in range(entry.pos, end):
            if position not in self.pile:
                card = self._draw_face_down()
                if card is None:
                    return False
                self.pile[position] = card
        return True

    # - fills, kept trumps and the deck -

    def _split_fills(
        self, before: dict[Seat, CardMask]
    ) -> tuple[list[CardMask], list[CardMask]] | None:
        """Split each hand before the look into picked cards, fill and kept trumps."""
        facts, view, rng = self.facts, self.view, self.rng
        kept, fill = [0, 0, 0, 0], [0, 0, 0, 0]
        fill[self.me] = view.fill
        kept[self.me] = before[self.me] & ~view.picked[self.me] & ~view.fill
        for seat in facts.hidden:
            rest = before[seat] & ~view.picked[seat]
            size = view.fill_sizes[seat]
            forced = rest & ~facts.trumps  # non-trumps only come from the fill
            if seat in facts.no_low_joker_in_kept:
                forced |= rest & LOW_JOKER_BIT
            if self.strict and (
                view.picked[seat] & ~before[seat]
                or rest.bit_count() != facts.kept[seat] + size
                or forced.bit_count() > size
            ):
                return None
            first = _shuffled(forced, rng)[:size] if forced.bit_count() > size else _cards(forced)
            others = (
                _shuffled(rest & ~forced, rng)[: size - len(first)] if size > len(first) else []
            )
            fill[seat] = _mask(first + others)
            kept[seat] = rest & ~fill[seat]
        return kept, fill

    def _points_fit(self) -> bool:
        """At a hand's end the trumps left in hands are worth what the team-out rule scored."""
        facts = self.facts
        if not (self.strict and facts.finished):
            return True
        for team in (0, 1):
            held = (self.hands[team] | self.hands[team + 2]) & facts.trumps
            if mask_points(held, self.view.trump) != facts.held_points[team]:
                return False
        return True

    def _world(self, kept: list[CardMask], fill: list[CardMask], log: list[LookEntry]) -> _World:
        facts, view = self.facts, self.view
        stock: list[Card] = []
        for seat in seats_from(left_of(facts.dealer)):
            stock += _cards(fill[seat])  # the order within one seat's fill changes nothing
        stock += [self.pile[position] for position in range(facts.pile_size)]
        dealt = [view.discarded[seat] | view.discarded_down[seat] | kept[seat] for seat in SEATS]
        return _World(
            hands=self.hands,
            look_cards=tuple(
                self.pile[position] for position in range(facts.pile_start, facts.pile_size)
            ),
            gone=self.gone_all,
            fill=(fill[0], fill[1], fill[2], fill[3]),
            look_log=tuple(log),
            deck=_deck_order(facts.dealer, dealt, stock),
        )
