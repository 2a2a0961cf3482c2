"""The montecarlo-fast reference bot: the montecarlo search capped at a few dozen samples
a decision (``pitch_sdk.bots.montecarlo.FastMonteCarloBot``)."""

from pitch_sdk.bots.montecarlo import FastMonteCarloBot
from pitch_sdk.run import run

if __name__ == "__main__":
    raise SystemExit(run(FastMonteCarloBot(log=True)))
