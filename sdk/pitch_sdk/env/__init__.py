"""13-point partner pitch for reinforcement learning: a PettingZoo AEC environment on the
SDK's engine and table, and adapters between its policies and bots (``docs/env.md``).

Needs the ``env`` extra (``pitch-sdk[env]``: pettingzoo, gymnasium, numpy). Only this
package imports them: ``import pitch_sdk`` and every other module work without it.
"""

from .actions import ACTION_COUNT, DONE, DecisionSteps, IllegalIdError, action_id, describe
from .adapters import Policy, PolicyBot
from .environment import PitchEnv, agent_name, seat_of
from .observation import OBSERVATION_SIZE, encode

__all__ = [
    "ACTION_COUNT",
    "DONE",
    "OBSERVATION_SIZE",
    "DecisionSteps",
    "IllegalIdError",
    "PitchEnv",
    "Policy",
    "PolicyBot",
    "action_id",
    "agent_name",
    "describe",
    "encode",
    "seat_of",
]
