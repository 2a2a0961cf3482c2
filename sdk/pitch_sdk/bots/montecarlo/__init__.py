"""A perfect-information Monte Carlo bot: ``bot`` chooses what to search per decision,
``search`` samples deals and averages playouts, ``rollout`` plays the hands out.

Two reference bots run it: ``montecarlo`` (the full search) and ``montecarlo-fast``
(the same search capped at ``FAST_MAX_WORLDS`` samples); the design is in
docs/montecarlo.md."""

from .bot import FAST_MAX_WORLDS, FastMonteCarloBot, MonteCarloBot

__all__ = ["FAST_MAX_WORLDS", "FastMonteCarloBot", "MonteCarloBot"]
