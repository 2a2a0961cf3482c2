"""A perfect-information Monte Carlo bot: ``bot`` chooses what to search per decision,
``search`` samples deals and averages playouts, ``rollout`` plays the hands out."""

from .bot import MonteCarloBot

__all__ = ["MonteCarloBot"]
