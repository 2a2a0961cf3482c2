"""The policy this bot plays: put your trained model here.

A policy takes the observation and the action mask as ``PitchEnv`` gives them and returns
an action id the mask allows. A trained network would compute its logits from the
observation, set the masked ones to -inf and take the best. This stand-in needs no
training: it names the suit it holds most cards of, and otherwise takes the lowest legal
id (it passes, discards and plays its lowest cards, leaves stock cards).
"""

import numpy as np

from pitch_sdk.env.actions import TRUMP_IDS
from pitch_sdk.env.observation import OFFSET


def policy(observation: np.ndarray, mask: np.ndarray) -> int:
    if mask[TRUMP_IDS : TRUMP_IDS + 4].any():
        hand = observation[OFFSET["hand"] : OFFSET["hand"] + 52]  # by suit: 13 cards each
        return TRUMP_IDS + int(np.argmax(hand.reshape(4, 13).sum(axis=1)))
    return int(np.flatnonzero(mask)[0])
