"""The mixed-partnership format: four bots, each partnering every other one in turn.

A team's result belongs to two bots, so a match of a bot against itself as partner says
nothing about how it plays beside a stranger. Here four bots A, B, C and D play three
team matches on the same deals: A+B against C+D, A+C against B+D and A+D against B+C,
each a duplicate match (every deal twice, the teams swapped). Each bot partners each
of the others once and plays against each of them twice, on the same cards, and a team
model (``team_ratings``) rates the four bots from every game.

The folder:

```
<root>/mixed.json              the four bots and the settings (``MIXED_FORMAT``)
<root>/<A>+<B>-vs-<C>+<D>/     a team match folder (``MatchFolder``), one per partnership
<root>/summary.json            recomputed from the three matches (``MixedSummary``)
```

Each team match is an ordinary match folder, so resuming, the outcomes log, replay and
the viewer work on it unchanged. All three use the same match seed, so the same deals.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..team_ratings import TeamRating, TeamRatings
from .folder import MIXED_FILE, MatchFolder, write_json
from .pool import Workers, run_workers
from .running import ProgressCallback, resume_match, run_match
from .settings import Entrant, MatchError, MatchSettings
from .summary import LoadedMatch, MatchStatus, MatchSummary, summary_of

MIXED_FORMAT = "pitch-mixed"
MIXED_VERSION = 1

PARTNERSHIPS = ((0, 1, 2, 3), (0, 2, 1, 3), (0, 3, 1, 2))
"""Each team match as the positions of bot A, its partner, bot B and its partner among
the four bots: every bot partners every other one exactly once."""


def partnership_folder(bots: Sequence[Entrant], partnership: Sequence[int]) -> str:
    """The team match's folder name, e.g. ``alpha+beta-vs-gamma+delta``."""
    a, a_partner, b, b_partner = (bots[n].name for n in partnership)
    return f"{a}+{a_partner}-vs-{b}+{b_partner}"


@dataclass(frozen=True)
class BotResult:
    """One bot's games over the three team matches, and its team-model rating."""

    name: str
    version: str
    games: int
    wins: int
    losses: int
    draws: int
    rating: TeamRating


@dataclass(frozen=True)
class MixedSummary:
    """A mixed-partnership match: its three team matches and each bot's results, best
    rated first."""

    folder: Path
    bots: tuple[Entrant, ...]
    status: MatchStatus
    """``finished`` once all three team matches are; else where the unfinished one is."""
    matches: tuple[MatchSummary, ...]
    """In ``PARTNERSHIPS`` order: only those started so far."""
    results: tuple[BotResult, ...]

    @property
    def games_played(self) -> int:
        return sum(match.games_played for match in self.matches)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": MIXED_FORMAT,
            "bots": [bot.to_json() for bot in self.bots],
            "status": str(self.status),
            "games_played": self.games_played,
            "matches": [
                {
                    "folder": match.folder.name,
                    "teams": [match.team_name("a"), match.team_name("b")],
                    "status": str(match.status),
                    "games_played": match.games_played,
                    "result": {"wins": match.wins, "losses": match.losses, "draws": match.draws},
                }
                for match in self.matches
            ],
            "results": [_result_json(result) for result in self.results],
        }


def _result_json(result: BotResult) -> dict[str, Any]:
    rating = result.rating
    interval = [rating.lower, rating.upper]
    return {**asdict(result), "rating": {**asdict(rating), "interval": interval}}


def run_mixed(
    bots: Sequence[Entrant],
    settings: MatchSettings,
    root: Path,
    progress: ProgressCallback | None = None,
    announce: Callable[[str], None] = print,
    *,
    on_match: Callable[[str], None] | None = None,
    stop_if_unplayable: bool = False,
    workers: Workers = run_workers,
) -> MixedSummary:
    """Play a new mixed-partnership match of four ``bots`` into ``root``.

    ``on_match`` is told each team match's folder name as it starts; ``progress``,
    ``announce``, ``stop_if_unplayable`` and ``workers`` are as for ``run_match``, for
    each team match in turn (a team match stopped because a bot cannot play stops the
    whole match).

    Raises:
        MatchError: not four bots with different names, an SPRT (a test between two
            sides), ``root`` already holds a match, or a team match cannot go on.
        MatchInterrupted: Ctrl-C; ``resume_mixed`` plays the rest.
    """
    if len(bots) != 4:
        raise MatchError(f"a mixed-partnership match has four bots, not {len(bots)}")
    names = [bot.name for bot in bots]
    if twice := sorted({name for name in names if names.count(name) > 1}):
        raise MatchError(f"the four bots need four different names ({twice[0]} is there twice)")
    if settings.sprt:
        raise MatchError("an SPRT compares two sides: a mixed-partnership match has none")
    if (root / MIXED_FILE).exists() or MatchFolder(root).exists():
        raise MatchError(f"{root} already holds a match")
    settings = settings.seeded()
    root.mkdir(parents=True, exist_ok=True)
    header = {
        "format": MIXED_FORMAT,
        "version": MIXED_VERSION,
        "bots": [bot.to_json() for bot in bots],
        "settings": settings.to_json(),
    }
    write_json(root / MIXED_FILE, header)
    return _play(root, progress, announce, on_match, stop_if_unplayable, workers)


def resume_mixed(
    root: Path,
    progress: ProgressCallback | None = None,
    announce: Callable[[str], None] = print,
    *,
    on_match: Callable[[str], None] | None = None,
    stop_if_unplayable: bool = False,
    workers: Workers = run_workers,
) -> MixedSummary:
    """Finish an interrupted mixed-partnership match: the games with no record yet."""
    read_mixed_header(root)
    return _play(root, progress, announce, on_match, stop_if_unplayable, workers)


