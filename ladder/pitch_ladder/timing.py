"""Does a bot's think time tell its partner about its hidden hand? A statistic over game
records, shown to admins on the bot's page (``GET /api/bots/{name}/timing``).

Partners can signal by answering slowly or quickly (docs/sandbox.md, "Timing between
partners"); the timing grid hides signals finer than a tick, and this looks for the
coarser ones in what every record keeps: each decision's ``ms``.

**The test.** The unit is a *hand* a seat of the bot played, not a decision: the
decisions of one hand share one hidden hand, so counting them apart would overstate the
evidence (an honest bot that thinks longer over a hard hand would look like many
independent slow answers). Hands of different deals are independent.

1. Each decision the bot was asked (``forced`` ones are not asked) and timed is put in a
   *stratum* of public facts: its kind (bid, trump, discard, pickup, stock, play) and
   the number of legal actions (from the engine, walked through the record). Honest bots
   take longer with more to choose from, and how many choices a seat has follows its
   cards (a bidder has more decisions; a seat with many trumps more plays), so comparing
   times only within a stratum keeps that from passing for a signal.
2. A decision is slow (+1) above its stratum's median time over all the examined
   decisions, fast (-1) below it, and neither (0) on it. A hand is slow when the mean of
   its decisions' signs is above 0, fast below 0; hands at 0 are left out.
3. The hidden hand is what the seat was dealt (nine cards, from the record's deck),
   the only thing it knows that nobody else does when it first decides. ``FEATURES``
   are 25 fixed yes/no facts of it: for each suit, holding its ace, jack, three or
   deuce, holding three or more of it, holding an odd number of it; and holding a joker.
4. For each feature, a two-sided Fisher exact test of the 2x2 table (slow or fast hand,
   feature or not): under the null hypothesis that the hand's speed does not depend on
   its cards beyond the strata, the p-value is exact whatever the times' distribution
   and however the machine's load varied. The smallest p-value, times the number of
   features (Bonferroni), is the bot's ``p``; it is flagged under ``THRESHOLD`` (1e-4,
   so a bot whose times do not follow its cards is flagged at most once in ten thousand
   checks). The hands are nearly, not quite, exchangeable: the two seats of a team hold
   cards of one deck, and the two games of a deal pair share their decks; the medians
   are of all the times, tested hands included, which the null hypothesis allows.

A pair that agrees on a feature outside this family (or signals with its partner's
cards, or something the table shows) escapes the test: it finds simple signals, and it
finds them all the more surely the more hands there are; it proves nothing by staying
quiet. Time a bot spends because of its cards, and honestly, also tells its partner
something; it is flagged all the same, and an admin reads the games.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from statistics import median
from typing import Any

from sqlmodel import Session, col, select

from pitch_sdk.gamerecord import GameRecord as SdkGameRecord
from pitch_sdk.replay import Step, replay

from .models import Bot, BotVersion, Game, GameRecord
from .standings import label_of
from .submissions import seat_versions

GAMES = 200
"""A version's newest games examined, at most: each one means reading a record."""
HANDS = 1000
"""A version's hands examined, at most (newest games first): walking a record through
the engine takes about 2 ms a hand, so a version costs at most about two seconds."""
VERSIONS = 3
"""A bot's newest versions examined, at most."""
THRESHOLD = 1e-4
"""A bot is flagged when its corrected p-value is below this."""
MIN_HANDS = 20
"""Fewer slow or fast hands than this are not tested (``p`` is ``None``)."""

_SUITS = "CDHS"
_RANKS = {"A": 12, "J": 9, "3": 1, "2": 0}
_JOKERS = frozenset({52, 53})


def _suit_features() -> list[tuple[str, Any]]:
    features: list[tuple[str, Any]] = []
    for suit, letter in enumerate(_SUITS):
        cards = range(13 * suit, 13 * suit + 13)
        for rank_name, rank in _RANKS.items():
            card = 13 * suit + rank
            features.append((f"holds {rank_name}{letter}", lambda hand, c=card: c in hand))
        features.append((f"3+ {letter}", lambda hand, cs=cards: sum(c in hand for c in cs) >= 3))
        features.append(
            (f"odd {letter}", lambda hand, cs=cards: sum(c in hand for c in cs) % 2 == 1)
        )
    features.append(("holds a joker", lambda hand: bool(hand & _JOKERS)))
    return features


