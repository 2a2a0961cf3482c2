"""The ddbot reference bot: the Monte Carlo bot's sampled deals, each solved double-dummy
(``pitch_sdk.bots.ddbot``), at the Monte Carlo bot's spend of each time limit."""

from pitch_sdk.bots.ddbot import DoubleDummyBot
from pitch_sdk.run import run

if __name__ == "__main__":
    raise SystemExit(run(DoubleDummyBot(log=True)))