def is_mixed(root: Path) -> bool:
    """Whether ``root`` holds a mixed-partnership match."""
    return (root / MIXED_FILE).is_file()


def read_mixed_header(root: Path) -> tuple[tuple[Entrant, ...], MatchSettings]:
    """The four bots and the settings, from ``mixed.json``.

    Raises:
        MatchError: no mixed-partnership match there, or one this version cannot read.
        ManifestError: a bot's folder no longer holds a valid bot.
    """
    path = root / MIXED_FILE
    try:
        header = json.loads(path.read_text())
    except FileNotFoundError:
        raise MatchError(f"{root}: no mixed-partnership match here (no {MIXED_FILE})") from None
    except json.JSONDecodeError as error:
        raise MatchError(f"{path}: unreadable ({error})") from None
    if (
        not isinstance(header, dict)
        or header.get("format") != MIXED_FORMAT
        or header.get("version") != MIXED_VERSION
    ):
        raise MatchError(f"{path}: not a mixed-partnership match of a known version")
    try:
        bots = tuple(Entrant.from_json(bot) for bot in header["bots"])
        settings = MatchSettings.from_json(header["settings"])
    except (AttributeError, KeyError, TypeError) as error:
        raise MatchError(f"{path}: unreadable ({error})") from None
    if len(bots) != 4:
        raise MatchError(f"{path}: a mixed-partnership match has four bots, not {len(bots)}")
    return bots, settings


def _play(
    root: Path,
    progress: ProgressCallback | None,
    announce: Callable[[str], None],
    on_match: Callable[[str], None] | None,
    stop_if_unplayable: bool,
    workers: Workers,
) -> MixedSummary:
    """Play each team match that is not finished yet, in order, then sum them up."""
    bots, settings = read_mixed_header(root)
    for partnership in PARTNERSHIPS:
        name = partnership_folder(bots, partnership)
        folder = root / name
        if on_match:
            on_match(name)
        if MatchFolder(folder).exists():
            played = resume_match(
                folder, progress, announce, stop_if_unplayable=stop_if_unplayable, workers=workers
            )
        else:
            a, a_partner, b, b_partner = (bots[n] for n in partnership)
            played = run_match(
                a,
                b,
                settings,
                folder,
                progress,
                announce,
                stop_if_unplayable=stop_if_unplayable,
                workers=workers,
                partners=(a_partner, b_partner),
            )
        if played.status is MatchStatus.CANNOT_PLAY:
            break
    return mixed_summary(root)


def mixed_summary(root: Path) -> MixedSummary:
    """The summary of the mixed-partnership match in ``root``, recomputed from its team
    matches' outcomes (never their records) and saved as ``summary.json``.

    The team model rates the games in the order of their deals, each deal's games in
    partnership order, so the same games always give the same ratings, however the
    match was stopped and resumed on the way.

    Raises:
        MatchError: as ``read_mixed_header``.
    """
    bots, _settings = read_mixed_header(root)
    loaded = [
        LoadedMatch.load(root / folder)
        for partnership in PARTNERSHIPS
        if MatchFolder(root / (folder := partnership_folder(bots, partnership))).exists()
    ]
    ratings: TeamRatings[str] = TeamRatings()
    counts = {bot.name: [0, 0, 0] for bot in bots}  # wins, losses, draws
    for team_a, team_b, score_a in _games_in_deal_order(loaded):
        ratings.rate(team_a, team_b, score_a)
        for team, score in ((team_a, score_a), (team_b, 1 - score_a)):
            for name in team:
                counts[name][{1.0: 0, 0.0: 1, 0.5: 2}[score]] += 1
    summaries = tuple(summary_of(match, _status(match)) for match in loaded)
    rated = [name for name, _rating in ratings.ranked()]
    order = rated + [bot.name for bot in bots if bot.name not in rated]
    versions = {bot.name: bot.version for bot in bots}
    results = tuple(
        BotResult(
            name, versions[name], sum(wld := counts[name]), wld[0], wld[1], wld[2], ratings[name]
        )
        for name in order
    )
    summary = MixedSummary(root, bots, _overall(summaries), summaries, results)
    write_json(root / "summary.json", summary.to_json())
    return summary


def _games_in_deal_order(
    matches: list[LoadedMatch],
) -> Iterator[tuple[tuple[str, str], tuple[str, str], float]]:
    """Every finished game as (team A, team B, team A's score), deal by deal."""
    by_deal: dict[int, list[tuple[tuple[str, str], tuple[str, str], float]]] = {}
    for match in matches:
        team_a = (match.a.name, (match.a_partner or match.a).name)
        team_b = (match.b.name, (match.b_partner or match.b).name)
        for spec, outcome in match.outcomes.items():
            by_deal.setdefault(spec.pair, []).append((team_a, team_b, outcome.a_score))
    for deal in sorted(by_deal):
        yield from by_deal[deal]


def _status(match: LoadedMatch) -> MatchStatus:
    """What a team match's stored summary says, or ``interrupted`` when it has none."""
    try:
        saved = json.loads(match.folder.summary_path.read_text())
        return MatchStatus(saved["status"])
    except (OSError, ValueError, KeyError, TypeError):
        return MatchStatus.INTERRUPTED


def _overall(matches: tuple[MatchSummary, ...]) -> MatchStatus:
    """Finished once the three team matches are; else the first unfinished one's status."""
    unfinished = [match.status for match in matches if match.status is not MatchStatus.FINISHED]
    if len(matches) < len(PARTNERSHIPS) and not unfinished:
        return MatchStatus.INTERRUPTED
    return unfinished[0] if unfinished else MatchStatus.FINISHED
