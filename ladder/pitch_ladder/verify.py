"""Whether a game record found in a match folder may be stored in the ladder.

Match jobs hand their games to the ladder as files, and anything that can write the
match folder (a bot that is not sandboxed, a user, a bug) can write a file there. So the
ladder stores a record only if it is a game its own referee would have written for that
match: a game of the match's schedule, with the schedule's seed, first dealer and rules,
the match's bots in the right seats, and a result that the rules engine confirms by
replaying every hand.

What no check on a file can tell: whether each legal decision in it is the one the bot
made, or whether a forfeit it claims happened (the engine cannot replay a bot's fault).
Only keeping the bots away from the ladder folder (the sandbox) closes that.

Imports nothing from the rest of the ladder.
"""

from __future__ import annotations

from pitch_referee.match import GameSpec, MatchSettings
from pitch_sdk.gamerecord import GameRecord, Player
from pitch_sdk.record import record_result
from pitch_sdk.replay import check


def refusal(
    record: GameRecord,
    spec: GameSpec,
    settings: MatchSettings,
    lineup: tuple[str, str, str, str],
) -> str | None:
    """Why ``record`` may not be stored as game ``spec`` of the match of ``lineup`` (bot
    A, its partner, bot B, its partner: A twice for a same-bot team), or None.

    ``settings`` are the match's settings as the ladder scheduled them (the database's,
    not the folder's ``match.json``, which is a file like any other).
    """
    expected = {
        "seed": spec.seed,
        "first dealer": spec.first_dealer,
        "rules": settings.options().to_dict(),
        "players": seated(spec, lineup),
    }
    found = {
        "seed": record.seed,
        "first dealer": record.first_dealer,
        "rules": record.rules.to_dict(),
        "players": _names(record.players),
    }
    for what, value in expected.items():
        if found[what] != value:
            return f"its {what} {found[what]!r} is not the schedule's {value!r}"
    result = record_result(record)
    if result is None:
        return "it has no result"
    replayed = check(record)
    if not replayed.ok:
        return f"the engine disagrees with it ({replayed.discrepancy})"
    faults = result.faults
    if result.termination == "forfeit" and (not faults or faults[-1].seat != result.forfeited_by):
        return f"it claims a forfeit by seat {result.forfeited_by} without its fault"
    return None


def seated(spec: GameSpec, lineup: tuple[str, str, str, str]) -> list[str]:
    """The bot at each seat of game ``spec`` of the match of ``lineup`` (as ``refusal``)."""
    a, a_partner, b, b_partner = lineup
    a_seats, b_seats = (a, a_partner), (b, b_partner)  # a team's first seat, then its second
    return [(a_seats if seat % 2 == spec.a_team else b_seats)[seat // 2] for seat in range(4)]


def _names(players: tuple[Player, ...]) -> list[str] | None:
    """The name at each seat, or None if ``players`` is not one entry per seat in order."""
    if [player.seat for player in players] != list(range(len(players))):
        return None
    return [player.name for player in players]
