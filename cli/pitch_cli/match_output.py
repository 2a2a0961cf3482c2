"""Where ``pitch match`` (and ``pitch gauntlet``'s matches) write: standard output, soft-wrapped
so that long paths stay on one line also when piped, and standard error."""

from __future__ import annotations

from rich.console import Console

console = Console(soft_wrap=True)
errors = Console(stderr=True, soft_wrap=True, highlight=False)
