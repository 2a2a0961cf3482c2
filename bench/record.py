"""Record reading: load + replay per record, the dict record before against the typed one.

Run by hand: ``uv run python bench/record.py [--games N] [--repeats R] [--before COMMIT]``.
Results are recorded in ``bench/RESULTS.md`` (``## record``).

"Before" is the SDK's record reader at ``--before`` (``git show`` of its ``record.py`` and
``walk.py``, loaded beside the current SDK, whose engine both use), so both sides run in
one process, interleaved, on the same record files. Three readers are timed per record:

- **load**: the file to what a reader reads (``json.loads``; now also into the typed
  ``GameRecord``), and, with ``msgspec`` installed, into frozen ``msgspec.Struct``s;
- **check**: load, then the verdict (``replay`` before; ``pitch_sdk.replay.check`` now):
  the ladder's import, ``pitch analyze``;
- **view**: load, then every step (``replay`` then ``walk(record, until)`` before, two
  replays; ``replay_all`` now, one): the viewer's timeline, ``pitch replay``.
"""

import argparse
import importlib.util
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from pitch_sdk import record as typed_record
from pitch_sdk.actions import parse_action
from pitch_sdk.bots import GreedyBot, RandomBot
from pitch_sdk.gamerecord import GameRecord, parse_deck
from pitch_sdk.options import RuleOptions
from pitch_sdk.replay import check, replay_all
from pitch_sdk.selfplay import play_game

ROOT = Path(__file__).resolve().parent.parent


