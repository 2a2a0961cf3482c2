"""A policy trained on ``pitch_sdk.env.PitchEnv``, playing on the ladder.

``PolicyBot`` asks the policy every decision exactly as the environment does (the same
observation vector and action mask, a discard or pick-up card by card), so a model
trained there plays here unchanged. Needs the SDK's ``env`` extra (numpy).
"""

from policy import policy

from pitch_sdk.env import PolicyBot
from pitch_sdk.run import run

if __name__ == "__main__":
    raise SystemExit(run(PolicyBot(policy, name="policy", version="1.0")))