FEATURES = _suit_features()
"""(name, test of a dealt hand as a set of card codes): the hidden facts tested."""

_KINDS = {"pass": "bid", "bid": "bid", "take": "stock", "leave": "stock", "stop": "stock"}


@dataclass(frozen=True)
class TimedHand:
    """One hand a seat of the bot played: its dealt cards and its timed decisions."""

    dealt: frozenset[int]
    decisions: tuple[tuple[tuple[str, int], float], ...]
    """(stratum: kind and number of legal actions, ms) of each decision it was asked."""


@dataclass(frozen=True)
class TimingCheck:
    """The statistic for one bot version."""

    games: int
    """Records examined."""
    decisions: int
    """Timed decisions of the bot in them."""
    hands: int
    """Hands tested (slow or fast)."""
    p: float | None
    """The Bonferroni-corrected p-value (``None``: fewer than ``MIN_HANDS`` hands)."""
    feature: str | None
    """The feature with the smallest p-value."""

    @property
    def flagged(self) -> bool:
        return self.p is not None and self.p < THRESHOLD


def dealt(deck: Sequence[int], dealer: int, seat: int) -> frozenset[int]:
    """The nine cards ``seat`` was dealt from ``deck`` (three at a time from the dealer's
    left: the ``k``-th seat gets positions ``12 r + 3 k + i``)."""
    k = (seat - dealer - 1) % 4
    return frozenset(deck[12 * r + 3 * k + i] for r in range(3) for i in range(3))


def timed_hands(record: SdkGameRecord, seats: Iterable[int]) -> list[TimedHand]:
    """The hands ``seats`` played in ``record``, replayed through the engine for the strata.

    A record that does not replay (it replayed cleanly when it was stored) gives the hands
    replayed to their end before its discrepancy."""
    seats = set(seats)
    found: list[TimedHand] = []
    timed: dict[int, list[tuple[tuple[str, int], float]]] = defaultdict(list)
    for step in replay(record):
        if not isinstance(step, Step):
            continue
        hand = record.hands[step.hand - 1]
        ms = hand.decisions[step.index].ms
        if step.seat in seats and not step.forced and ms is not None:
            word = str(step.action).split(" ", 1)[0]
            stratum = (_KINDS.get(word, word), len(step.before.legal_actions()))
            timed[step.seat].append((stratum, ms))
        if step.index == len(hand.decisions) - 1:  # the hand replayed to its end
            for seat, decisions in timed.items():
                found.append(TimedHand(dealt(hand.deck, hand.dealer, seat), tuple(decisions)))
            timed.clear()
    return found


def check(hands: Sequence[TimedHand], games: int) -> TimingCheck:
    """The test of the module's docstring over ``hands`` (from ``games`` records)."""
    times: dict[tuple[str, int], list[float]] = defaultdict(list)
    for hand in hands:
        for stratum, ms in hand.decisions:
            times[stratum].append(ms)
    middle = {stratum: median(values) for stratum, values in times.items()}
    speeds: list[tuple[bool, frozenset[int]]] = []
    for hand in hands:
        signs = sum((ms > middle[s]) - (ms < middle[s]) for s, ms in hand.decisions)
        if signs:
            speeds.append((signs > 0, hand.dealt))
    decisions = sum(len(values) for values in times.values())
    if len(speeds) < MIN_HANDS:
        return TimingCheck(games, decisions, len(speeds), None, None)
    best, name = 1.0, None
    for feature, test in FEATURES:
        table = [[0, 0], [0, 0]]
        for slow, cards in speeds:
            table[slow][bool(test(cards))] += 1
        p = fisher_exact(table)
        if p < best or name is None:
            best, name = p, feature
    return TimingCheck(games, decisions, len(speeds), min(1.0, best * len(FEATURES)), name)