def old_module(commit: str, path: str, name: str, patch: dict[str, str]) -> ModuleType:
    """``path`` as it was at ``commit``, loaded as ``pitch_sdk.<name>`` (its relative
    imports reach today's engine), with ``patch``'s text replaced first."""
    source = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{commit}:{path}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for old, new in patch.items():
        source = source.replace(old, new)
    folder = Path(tempfile.mkdtemp(prefix="record-bench-"))
    file = folder / f"{name}.py"
    file.write_text(source)
    spec = importlib.util.spec_from_file_location(f"pitch_sdk.{name}", file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def msgspec_loader() -> Callable[[bytes], Any] | None:
    """A decoder of record JSON into frozen ``msgspec.Struct``s (actions and cards left as
    text: the typed record parses them too, so this is msgspec's lower bound). The
    module has no ``from __future__ import annotations``: msgspec reads these local
    classes' annotations at run time."""
    try:
        import msgspec
    except ImportError:
        return None

    class Player(msgspec.Struct, frozen=True):
        seat: int
        name: str
        version: str = ""
        log: str | None = None
        seed: int | str | None = None
        cpu_ms: float | None = None

    class Decision(msgspec.Struct, frozen=True):
        seat: int
        action: str
        forced: bool
        ms: float | None = None

    class Trick(msgspec.Struct, frozen=True):
        leader: int
        plays: tuple[tuple[int, str], ...]
        winner: int

    class Hand(msgspec.Struct, frozen=True):
        number: int
        dealer: int
        deck: tuple[str, ...]
        decisions: tuple[Decision, ...]
        bidder: int | None = None
        bid: int | None = None
        trump: str | None = None
        tricks: tuple[Trick, ...] | None = None
        points: tuple[int, int] | None = None
        dead: int | None = None
        scores: tuple[int, int] | None = None
        made: bool | None = None

    class Fault(msgspec.Struct, frozen=True):
        hand: int
        decision: int
        seat: int
        kind: str
        detail: str
        decision_kind: str | None = None
        elapsed_ms: float | None = None
        log: str | None = None

    class Result(msgspec.Struct, frozen=True):
        termination: str
        winner: int | None
        forfeited_by: int | None
        scores: tuple[int, int]
        hands: int

    class Record(msgspec.Struct, frozen=True):
        format: str
        version: int
        rules: dict[str, Any]
        seed: int | str | None
        first_dealer: int
        players: tuple[Player, ...]
        hands: tuple[Hand, ...]
        faults: tuple[Fault, ...]
        result: Result | None

    decoder = msgspec.json.Decoder(Record)
    return decoder.decode


def parsed(record: Any) -> list[Any]:
    """What the typed record parses beyond msgspec's decoding: each action, each deck."""
    return [
        (parse_deck(hand.deck), [parse_action(d.action) for d in hand.decisions])
        for hand in record.hands
    ]


def records(folder: Path, games: int) -> list[Path]:
    """``games`` full games (default rules, greedy against random), written as the
    referee writes them (``.json.gz``)."""
    paths = []
    for seed in range(games):
        bots = [GreedyBot(seed), RandomBot(seed), GreedyBot(seed), RandomBot(seed)]
        path = folder / f"game-{seed}.json.gz"
        typed_record.write_record(play_game(bots, seed, RuleOptions()), path)
        paths.append(path)
    return paths


def gunzipped(path: Path) -> bytes:
    import gzip

    return gzip.decompress(path.read_bytes())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=7, help="medians are shown")
    parser.add_argument("--before", default="aa63e2d", help="the commit of the dict reader")
    args = parser.parse_args()
    old = old_module(args.before, "sdk/pitch_sdk/record.py", "old_record", {})
    old_walk = old_module(
        args.before,
        "sdk/pitch_sdk/walk.py",
        "old_walk",
        {"from pitch_sdk.record import parse_deck": "from pitch_sdk.old_record import parse_deck"},
    )
    decode = msgspec_loader()
    folder = Path(tempfile.mkdtemp(prefix="record-bench-games-"))
    paths = records(folder, args.games)
    texts = [gunzipped(path) for path in paths]
    hands = sum(len(GameRecord.from_json(json.loads(text)).hands) for text in texts)

    def before_view(path: Path) -> None:
        loaded = old.load_record(path)
        verdict = old.replay(loaded)
        for _ in old_walk.walk(loaded, None if verdict.ok else verdict.state):
            pass

    def each(work: Callable[[Any], object], items: list[Any]) -> Callable[[], None]:
        def run() -> None:
            for item in items:
                work(item)

        return run

    timed: dict[str, Callable[[], None]] = {
        "load JSON text: dict (before)": each(json.loads, texts),
        "load JSON text: GameRecord dataclasses (after)": each(
            lambda text: GameRecord.from_json(json.loads(text)), texts
        ),
        "load file: dict (before)": each(old.load_record, paths),
        "load file: GameRecord (after)": each(typed_record.load_record, paths),
        "check: load + replay (before)": each(lambda p: old.replay(old.load_record(p)), paths),
        "check: load + check (after)": each(lambda p: check(typed_record.load_record(p)), paths),
        "view: load + replay + walk (before)": each(before_view, paths),
        "view: load + replay_all (after)": each(
            lambda p: replay_all(typed_record.load_record(p)), paths
        ),
    }
    if decode is not None:
        timed["load JSON text: msgspec Structs, no parsing of actions or cards"] = each(
            decode, texts
        )
        timed["load JSON text: msgspec Structs, then actions and decks parsed"] = each(
            lambda text: parsed(decode(text)), texts
        )
    times: dict[str, list[float]] = {name: [] for name in timed}
    for _ in range(args.repeats):
        for name, work in timed.items():  # interleaved: every reader in every repeat
            start = time.perf_counter()
            work()
            times[name].append((time.perf_counter() - start) / len(paths) * 1000)
    print(
        f"{len(paths)} records, {hands} hands ({hands / len(paths):.1f} a record), "
        f"{sum(map(len, texts)) / len(texts) / 1000:.1f} KB of JSON a record; "
        f"median of {args.repeats}, ms per record"
    )
    medians = {name: statistics.median(values) for name, values in times.items()}
    for name, value in medians.items():
        print(f"  {name:68} {value:8.3f}")
    pairs = [
        (
            "load JSON text",
            "load JSON text: dict (before)",
            "load JSON text: GameRecord dataclasses (after)",
        ),
        ("load file", "load file: dict (before)", "load file: GameRecord (after)"),
        ("check", "check: load + replay (before)", "check: load + check (after)"),
        ("view", "view: load + replay + walk (before)", "view: load + replay_all (after)"),
    ]
    for what, before, after in pairs:
        print(f"  after / before, {what}: {medians[after] / medians[before]:.2f}")
    if decode is not None:
        typed = medians["load JSON text: GameRecord dataclasses (after)"]
        for name in [name for name in medians if "msgspec" in name]:
            ratio = medians[name] / typed
            print(f"  msgspec / dataclasses, {name.split(': ', 1)[1]}: {ratio:.2f}")


if __name__ == "__main__":
    main()
