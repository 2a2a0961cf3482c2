"""What the web application's answers cost: the standings and games-list API over a big
ladder, and how soon a long game's viewer page paints and can be used.

Run by hand (never by the tests)::

    uv run python bench/web.py                                  # 1,000 bots, 1,000,000 games
    uv run python bench/web.py --db sqlite,postgresql --postgres postgresql://USER@HOST/DB
    uv run python bench/web.py --sizes 100x10000 --no-viewer    # a quick look
    uv run python bench/web.py --only-viewer

Results go in ``bench/RESULTS.md`` under "## web". Targets: each API answer under 100 ms,
the viewer interactive within 1 s.

The ladder is ``bench/scale.py``'s synthetic one (its ``build``: the ladder's own tables,
one round robin, results from fixed strengths, a real one-hand record per game). Each
API call goes through the whole application (FastAPI's test client: routing, the
``Source``, the response models, JSON), median of ``--repeats``. Two standings reads are
timed on their own: the first read of a ladder with no fit kept (it fits the games), and
the first read after new games (the kept fit marked stale, as a new game makes it: the
kept fit is shown and a refit starts in the background, whose time is given too).

The viewer: a 200-hand game (greedy bots, a target no team reaches) served by uvicorn
from a folder, opened in Debian's Chromium through Playwright; the browser's own
timings (``performance``), from navigation start: first contentful paint, DOM interactive,
the end of the DOMContentLoaded handlers (the viewer boots there: the table drawn and
the controls listening) and the load event. After a first page of the site (which
starts the browser's and the server's work), the game's first load (the server makes
its timeline) on its own, then the median of ``--repeats`` fresh pages (the timeline
kept).
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scale import _postgres_schema, build
from sqlalchemy import delete
from sqlmodel import Session

from pitch_ladder.ladder import Ladder
from pitch_ladder.models import FitState
from pitch_sdk.bots import GreedyBot
from pitch_sdk.options import RuleOptions
from pitch_sdk.record import write_record
from pitch_sdk.selfplay import play_game
from pitch_web import create_app
from pitch_web.source import FolderSource, LadderSource

CHROMIUM = os.environ.get("PITCH_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
LONG_GAME = {"target": 10_000, "hand_cap": 200}


def median_ms(call: Callable[[], Any], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def api_times(folder: Path, url: str | None, repeats: int) -> dict[str, float]:
    """Milliseconds per API answer over the ladder in ``folder``."""
    from fastapi.testclient import TestClient

    source = LadderSource(folder, url)
    with Session(source.ladder.engine) as session:  # a ladder whose fit was never kept
        session.exec(delete(FitState))  # type: ignore[call-overload]
        session.commit()
    results: dict[str, float] = {}
    with TestClient(create_app(source)) as client:

        def get(path: str) -> Callable[[], Any]:
            def call() -> Any:
                response = client.get(path)
                assert response.status_code == 200, (path, response.text[:200])
                return response

            return call

        started = time.perf_counter()
        get("/api/standings")()
        results["standings, first read, no fit kept (fits the games)"] = (
            time.perf_counter() - started
        ) * 1000
        with Session(source.ladder.engine) as session:  # as a new game makes it: stale
            session.get_one(FitState, 1).through_game_id = -1
            session.commit()
        started = time.perf_counter()
        get("/api/standings")()
        results["standings, first read after new games (the kept fit; refits behind)"] = (
            time.perf_counter() - started
        ) * 1000
        source.refit.join()
        results["the background refit"] = (time.perf_counter() - started) * 1000
        newest = int(get("/api/games?limit=1")().json()["games"][0]["key"])
        middle = newest // 2
        calls = {
            "standings (kept fit)": "/api/standings",
            "games, newest 50": "/api/games",
            "games, 50 before the middle game": f"/api/games?before={middle}",
            "games, 50 at offset 10,000": "/api/games?offset=10000",
            "games of a bot, newest 50": "/api/games?bot=bot00001",
            "games of a bot it won": "/api/games?bot=bot00001&result=won",
            "games of a bot with faults (none)": "/api/games?bot=bot00001&fault=true",
            "games with faults (none)": "/api/games?fault=true",
            "matches, newest 50": "/api/matches",
            "matches of a bot": "/api/matches?bot=bot00001",
            "bots": "/api/bots",
            "a bot's page": "/api/bots/bot00001",
            "a bot's rating history": "/api/bots/bot00001/ratings",
            "a game's record": f"/api/games/{middle}",
        }
        for name, path in calls.items():
            results[name] = median_ms(get(path), repeats)
    source.close()
    return results


def long_game(folder: Path, rules: dict[str, int] = LONG_GAME) -> Path:
    """A game's record that lasts all of ``rules``' hands (the first seed whose game does;
    200 hands for the viewer's timings)."""
    options = RuleOptions.from_dict(rules)
    for seed in range(1, 50):
        record = play_game([GreedyBot(seat) for seat in range(4)], seed, options)
        if len(record.hands) == rules["hand_cap"]:
            path = folder / "long-game.json"
            write_record(record, path)
            return path
    raise SystemExit(f"no {rules['hand_cap']}-hand game in the first 49 seeds")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def viewer_times(repeats: int) -> dict[str, float]:
    """Milliseconds from navigation start to the viewer page's paint and readiness."""
    import uvicorn
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="pitch-web-viewer-") as scratch:
        record = long_game(Path(scratch))
        port = free_port()
        server = uvicorn.Server(
            uvicorn.Config(
                create_app(FolderSource(Path(scratch))),
                host="127.0.0.1",
                port=port,
                log_level="warning",
            )
        )
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        while not server.started:
            time.sleep(0.02)
        url = f"http://127.0.0.1:{port}/view/{record.name}"
        samples: dict[str, list[float]] = {}
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
                warm = browser.new_page()  # the browser's and the server's first page
                warm.goto(f"http://127.0.0.1:{port}/", wait_until="load")
                warm.close()
                for _ in range(repeats + 1):  # the first: the game's timeline is made
                    page = browser.new_page()
                    page.goto(url, wait_until="load")
                    timings = page.evaluate(
                        """() => {
                          const nav = performance.getEntriesByType('navigation')[0];
                          const paint = performance.getEntriesByName('first-contentful-paint')[0];
                          return {
                            'server answer (first byte)': nav.responseStart,
                            'first contentful paint': paint ? paint.startTime : null,
                            'DOM interactive': nav.domInteractive,
                            'interactive (the viewer booted)': nav.domContentLoadedEventEnd,
                            'load event end': nav.loadEventEnd,
                            'page bytes': nav.transferSize,
                          };
                        }"""
                    )
                    page.close()
                    for name, value in timings.items():
                        if value is not None:
                            samples.setdefault(name, []).append(float(value))
                browser.close()
        finally:
            server.should_exit = True
            thread.join(timeout=10)
        size = record.stat().st_size
    results = {name: statistics.median(values[1:]) for name, values in samples.items()}
    results |= {f"{name}, first load": values[0] for name, values in samples.items()}
    results["record bytes (plain JSON)"] = size
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000x1000000", help="BOTSxGAMES,...")
    parser.add_argument("--db", default="sqlite", help="sqlite, postgresql or both, by commas")
    parser.add_argument("--postgres", default=os.environ.get("PITCH_TEST_POSTGRES_URL"))
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--keep",
        type=Path,
        default=None,
        help="Keep SQLite ladders in this folder, and reuse one built there before.",
    )
    parser.add_argument("--no-viewer", action="store_true", help="Skip the viewer's timings.")
    parser.add_argument("--only-viewer", action="store_true", help="Only the viewer's timings.")
    args = parser.parse_args()
    table: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="pitch-web-") as empty:
        create_app(FolderSource(Path(empty)))  # the application imports: before a long build
    if not args.only_viewer:
        sizes = [tuple(map(int, size.split("x"))) for size in args.sizes.split(",")]
        with tempfile.TemporaryDirectory(prefix="pitch-web-") as scratch:
            for kind in args.db.split(","):
                for bots, games in sizes:
                    print(f"{kind}: {bots} bots, {games} games", flush=True)
                    table[f"{kind} {bots}/{games}"] = ladder_column(
                        kind, bots, games, args, args.keep or Path(scratch)
                    )
    if not args.no_viewer:
        print("viewer: a 200-hand game in Chromium", flush=True)
        viewer = viewer_times(args.repeats)
        for name, value in viewer.items():
            print(f"  {name}: {value:.0f}", flush=True)
    for column, results in table.items():
        print(f"\n{column}")
        for name, ms in results.items():
            print(f"  {name}: {ms:.1f} ms")
    if table:
        rows = list(next(iter(table.values())))
        print("\n| API answer (ms) | " + " | ".join(table) + " |")
        print("|---|" + "---|" * len(table))
        for row in rows:
            print(f"| {row} | " + " | ".join(f"{table[c][row]:.1f}" for c in table) + " |")


def ladder_column(
    kind: str, bots: int, games: int, args: argparse.Namespace, scratch: Path
) -> dict[str, float]:
    folder = scratch / f"{kind}-{bots}-{games}"
    built = folder / "built"
    url, drop = None, None
    if kind == "postgresql":
        if not args.postgres:
            raise SystemExit("--postgres URL (or PITCH_TEST_POSTGRES_URL) is needed")
        url, drop = _postgres_schema(args.postgres, scratch)
    try:
        if kind == "postgresql" or not built.exists():
            shutil.rmtree(folder, ignore_errors=True)
            started = time.perf_counter()
            with Ladder.init(folder, url) as ladder:
                build(ladder, bots, games)
            built.touch()
            print(f"  built in {time.perf_counter() - started:.0f} s", flush=True)
        results = api_times(folder, url, args.repeats)
        for name, ms in results.items():
            print(f"  {name}: {ms:.1f} ms", flush=True)
        return results
    finally:
        if drop is not None:
            drop()


if __name__ == "__main__":
    main()
