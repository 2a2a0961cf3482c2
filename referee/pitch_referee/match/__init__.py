"""A match between two bots: duplicate deal pairs, concurrent workers, resume, statistics.

Card luck is the enemy of every conclusion in a card game, so by default every deal is
played twice with the teams swapped (same deck order for each hand number, same first
dealer): game ``a`` of a pair has bot A in seats 0 and 2, game ``b`` has it in 1 and 3.

The match folder is the source of truth (``folder``): ``match.json`` (who and how), one
record per finished game (gzip-compressed unless told otherwise), bot logs, a line per
finished game in ``outcomes.jsonl``, and ``summary.json``, which is always recomputed
from those outcomes: a match holds a few numbers per game in memory, never its records.
A match killed at any moment resumes by playing exactly the games that have no record
yet; seeded bots make the resumed match end exactly as an uninterrupted one would.

The match seed gives every deal, and is the secret the bots' own seeds are derived from
(``seeds.bot_seed``), so that one seed replays a whole match. A bot that knows it can
work out the deals: a match given no seed draws a fresh one, kept in ``match.json``.

The modules, one job each: ``settings`` (who and how), ``schedule`` (the games),
``folder`` (the folder's layout), ``outcomes`` (each game's outcome, and their log),
``summary`` (what the outcomes say), ``pool`` (the workers), ``running`` (a match
from start or resume to its summary) and ``mixed`` (four bots in every partnership:
three team matches on the same deals, rated with a team model).
"""

from .folder import MATCH_FORMAT, MATCH_VERSION, MatchFolder
from .mixed import (
    PARTNERSHIPS,
    BotResult,
    MixedSummary,
    is_mixed,
    mixed_summary,
    partnership_folder,
    resume_mixed,
    run_mixed,
)
from .outcomes import GameOutcome
from .pool import Job, WorkerError, Workers, play_pairs_at, run_workers
from .running import MatchInterrupted, ProgressCallback, resume_match, run_match
from .schedule import GameSpec, schedule
from .settings import (
    DEFAULT_GAMES,
    Entrant,
    MatchError,
    MatchSettings,
    NoSandboxError,
    SettingError,
    default_games,
)
from .summary import (
    FaultTally,
    GameEntry,
    MatchProgress,
    MatchStats,
    MatchStatus,
    MatchSummary,
    summarize,
    tally,
)

__all__ = [
    "DEFAULT_GAMES",
    "MATCH_FORMAT",
    "MATCH_VERSION",
    "PARTNERSHIPS",
    "BotResult",
    "Entrant",
    "FaultTally",
    "GameEntry",
    "GameOutcome",
    "GameSpec",
    "Job",
    "MatchError",
    "MatchFolder",
    "MatchInterrupted",
    "MatchProgress",
    "MatchSettings",
    "MatchStats",
    "MatchStatus",
    "MatchSummary",
    "MixedSummary",
    "NoSandboxError",
    "ProgressCallback",
    "SettingError",
    "WorkerError",
    "Workers",
    "default_games",
    "is_mixed",
    "mixed_summary",
    "partnership_folder",
    "play_pairs_at",
    "resume_match",
    "resume_mixed",
    "run_match",
    "run_mixed",
    "run_workers",
    "schedule",
    "summarize",
    "tally",
]
