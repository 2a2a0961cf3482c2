"""What the rest of a hand is worth: the objective both searches share.

From any position in the play, every remaining point card ends with one team or the
other (the deuce with the team of the seat holding it, every other card with the trick
winner's team, or with a team still holding trumps when the other runs out), so the
points still to be taken are a fixed total split between the teams. The bidding team's
hand score (its points when it makes the bid, minus the bid when set) and the difference
between the two teams' scores both rise with the bidding team's share, so one objective
serves for all of them: **the points team 0 takes from here to the end of the hand**,
maximized by seats 0 and 2 and minimized by seats 1 and 3.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..cards import POINTS, TRUMPS, Team, mask_points, team_of
from ..progress import PLAYING
from ..rules import GameState


@dataclass(frozen=True)
class HandOutcome:
    """The double-dummy result of a hand: every card seen, every seat at its best.

    Attributes:
        taken: each team's points in the whole hand (those taken so far included).
        bid: the contract.
        bidding_team: the team of the bidder.
        nodes: the positions the search visited to find it.
    """

    taken: tuple[int, int]
    bid: int
    bidding_team: Team
    nodes: int

    @property
    def made(self) -> bool:
        """Whether the bidding team takes at least its bid."""
        return self.taken[self.bidding_team] >= self.bid

    @property
    def bidding_score(self) -> int:
        """The bidding team's hand score under the default scoring: its points, or
        minus the bid when set."""
        return self.taken[self.bidding_team] if self.made else -self.bid


def require_play(state: GameState) -> None:
    """Refuse a state that is not in the play of a hand, with a one-line reason.

    Raises:
        ValueError: no card is to be played now.
    """
    if state.phase is not PLAYING:
        raise ValueError(f"no card is to be played: the hand is in {state.phase.name.lower()}")


def points_to_come(state: GameState) -> int:
    """The points not yet scored: the trumps in hands and the cards of the trick in play."""
    held = 0
    for hand in state.hands:
        held |= hand
    in_trick = sum(POINTS[state.trump][card] for _, card in state.trick)
    return mask_points(held & TRUMPS[state.trump], state.trump) + in_trick


def outcome_of(state: GameState, team0_future: int, nodes: int) -> HandOutcome:
    """The hand's outcome when team 0 takes ``team0_future`` of the points still to come."""
    team1_future = points_to_come(state) - team0_future
    taken = (state.taken[0] + team0_future, state.taken[1] + team1_future)
    return HandOutcome(taken, state.bid, team_of(state.bidder), nodes)
