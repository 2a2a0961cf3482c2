"""``pitch match``'s arguments checked and made into a plan: the bots as entrants, the
settings with their seed, and the match folder; every bad value is one line naming its
flag (``PitchError``)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pitch_referee.errors import PitchError
from pitch_referee.match import (
    Entrant,
    MatchError,
    MatchFolder,
    MatchSettings,
    SettingError,
    default_games,
    is_mixed,
)

from .bot_folder import bot_folder


@dataclass(frozen=True)
class MatchPlan:
    """A new match, ready to play: two entrants (A and B), or four (mixed partnerships)."""

    entrants: list[Entrant]
    settings: MatchSettings
    """Seeded: the seed is chosen (and printed) before the first game."""
    root: Path

    @property
    def mixed(self) -> bool:
        return len(self.entrants) == 4

    @property
    def attached(self) -> bool:
        """Whether a bot is started by hand (``--attach``)."""
        return any(entrant.by_hand for entrant in self.entrants)


def bot_arguments(bots: Sequence[str | None], attach: list[str], sprt: str | None) -> list[str]:
    """The bot arguments given: two, or four without ``--sprt``, naming every ``--attach``.

    Raises:
        PitchError: another number of bots, an ``--attach`` naming none of them, or
            ``--sprt`` with four bots.
    """
    arguments = [bot for bot in bots if bot is not None]
    if len(arguments) not in (2, 4):
        raise PitchError(
            "give two bots (folders, or names with --attach), four for the "
            "mixed-partnership format, or --resume FOLDER"
        )
    for name in attach:
        if name not in arguments:
            raise PitchError(f"--attach {name}: not one of the bots ({', '.join(arguments)})")
    if len(arguments) == 4 and sprt:
        raise PitchError("--sprt compares two bots: play two, not four")
    return arguments


def entrant_of(argument: str, attach: list[str]) -> Entrant:
    """A bot given to --attach, a reference bot (@NAME) or a bot folder.

    Raises:
        PitchError: not a bot folder, and not given to ``--attach``.
    """
    try:
        if argument in attach:
            return Entrant(argument, None)
        return Entrant.from_folder(bot_folder(argument))
    except MatchError as error:
        raise PitchError(
            f"{error}: give a folder with a bot.toml, or --attach {argument} to start it by hand"
        ) from None


_FLAGS = {
    "games": "--games",
    "concurrency": "--concurrency",
    "time_limit_ms": "--time-limit",
    "time_reserve_ms": "--time-reserve",
    "fault_policy": "--fault-policy",
    "rules": "--rule",
    "sprt": "--sprt",
    "sandbox": "--sandbox",
    "memory_mb": "--memory",
    "max_processes": "--max-processes",
    "attach_timeout_s": "--attach-timeout",
    "timing_grid_ms": "--timing-grid",
}
"""The flag of each setting ``pitch match`` takes."""


def match_settings(**values: Any) -> MatchSettings:
    """``MatchSettings`` with a seed.

    Raises:
        PitchError: a bad value, in one line naming its flag.
    """
    try:
        return MatchSettings(**values).seeded()
    except SettingError as error:
        flag = _FLAGS.get(error.setting, error.setting)
        raise PitchError(
            f"{flag} {error.problem}" if error.subject else f"{flag}: {error.problem}"
        ) from None


def games_to_play(games: int | None, sprt: str | None, duplicate: bool) -> int:
    """``--games``, or the default: with ``--sprt``, a cap the test nearly always decides by.

    Raises:
        PitchError: a bad ``--sprt``.
    """
    if games is not None:
        return games
    try:
        return default_games(sprt, duplicate)
    except SettingError as error:
        raise PitchError(f"--sprt {error.problem}") from None


def match_root(out: Path | None, entrants: list[Entrant]) -> Path:
    """``--out``, or a new folder under ``./matches/`` named by the time and the bots.

    Raises:
        PitchError: the folder already holds a match (resume it instead).
    """
    names = [entrant.name for entrant in entrants]
    title = "-vs-".join(names) if len(entrants) == 2 else "-".join(["mixed", *names])
    root = out or Path("matches") / f"{time.strftime('%Y%m%d-%H%M%S')}-{title}"
    if MatchFolder(root).exists() or is_mixed(root):
        raise PitchError(f"{root} already holds a match: resume it with --resume {root}")
    return root
