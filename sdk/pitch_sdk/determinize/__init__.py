"""Determinization: a complete engine state sampled from what one seat knows.

Search bots (PIMC, Monte Carlo) need a whole ``GameState`` to simulate, but a seat only
has its ``PlayerView``. ``determinize(view, rng)`` places every card the seat cannot see
(the other hands, the face-down stock, another looker's pile, the cards that left play
face down, the other seats' fill and stock-look cards) at random, so that

    determinize(view, rng).view(view.seat) == view

for every view of every reachable state, legal actions included. The state is a normal
engine state: ``copy()`` it and play it out with ``advance()``.

How a sample is made. The hand's public history fixes most of the structure, so the
sampler works in the order the rules do, by stage:

* nothing dealt yet: the state is empty;
* bidding (trumps not named): the unseen cards are shuffled into the other hands and the
  stock;
* after trumps, before the fill: the other hands hold only trumps (every non-trump was
  discarded face up), so they get unseen trumps and the stock gets the rest;
* after the fill (look, play, a finished hand): the *current* places are sampled first
  (the other hands, the rest of the looker's pile, the hidden face-down cards), then the
  hidden history is rebuilt backwards from them (what each other looker turned, took and
  gave up; then each seat's fill and the trumps it kept from the deal). The history
  gives a full deck order: ``deck`` deals exactly this hand and stock.

What is inferred from the view (each is a fact every true state shares):

* hand sizes, fill sizes and the pile size are public, and every card the seat has seen
  (the centre, picked-up cards, played cards, its own hand, fill and look) stays where
  it is known to be; cards another seat picked up stay in its hand;
* a seat skipped in a trick, a trick winner whose partner led next, and a bidder whose
  partner led the first trick hold no trump afterwards;
* the seat to play holds a trump, and during a trick each team that has not yet played
  to it still holds a trump (otherwise the hand would have ended); at the end of a
  hand some team holds no trump, and the trumps left in hands are worth exactly the
  points the team-out rule scored;
* after the fill a seat's non-trumps can only be fill cards: at most ``fill_sizes[seat]``;
* another seat's stock take turned a point card, and its give-up was in its hand;
* the jokers are identical, but a seat asked for ``JK`` always gives the lower code
  first, so a seat that played or discarded the second joker did not hold the first;
* after a forfeit in the middle of a hand, the forfeiting seat is taken to be the seat
  that was to move (the referee only forfeits a seat whose own decision faulted).

Sampling is uniform where it is cheap to be exact: how many non-trumps and trumps each
hidden hand gets (at a hand's end, also how many trumps worth 0, 1 and 3 points each
team keeps; in a look, how many trumps lie face down for give-ups) is drawn with the
exact number of placements it allows, so voids, must-hold rules and point sums cost no
rejection; then the cards of each kind are shuffled. What is left (which pile cards
another looker turned and took, its give-ups, joker codes) is checked by rejection with
at most ``MAX_ATTEMPTS`` tries. Not weighted: how many hidden histories lead to the same
cards, and the bids (a bid says something about a hand, but how much is up to the
bots). Two simplifications: another looker is assumed to have kept the cards it picked
up (and a partner the bidder's stop card it took) unless it is shown to hold no trump,
in which case it gave them up in its look.

The view's digest and the weight tables are cached, since a search bot samples the same
view many times; a sample then costs roughly 0.1-0.3 ms.

If no try meets every constraint (or they are provably unmeetable for this sampler), a
documented best effort is returned: the current places are shuffled under the size rules
only and the hidden history is patched up (a take may record a non-point card, a fill
may miss a non-trump). The view-equality property and card conservation still hold; if
the history cannot be made into 9-card hands, ``deck`` is left empty (``()``).

The package, in the order a sample is made: ``facts`` digests the view (with
``own_look`` for the seat's own give-ups) into the ``model`` data; ``sampling`` makes one
try by stage (``after_fill`` for the look and later), counting placements with
``counting`` and dealing with ``deal`` and ``bits``; ``assemble`` builds the state.
"""

from __future__ import annotations

import random

from ..rules import GameState
from ..views import PlayerView
from .assemble import _assemble
from .facts import _cached_facts, _facts_of
from .model import _Infeasible
from .sampling import _sample_world

__all__ = ["MAX_ATTEMPTS", "determinize", "sample_state"]

MAX_ATTEMPTS = 64
"""Strict samples tried before the best-effort fallback."""


def determinize(view: PlayerView, rng: random.Random) -> GameState:
    """A complete game state consistent with everything ``view.seat`` knows.

    The hidden cards are drawn from ``rng``, so a search bot gets a fresh, independent
    sample per call; the result shares nothing mutable with other calls, so it can be
    played out in place or ``copy()``-ed.

    Args:
        view: what the seat knows (``state.view(seat)`` or what a bot was sent).
        rng: the source of randomness (a bot passes its own seeded ``self.rng``).

    Returns:
        A state ``s`` with ``s.view(view.seat) == view``.

    Raises:
        ValueError: the view cannot come from any game (its counts do not add up).
    """
    return sample_state(view, rng)[0]


def sample_state(view: PlayerView, rng: random.Random) -> tuple[GameState, bool]:
    """``determinize``, also saying whether the sample met every constraint.

    Returns:
        The state, and ``True`` for a strict sample or ``False`` for the best-effort
        fallback (kept separate so tests can measure how often the fallback is needed).

    Raises:
        ValueError: the view cannot come from any game (its counts do not add up).
    """
    try:
        facts = _cached_facts(view)
    except TypeError:  # a hand-made view with unhashable parts: no caching
        facts = _facts_of(view)
    try:
        for _ in range(MAX_ATTEMPTS):
            world = _sample_world(facts, rng, strict=True)
            if world is not None:
                return _assemble(facts, world), True
    except _Infeasible:
        pass
    world = _sample_world(facts, rng, strict=False)
    if world is None:  # pragma: no cover - the relaxed sampler only fails on bad views
        raise ValueError("the view is not consistent with the rules")
    return _assemble(facts, world), False
