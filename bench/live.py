"""What publishing live games costs: games per second with and without the journal.

Run by hand: ``uv run python bench/live.py``. Results go in ``bench/RESULTS.md``.

1. In-process games (random bots at a ``Table``, no gRPC): the worst case, since the
   game itself costs least. Games alternate, with the journal (a ``JournalFeed`` per
   game, closed and so removed after it, as the match workers do) and without; the
   same seeds both ways.
2. Real matches (``run_match``: greedy against random over gRPC, concurrency 1, no
   sandbox): the journal, against a publisher whose feeds do nothing. The two set-ups
   alternate, ``--rounds`` times.
3. What a server pays to follow a game: reading a whole journal into a record
   (``JournalReader``), and the listing's cheap read (``Journal.read``); and what a
   stream adds to each event for the page's hand table and score chart
   (``live_hands.hands_update``: nothing changed, a hand dealt, a hand scored), against
   the timeline it replays for each new step. ``--following`` runs this part alone.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pitch_sdk import reference
from pitch_sdk.gamerecord import GameRecord


class NullFeed:
    """A feed that publishes nothing: the match without live games."""

    def __call__(self, event: object) -> None:
        pass

    def close(self) -> None:
        pass


class NullPublisher:
    def feed(self, game_id: str) -> NullFeed:
        return NullFeed()


class TimedPublisher:
    """The journal, with the time spent in its feeds (their events and their closing)
    added up: the match runs its one worker on a thread of this process."""

    def __init__(self, publisher: Any) -> None:
        self.publisher = publisher
        self.seconds = 0.0
        self.games = 0
        self.by_kind: dict[str, list[float]] = {}
        """Seconds and count, by event kind (and ``close``)."""

    def add(self, kind: str, seconds: float) -> None:
        self.seconds += seconds
        spent = self.by_kind.setdefault(kind, [0.0, 0])
        spent[0] += seconds
        spent[1] += 1

    def feed(self, game_id: str) -> Any:
        self.games += 1
        return TimedFeed(self.publisher.feed(game_id), self)


class TimedFeed:
    def __init__(self, feed: Any, publisher: TimedPublisher) -> None:
        self.feed = feed
        self.publisher = publisher

    def __call__(self, event: object) -> None:
        started = time.perf_counter()
        self.feed(event)
        self.publisher.add(type(event).__name__, time.perf_counter() - started)

    def close(self) -> None:
        started = time.perf_counter()
        self.feed.close()
        self.publisher.add("close", time.perf_counter() - started)


def in_process(games: int, folder: Path) -> dict[str, float]:
    from pitch_referee.live import JournalPublisher
    from pitch_sdk.bots import RandomBot
    from pitch_sdk.selfplay import BotPlayer
    from pitch_sdk.table import Table, play_in_process

    publisher = JournalPublisher.for_match(folder, 60)
    seconds = {"without": 0.0, "with": 0.0, "in the feed": 0.0}
    journal_bytes, events = [], 0

    def timed(feed: Any) -> Callable[[Any], None]:
        def watch(event: Any) -> None:
            nonlocal events
            started = time.perf_counter()
            feed(event)
            seconds["in the feed"] += time.perf_counter() - started
            events += 1

        return watch

    for game in range(games):
        for setup in ("without", "with") if game % 2 else ("with", "without"):
            feed = publisher.feed(f"pair-{game:05d}-a") if setup == "with" else None
            players = [BotPlayer(RandomBot(seat)) for seat in range(4)]
            table = Table(players, seed=game, watchers=[timed(feed)] if feed else ())
            started = time.perf_counter()
            play_in_process(table.play())
            if feed is not None:
                journal_bytes.append(feed.path.stat().st_size)
                feed.close()
            seconds[setup] += time.perf_counter() - started
    return {
        "games": games,
        "without_games_per_s": games / seconds["without"],
        "with_games_per_s": games / seconds["with"],
        "cost_ms_per_game": (seconds["with"] - seconds["without"]) / games * 1000,
        "feed_ms_per_game": seconds["in the feed"] / games * 1000,
        "feed_us_per_event": seconds["in the feed"] / events * 1e6,
        "events_per_game": events / games,
        "journal_kb": statistics.mean(journal_bytes) / 1024,
    }


def real_matches(games: int, rounds: int, folder: Path) -> tuple[dict[str, list[float]], Any]:
    from pitch_referee.match import Entrant, MatchSettings, run_match, running

    greedy = Entrant.from_argument(str(reference.folder("greedy")))
    random = Entrant.from_argument(str(reference.folder("random")))
    settings = MatchSettings(
        games=games, seed=1, concurrency=1, sandbox="off", rules={"hand_cap": 60}
    )
    journal = running.JournalPublisher.for_match
    made: list[TimedPublisher] = []

    def timed_journal(root: Path, silence: float) -> TimedPublisher:
        made.append(TimedPublisher(journal(root, silence)))
        return made[-1]

    def no_journal(root: Path, silence: float) -> NullPublisher:
        return NullPublisher()

    rates: dict[str, list[float]] = {
        "with": [],
        "without": [],
        "with_cpu_ms": [],
        "without_cpu_ms": [],
        "feed_ms_per_game": [],
    }
    for number in range(rounds):
        for setup in ("with", "without") if number % 2 == 0 else ("without", "with"):
            publish = timed_journal if setup == "with" else no_journal
            running.JournalPublisher.for_match = publish  # type: ignore[assignment, method-assign]
            try:
                started, cpu = time.perf_counter(), _cpu_seconds()
                root = folder / f"{setup}-{number}"
                summary = run_match(greedy, random, settings, root, announce=lambda _: None)
                rates[setup].append(summary.games_played / (time.perf_counter() - started))
                cpu_ms = (_cpu_seconds() - cpu) / summary.games_played * 1000
                rates[f"{setup}_cpu_ms"].append(cpu_ms)
            finally:
                running.JournalPublisher.for_match = journal  # type: ignore[method-assign]
            if setup == "with":
                rates["feed_ms_per_game"].append(made[-1].seconds / made[-1].games * 1000)
    by_kind: dict[str, list[float]] = {}
    for timed in made:
        for kind, (seconds, count) in timed.by_kind.items():
            total = by_kind.setdefault(kind, [0.0, 0])
            total[0] += seconds
            total[1] += count
    return rates, by_kind


def _cpu_seconds() -> float:
    """CPU time of this process (the referee) and its finished children (the bots, which
    a match reaps when it ends): less sensitive than the wall clock to a shared machine."""
    own, children = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def events_per_game(folder: Path) -> float:
    """Table events per game of the real matches with the journal: a start, a deal and a
    score per hand, a line per decision and per fault, and the end."""
    from pitch_sdk.record import load_record

    counts = []
    for path in folder.glob("with-*/games/*.json*"):
        record = load_record(path)
        hands = record.hands
        decisions = sum(len(hand.decisions) for hand in hands)
        counts.append(2 + 2 * len(hands) + decisions + len(record.faults))
    return statistics.mean(counts)


def following(folder: Path) -> dict[str, float]:
    from pitch_referee.live import Journal, JournalPublisher, JournalReader
    from pitch_sdk.bots import RandomBot
    from pitch_sdk.selfplay import BotPlayer
    from pitch_sdk.table import Table, play_in_process

    feed = JournalPublisher.for_match(folder, 60).feed("pair-00000-a")
    players = [BotPlayer(RandomBot(seat)) for seat in range(4)]
    play_in_process(Table(players, seed=3, watchers=[feed]).play())
    replay, listing = [], []
    for _ in range(50):
        started = time.perf_counter()
        reader = JournalReader(feed.path)
        reader.read()
        replay.append(time.perf_counter() - started)
        started = time.perf_counter()
        Journal.read(feed.path)
        listing.append(time.perf_counter() - started)
    hands = len(reader.record.hands)
    feed.close()
    return {
        "hands": hands,
        "replay_ms": statistics.median(replay) * 1000,
        "listing_ms": statistics.median(listing) * 1000,
    } | hand_table_updates(reader.record)


def hand_table_updates(record: GameRecord, repeats: int = 20) -> dict[str, float]:
    """Milliseconds (medians) of the game's timeline, and of a stream's hand table
    update at its last hand: a step that changes no row, the hand's deal, its score."""
    from pitch_web.hand_summary import hand_rows
    from pitch_web.live_hands import hands_update
    from pitch_web.timeline import timeline

    def median_ms(call: Callable[[], object]) -> float:
        times = []
        for _ in range(repeats):
            started = time.perf_counter()
            call()
            times.append(time.perf_counter() - started)
        return statistics.median(times) * 1000

    data = timeline(record)
    steps, players = data["steps"], data["header"]["players"]
    deal = max(i for i, step in enumerate(steps) if step["k"] == "deal")
    scored = max(i for i, step in enumerate(steps) if "scored" in step)
    moments = {"unchanged": deal + 1, "dealt": deal, "scored": scored}
    result = {"timeline_ms": median_ms(lambda: timeline(record))}
    for name, at in moments.items():
        sent = hand_rows(steps[:at])
        result[f"{name}_ms"] = median_ms(
            lambda at=at, sent=sent: hands_update(steps[: at + 1], players, sent)
        )
    return result


