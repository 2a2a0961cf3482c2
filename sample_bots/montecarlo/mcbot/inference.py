"""What the bids and the trump call say about the other seats' hands.

``determinize`` samples the hidden cards uniformly: it does not read the bids, because
what a bid says about a hand is up to the bot that made it. A search bot must decide
that for itself, and it matters: a partner who bid 8 holds trumps, a seat that passed
does not hold a great hand, and the bidder's hand is strongest in the suit it named.
Searching deals where the bidder named its weakest suit gives a wrong picture of who
takes the tricks.

So each sample gets a weight, how likely the public bids would be if the sampled hands
were the true ones, and the search averages the playouts with these weights (importance
sampling). The model of a bidder is the one the rollouts use: a seat judges its hand by
the greedy bot's estimate of the points it can take (``best_suit``) and bids about a
point under it. The likelihoods are soft (a bell curve around what the model would do),
since real bots bid otherwise: a sample that disagrees with a bid becomes less likely,
never impossible.
"""

from __future__ import annotations

import math

from pitch_sdk.bots.greedy import best_suit, hand_value
from pitch_sdk.cards import SUITS
from pitch_sdk.progress import DEAL
from pitch_sdk.rules import MIN_BID, GameState
from pitch_sdk.views import PlayerView

from .rollout import BID_SHADE

SPREAD = 1.5
"""How far (in estimated points) a bot's bid strays from the model's, one standard
deviation: wide enough for bots that bid their own way."""
TRUMP_SHARPNESS = 1.0
"""How much less likely a trump call becomes per point the named suit is worse than
the hand's best suit."""


def _bell(distance: float) -> float:
    return math.exp(-0.5 * (distance / SPREAD) ** 2)


def dealt_hands(world: GameState) -> list[int] | None:
    """The nine cards each seat was dealt in the sampled hand (from its deck order), or
    ``None`` when the sample has no deck (the sampler's best-effort fallback)."""
    if not world.deck:
        return None
    deal = GameState(world.options, first_dealer=world.dealer)
    deal.deal(world.deck)
    return deal.hands


def bid_likelihood(world: GameState, view: PlayerView) -> float:
    """How likely the other seats' bids and the trump call are, given the sampled deal.

    Not normalised: only the ratio between samples of the same view matters.
    """
    if not view.bids or view.phase == DEAL:
        return 1.0
    hands = dealt_hands(world)
    if hands is None:
        return 1.0
    weight, high = 1.0, 0
    for seat, amount in view.bids:
        if seat != view.seat:
            weight *= _one_bid(hands[seat], seat, amount, high, view.dealer)
        high = max(high, amount)
    bidder = view.bidder
    if view.trump >= 0 and bidder != view.seat:
        values = [hand_value(hands[bidder], suit) for suit in SUITS]
        weight *= math.exp(-TRUMP_SHARPNESS * (max(values) - values[view.trump]))
    return weight


def _one_bid(hand: int, seat: int, amount: int, high: int, dealer: int) -> float:
    """Likelihood of ``seat`` bidding ``amount`` (0: a pass) over ``high`` with ``hand``."""
    if seat == dealer and high == 0:
        return 1.0  # a forced bid says nothing
    expected = best_suit(hand)[0]
    lowest = max(MIN_BID, high + 1)
    if amount == 0:  # a pass: the hand was not worth the lowest bid
        return 1.0 if expected < lowest else _bell(expected - lowest + 1)
    if seat == dealer or amount == lowest:  # the least it could bid: at least that good
        return 1.0 if expected >= amount else _bell(amount - expected)
    return _bell(expected - (amount + BID_SHADE + 0.5))
