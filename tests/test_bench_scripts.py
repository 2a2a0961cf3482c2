"""Every benchmark script in ``bench/`` imports, and a cheap part of it runs.

The benchmarks are run by hand, now and then, so nothing else notices when an API they
use is renamed or changes shape: issue 23 made the game record a dataclass, and seven
scripts still indexed it as a dict (or stored it as JSON) until they were run. Here each
script is imported as a module (its ``main`` is not run: its measurements take minutes)
and, where it has one, a part that takes well under a second runs on a tiny input. The
parts that need bot processes, a cluster, a database or a browser are not run here:
running the script at its smallest size checks those (``bench/RESULTS.md``).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest

from pitch_sdk.bots import GreedyBot, RandomBot
from pitch_sdk.gamerecord import GameRecord
from pitch_sdk.options import RuleOptions
from pitch_sdk.record import load_record, write_record
from pitch_sdk.selfplay import play_game

BENCH = Path(__file__).resolve().parents[1] / "bench"
SCRIPTS = sorted(path.stem for path in BENCH.glob("*.py"))


@pytest.fixture(scope="module")
def bench() -> Iterator[Callable[[str], ModuleType]]:
    """Imports a script by its name, with ``bench/`` first on the path as when it runs
    (``service.py`` and ``web.py`` import ``scale`` and ``ladder`` so). Afterwards the
    path, the modules by those names and ``GRPC_EXPERIMENTS`` (which two scripts set as
    they are imported) are as they were."""
    grpc_io = os.environ.get("GRPC_EXPERIMENTS")
    kept = {name: sys.modules.pop(name) for name in SCRIPTS if name in sys.modules}
    sys.path.insert(0, str(BENCH))
    try:
        yield lambda name: __import__(name)
    finally:
        sys.path.remove(str(BENCH))
        for name in SCRIPTS:
            sys.modules.pop(name, None)
        sys.modules.update(kept)
        if grpc_io is None:
            os.environ.pop("GRPC_EXPERIMENTS", None)
        else:
            os.environ["GRPC_EXPERIMENTS"] = grpc_io


def _a_short_game() -> GameRecord:
    return play_game([RandomBot(seat) for seat in range(4)], 3, RuleOptions(hand_cap=3))


def _cluster(module: ModuleType, folder: Path) -> None:
    (folder / "games").mkdir()
    write_record(_a_short_game(), folder / "games" / "pair-00000-a.json")
    assert module.result_bytes(folder) > 1000


def _ddbot(module: ModuleType, _folder: Path) -> None:
    won, ours, theirs = module.solving_game(0, True, 1, 1, RuleOptions(hand_cap=1))
    assert won == (ours > theirs)


def _engine(module: ModuleType, _folder: Path) -> None:
    for keep_undo in (False, True):
        hands, decisions, _seconds = module.random_hands(0.01, 1, keep_undo)
        assert hands >= 1 and decisions > hands


def _env(module: ModuleType, _folder: Path) -> None:
    assert module.engine_decisions(0.01, 1)[0] > 0
    assert module.table_decisions(0.01, 1)[0] > 0
    assert module.decisions_per_step(1, 1) >= 1


def _live(module: ModuleType, folder: Path) -> None:
    record = _a_short_game()
    assert set(module.hand_table_updates(record, repeats=1)) >= {"timeline_ms", "scored_ms"}
    assert module.in_process(1, folder)["events_per_game"] > 0


def _match(module: ModuleType, _folder: Path) -> None:
    scores = module.a_scores(GreedyBot, RandomBot, 1, RuleOptions(hand_cap=2))
    assert all(score in (0.0, 0.5, 1.0) for score in scores)


def _montecarlo(module: ModuleType, _folder: Path) -> None:
    views = module.game_views(3, 1)
    assert len(views) == 3
    assert module.rates(views, 1)["samples/s"] > 0


def _record(module: ModuleType, folder: Path) -> None:
    (path,) = module.records(folder, 1)
    assert load_record(path).result is not None
    loader = module.msgspec_loader()  # msgspec is optional: the benchmark says so
    if loader is not None:
        assert module.parsed(loader(module.gunzipped(path)))


def _reference_scale(module: ModuleType, _folder: Path) -> None:
    assert 0.0 <= module.play_pair(("random", "greedy", 0)) <= 2.0


def _warm(module: ModuleType, folder: Path) -> None:
    copies = module.bot_copies(folder, 1)
    assert [copy.name for copy in copies] == [f"{name}-1" for name in module.SAMPLES]
    assert all((copy / "bot.toml").read_text().count(copy.name) == 1 for copy in copies)


CHEAP_PARTS: dict[str, Callable[[ModuleType, Path], None]] = {
    "analysis": lambda module, _: module.measure(1, 22, False),
    "choices": lambda module, _: module.solve_ms(1, 22),
    "cluster": _cluster,
    "compare": lambda module, _: module.measure(1, 22),
    "ddbot": _ddbot,
    "engine": _engine,
    "env": _env,
    "live": _live,
    "match": _match,
    "match_memory": lambda module, _: module._match_record(1),
    "montecarlo": _montecarlo,
    "record": _record,
    "reference_scale": _reference_scale,
    "scale": lambda module, _: json.dumps(module.record()),
    "warm": _warm,
    "web": lambda module, folder: load_record(
        module.long_game(folder, {"target": 10_000, "hand_cap": 2})
    ),
}
"""A part of each script that runs in well under a second, on a tiny input."""


@pytest.mark.parametrize("name", SCRIPTS)
def test_every_benchmark_imports_and_its_cheap_part_runs(
    bench: Callable[[str], ModuleType], name: str, tmp_path: Path
) -> None:
    module = bench(name)
    assert callable(module.main)
    part = CHEAP_PARTS.get(name)
    if part is not None:
        part(module, tmp_path)


def test_the_cheap_parts_are_of_benchmarks_that_exist() -> None:
    """A script renamed or removed must not leave its part silently unrun."""
    assert set(CHEAP_PARTS) <= set(SCRIPTS)
