"""A policy trained on ``PitchEnv``, playing as a ``Bot``: in a ladder bot folder through
``pitch_sdk.run``, or in this process through ``selfplay.play_game``.

The other way round (an environment's agent against SDK bots) is ``PitchEnv(bots=...)``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..actions import Action
from ..bot import Bot
from ..views import PlayerView
from .actions import DecisionSteps
from .observation import encode

Policy = Callable[[np.ndarray, np.ndarray], int]
"""A policy: (observation, action mask) -> an action id the mask allows, exactly as
``PitchEnv.observe`` gives them (``obs["observation"]``, ``obs["action_mask"]``)."""


class PolicyBot(Bot):
    """A bot that plays ``policy``: each decision is asked as the environment asks it,
    step by step for a discard or a pick-up, so the policy sees what it was trained on.
    """

    def __init__(
        self, policy: Policy, *, name: str = "policy", version: str = "0.1", seed: int | None = None
    ) -> None:
        super().__init__(seed)
        self.policy = policy
        """The policy that chooses each step."""
        self.name = name
        """The name the bot plays under."""
        self.version = version
        """The bot's version."""

    def decide(self, view: PlayerView) -> Action:
        """Ask the policy step by step until the decision is complete."""
        steps = DecisionSteps(view.legal_actions)
        while steps.action is None:
            steps.take(int(self.policy(encode(view, steps.chosen), steps.mask())))
        return steps.action
