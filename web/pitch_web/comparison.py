"""A stored deal pair compared: its two games found in the source (a folder's match or a
ladder's), their timelines walked side by side (``compare``), one hand shown in full and
its divergence analysed. The comparison page and ``/api/compare`` both read it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fastapi import Request

from . import models
from .compare import Analysis, Choice, HandPair, analyse, compare_hands
from .pairs import SIDES
from .source import MOST_GAMES, FolderSource, LadderSource, NotFound
from .viewer_data import cached_timeline


@dataclass(frozen=True)
class PairComparison:
    """A deal pair's two games hand by hand, ``shown`` in full with its ``analysis``."""

    match: models.MatchOut
    pair: int
    keys: tuple[str, str]
    """Games ``-a`` and ``-b``: their keys in the source."""
    hands: list[HandPair]
    shown: HandPair | None
    """The hand asked for, or the first that diverged (or the first); ``None``: no hands."""
    analysis: Analysis | None
    """The shown hand's divergence valued: a card double-dummy, another decision by
    sampling."""

    @property
    def urls(self) -> list[str]:
        """Each game's viewer page."""
        return [models.path_url("/view", key) for key in self.keys]

    def to_json(self) -> dict[str, Any]:
        """The comparison as ``/api/compare`` sends it (docs/viewer.md)."""
        decisions = None
        divergence = self.shown.divergence if self.shown else None
        if self.analysis is not None and divergence is not None:
            decisions = [self.analysis.to_json(choice) for choice in (divergence.a, divergence.b)]
        return {
            "match": self.match.key,
            "pair": self.pair,
            "games": [
                {"key": key, "url": url} for key, url in zip(self.keys, self.urls, strict=True)
            ],
            "hands": [_hand_json(line) for line in self.hands],
            "shown": self.shown.hand if self.shown else None,
            "decisions": decisions,
        }


def _hand_json(line: HandPair) -> dict[str, Any]:
    tables = []
    for table, row in enumerate((line.a, line.b)):
        tables.append(
            None
            if row is None
            else {
                "step": row.step,
                "bidder": row.bidder,
                "bid": row.bid,
                "trump": row.trump,
                "made": row.made,
                "points": line.points(table),
            }
        )
    divergence = line.divergence
    return {
        "hand": line.hand,
        "same_cards": line.cards is not None,
        "tables": tables,
        "swing": line.swing,
        "divergence": None
        if divergence is None
        else {
            "index": divergence.index,
            "seat": divergence.seat,
            "kind": divergence.kind,
            "a": _choice_json(divergence.a),
            "b": _choice_json(divergence.b),
        },
    }


def _choice_json(choice: Choice) -> dict[str, Any]:
    return {"step": choice.step, "action": choice.action, "card": choice.card}


def pair_comparison(
    request: Request, match_key: str, pair: int, hand: int | None = None
) -> PairComparison:
    """Pair ``pair`` of match ``match_key`` compared, ``hand`` (by default the first that
    diverged) shown in full.

    Raises:
        NotFound: no such match, pair or hand.
        RecordError: a record of the pair cannot be read or walked.
    """
    match, keys = _pair_games(request, match_key, pair)
    steps = [cached_timeline(request, key)["steps"] for key in keys]
    hands = compare_hands(*steps)
    if hand is None:
        first = next((line.hand for line in hands if line.divergence), None)
        hand = first if first is not None else (hands[0].hand if hands else None)
    shown = next((line for line in hands if line.hand == hand), None)
    if hand is not None and shown is None:
        raise NotFound(f"no hand {hand} in pair {pair}: its games have {len(hands)}")
    analysis = None
    if shown is not None and shown.divergence is not None:
        played = 0 if shown.divergence.a.action is not None else 1
        record = request.app.state.source.record(keys[played])
        analysis = analyse(record, shown.hand, shown.divergence)
    return PairComparison(match, pair, keys, hands, shown, analysis)


def _pair_games(request: Request, key: str, pair: int) -> tuple[models.MatchOut, tuple[str, str]]:
    """Match ``key`` and the keys of pair ``pair``'s two games, ``-a`` first.

    Raises:
        NotFound: no such match, or the pair has not both games.
    """
    source = request.app.state.source
    if isinstance(source, FolderSource):
        header = source.match(key)
        listed, _ = source.match_games(key, 0, MOST_GAMES)
        match, games = (
            models.MatchOut.model_validate(header),
            {game.game: game.key for game in listed},
        )
    elif isinstance(source, LadderSource):
        found = source.match(key)
        infos = source.match_games(found.id)
        match, games = (
            models.MatchOut.model_validate(found),
            {info.game_id: str(info.id) for info in infos},
        )
    else:
        raise NotFound("this server shows no matches")
    ids = [f"pair-{pair:05d}-{side}" for side in SIDES]
    missing = [game for game in ids if game not in games]
    if missing:
        raise NotFound(f"no game {missing[0]} in match {key or source.title!r} to compare")
    return match, (games[ids[0]], games[ids[1]])