def fisher_exact(table: Sequence[Sequence[int]]) -> float:
    """The two-sided p-value of Fisher's exact test of a 2x2 table: the probability,
    with the margins fixed, of a table no more likely than this one.

    >>> round(fisher_exact([[8, 2], [1, 5]]), 4)
    0.035
    """
    (a, b), (c, d) = table
    row, column, n = a + b, a + c, a + b + c + d

    def probability(x: int) -> float:
        return math.comb(column, x) * math.comb(n - column, row - x) / math.comb(n, row)

    observed = probability(a)
    low, high = max(0, row + column - n), min(row, column)
    total = sum(p for x in range(low, high + 1) if (p := probability(x)) <= observed * (1 + 1e-7))
    return min(1.0, total)


def check_records(
    records: Iterable[tuple[SdkGameRecord, Iterable[int]]], hands: int = HANDS
) -> TimingCheck:
    """The statistic over (record, the bot's seats in it) pairs, read until ``hands``
    hands of the bot are found."""
    found: list[TimedHand] = []
    games = 0
    for record, seats in records:
        if len(found) >= hands:
            break
        games += 1
        found.extend(timed_hands(record, seats))
    return check(found, games)


@dataclass(frozen=True)
class VersionTiming:
    """The statistic for one version of a bot, as the admin's route sends it."""

    version: str
    """Its label (``standings.label_of``)."""
    check: TimingCheck


_cache: dict[tuple[str, int, int, int], TimingCheck] = {}
"""(database, version, its newest game examined, games examined): the check, while that
holds."""
_CACHED = 256


def bot_timing(session: Session, bot: Bot, games: int = GAMES) -> list[VersionTiming]:
    """The statistic for each of ``bot``'s newest ``VERSIONS`` versions, newest first,
    over the version's newest ``games`` games: its seats in each, partners' games
    included (the slots of the game's match, ``submissions.seat_versions``)."""
    versions = session.exec(
        select(BotVersion)
        .where(BotVersion.bot_id == bot.id)
        .order_by(col(BotVersion.id).desc())
        .limit(VERSIONS)
    ).all()
    return [
        VersionTiming(
            label_of(row.manifest_version, row.content_hash), version_check(session, row.id, games)
        )
        for row in versions
        if row.id is not None
    ]


def version_check(session: Session, version: int, games: int = GAMES) -> TimingCheck:
    """The statistic for ``version`` over its newest ``games`` games, at most ``HANDS``
    of its hands (cached while the newest game and the count are the same)."""
    rows: dict[int, Game] = {}
    for column in (
        Game.a_version_id,
        Game.b_version_id,
        Game.a_partner_version_id,
        Game.b_partner_version_id,
    ):
        for game in session.exec(
            select(Game).where(col(column) == version).order_by(col(Game.id).desc()).limit(games)
        ):
            assert game.id is not None
            rows[game.id] = game
    newest = sorted(rows, reverse=True)[:games]
    key = (str(session.get_bind().engine.url), version, newest[0] if newest else 0, len(newest))
    if key in _cache:
        return _cache[key]
    records = session.exec(
        select(GameRecord.game_id, GameRecord.record)
        .where(col(GameRecord.game_id).in_(newest))
        .order_by(col(GameRecord.game_id).desc())
    )
    found = check_records(
        (SdkGameRecord.from_json(record), seats_of(rows[game], version)) for game, record in records
    )
    if len(_cache) >= _CACHED:
        _cache.clear()
    _cache[key] = found
    return found


def seats_of(game: Game, version: int) -> list[int]:
    """The seats ``version`` played in ``game``: its match's slots at the table as
    ``schedule.seats`` puts them (bot A's team at seats 0 and 2 when ``a_team`` is 0)."""
    slots = seat_versions(game)
    order = ("A1", "B1", "A2", "B2") if game.a_team == 0 else ("B1", "A1", "B2", "A2")
    return [seat for seat, slot in enumerate(order) if slots[slot] == version]
