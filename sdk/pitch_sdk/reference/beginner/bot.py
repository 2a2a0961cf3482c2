"""The beginner reference bot: the plain heuristic of ``pitch_sdk.bots.beginner``."""

from pitch_sdk.bots import BeginnerBot
from pitch_sdk.run import run

if __name__ == "__main__":
    raise SystemExit(run(BeginnerBot()))