def print_following(follow: dict[str, float]) -> None:
    print(
        f"following a {follow['hands']}-hand game: the whole journal replayed into a"
        f" record {follow['replay_ms']:.1f} ms, the listing's read"
        f" {follow['listing_ms']:.2f} ms (medians)"
    )
    timeline_ms = follow["timeline_ms"]
    updates = ", ".join(
        f"{name} {follow[f'{name}_ms']:.2f} ms ({follow[f'{name}_ms'] / timeline_ms:.1%})"
        for name in ("unchanged", "dealt", "scored")
    )
    print(
        f"its timeline {timeline_ms:.1f} ms; a stream's hand table update at its last hand:"
        f" {updates} of the timeline"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400, help="in-process games per set-up")
    parser.add_argument("--match-games", type=int, default=100, help="games per real match")
    parser.add_argument("--rounds", type=int, default=2, help="real matches per set-up")
    parser.add_argument("--following", action="store_true", help="part 3 alone")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        if options.following:
            print_following(following(folder / "follow"))
            return
        local = in_process(options.games, folder / "in-process")
        print(
            f"in-process, {local['games']} games each: without {local['without_games_per_s']:.1f}"
            f" games/s, with the journal {local['with_games_per_s']:.1f} games/s;"
            f" {local['cost_ms_per_game']:.2f} ms a game"
            f" ({local['with_games_per_s'] / local['without_games_per_s'] - 1:+.1%});"
            f" a journal holds {local['journal_kb']:.1f} KB"
        )
        print(
            f"in-process: time inside the feed {local['feed_ms_per_game']:.2f} ms a game,"
            f" {local['feed_us_per_event']:.1f} us an event"
            f" ({local['events_per_game']:.0f} events a game)"
        )
        rates, by_kind = real_matches(options.match_games, options.rounds, folder / "matches")
        for setup in ("with", "without"):
            shown = ", ".join(f"{value:.2f}" for value in rates[setup])
            cpu = ", ".join(f"{value:.1f}" for value in rates[f"{setup}_cpu_ms"])
            print(f"real matches {setup} the journal: {shown} games/s; CPU {cpu} ms a game")
        mean = {setup: statistics.mean(values) for setup, values in rates.items()}
        print(
            f"real matches: with / without {mean['with'] / mean['without']:.3f} games/s,"
            f" CPU a game {mean['with_cpu_ms'] - mean['without_cpu_ms']:+.1f} ms"
        )
        events = events_per_game(folder / "matches")
        print(
            f"real matches: {events:.0f} events a game; time inside the feed"
            f" {mean['feed_ms_per_game']:.2f} ms a game (its start and close included),"
            f" {1000 / mean['with']:.1f} ms a game in all"
        )
        kinds = ", ".join(
            f"{kind} {seconds / count * 1e6:.1f} us" for kind, (seconds, count) in by_kind.items()
        )
        print(f"real matches, inside the feed by event (mean): {kinds}")
        print_following(following(folder / "follow"))


if __name__ == "__main__":
    main()
