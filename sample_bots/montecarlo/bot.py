"""The montecarlo sample bot: determinized search (``mcbot``) for every decision."""

from mcbot import MonteCarloBot

from pitch_sdk.run import run

if __name__ == "__main__":
    raise SystemExit(run(MonteCarloBot(log=True)))
