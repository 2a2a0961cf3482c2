"""The random reference bot: every decision uniformly at random among the legal actions."""

from pitch_sdk.bots import RandomBot
from pitch_sdk.run import run

if __name__ == "__main__":
    raise SystemExit(run(RandomBot()))
