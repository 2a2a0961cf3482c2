"""The greedy reference bot: the heuristic player from ``pitch_sdk.bots.greedy``."""

from pitch_sdk.bots import GreedyBot
from pitch_sdk.run import run

if __name__ == "__main__":
    raise SystemExit(run(GreedyBot()))
