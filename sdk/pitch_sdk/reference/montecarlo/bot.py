"""The montecarlo reference bot: determinized search (``pitch_sdk.bots.montecarlo``) for
every decision, at the full setting (up to 400 samples, a quarter of each time limit)."""

from pitch_sdk.bots.montecarlo import MonteCarloBot
from pitch_sdk.run import run

if __name__ == "__main__":
    raise SystemExit(run(MonteCarloBot(log=True)))
