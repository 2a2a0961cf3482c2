"""Assembling the state: the public slots from the view, the hidden ones from a sample."""

from __future__ import annotations

from ..cards import JOKER, STRENGTH, STRENGTH_LOW_JOKER, TRUMPS, CardMask, Seat, left_of, seats_from
from ..rules import HAND_SIZE, GameState
from ..views import PlayerView
from .facts import _current_looker, _mover
from .model import _Facts, _Stage, _World


def _assemble(facts: _Facts, world: _World) -> GameState:
    """Copy the public slots from the view and the hidden ones from the world."""
    view = facts.view
    state = GameState(view.options, first_dealer=view.dealer)
    state.hand_number = view.hand_number
    state.scores = view.scores
    state.hand_results = (view.last_hand,) if view.last_hand else ()  # history is not needed
    state.outcome = view.outcome
    state.phase = view.phase
    state.to_move = view.to_move
    state.deck = world.deck
    state.hands = list(world.hands)
    state.stock = world.stock
    state.bids = view.bids
    state.bid = view.bid
    state.bidder = view.bidder
    state.trump = view.trump
    state.discarded = view.discarded
    state.discarded_down = view.discarded_down
    state.picked = view.picked
    state.centre = view.centre
    state.fill = world.fill
    state.gone = world.gone
    state.queue = _queue(facts, state.hands)
    state.looker = _current_looker(view) if view.look_remaining else -1
    state.look_cards = world.look_cards
    state.look_log = world.look_log
    state.leader = view.leader
    state.trick = view.trick
    state.trick_best = _trick_best(view)
    state.tricks = view.tricks
    state.jokers_played = view.jokers_played
    state.taken = view.taken
    state.dead = view.last_hand.dead if view.last_hand and facts.finished else 0
    return state


def _queue(facts: _Facts, hands: list[CardMask]) -> tuple[Seat, ...]:
    """The seats still to act in this round, as the engine keeps them.

    Worked out from the stage of the hand rather than the phase, so a game forfeited
    mid-round keeps the queue it had (the forfeiting seat is taken to be the one that
    was to move, as when the referee forfeits a faulty bot).
    """
    view = facts.view
    if facts.finished or facts.stage in (_Stage.UNDEALT, _Stage.BIDDING):
        return ()
    mover = _mover(view)
    if facts.stage is _Stage.BEFORE_FILL:
        order = seats_from(left_of(view.dealer))
        discarding = tuple(seat for seat in order if hands[seat].bit_count() > HAND_SIZE)
        if discarding or mover < 0:
            return discarding
        return order[order.index(mover) :]  # picking up
    if view.leader < 0:
        return ()  # the look
    trumps = TRUMPS[view.trump]
    in_trick = {seat for seat, _ in view.trick}
    return tuple(
        seat for seat in seats_from(view.leader) if seat not in in_trick and hands[seat] & trumps
    )


def _trick_best(view: PlayerView) -> tuple[int, int]:
    """(strength, seat) of the best card in the trick so far; jokers rank by play order."""
    best = (-1, -1)
    jokers_before = view.jokers_played - sum(1 for _, card in view.trick if card >= JOKER)
    for seat, card in view.trick:
        if card >= JOKER:
            strength = STRENGTH_LOW_JOKER + 1 - jokers_before
            jokers_before += 1
        else:
            strength = STRENGTH[view.trump][card]
        if strength > best[0]:
            best = (strength, seat)
    return best
