"""Ladders on a Dask cluster: the local pool's games exactly, bots fetched once, and a
worker killed with -9 mid-run losing and duplicating nothing."""

from __future__ import annotations

import contextlib
import io
import os
import signal
import socket
import subprocess
import sys
import tarfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pitch_cli.cluster import ladder_executor
from pitch_ladder import importer
from pitch_ladder.ladder import Ladder
from pitch_ladder.pairing import PairingSettings
from pitch_ladder.scheduler import Scheduler, SchedulerSettings
from pitch_ladder.verify import seated
from pitch_ladder.vouched import VouchedRecords
from pitch_referee.live import JournalError, JournalReader, live_journals
from pitch_referee.match import (
    Entrant,
    GameOutcome,
    GameSpec,
    Job,
    MatchFolder,
    MatchSettings,
    WorkerError,
    run_match,
    schedule,
)
from pitch_sdk.bots import GreedyBot, RandomBot
from pitch_sdk.gamerecord import GameRecord as SdkGameRecord
from pitch_sdk.record import load_record, record_bytes
from pitch_sdk.selfplay import play_game
from pitch_testkit.ladder import (
    GREEDY,
    POSTGRES,
    RANDOM,
    assert_ended_by_the_database,
    cli,
    cli_error,
    cli_refusal,
    comparable_ladder,
    fresh_database,
    ladder_outcome,
    run_until_the_database_fails,
)

distributed = pytest.importorskip("distributed")

from pitch_ladder.cluster import ClusterError, ClusterWorkers, connect, owner, tasks  # noqa: E402
from pitch_ladder.cluster.bots import CACHE, BotRef, fetch_bot  # noqa: E402
from pitch_ladder.cluster.local import local_cluster  # noqa: E402

RUN = ["ladder", "run", "--rounds", "2", "--games-per-match", "12"]
"""Two rounds of one 12-game match (greedy vs random): 24 games, 12 deal pairs."""
GAMES = 24


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    """``pitch cluster local``'s cluster of two worker processes (a nanny restarts a
    killed one)."""
    with local_cluster(2) as local, distributed.Client(local, set_as_default=False) as client:
        yield client


def _outcome(
    folder: Path, db: str | None = None
) -> tuple[list[Any], dict[str, Any], dict[str, SdkGameRecord]]:
    """Every stored game, every bot's ratings (exact floats), and every record but for
    its times and log paths."""
    games, lines = ladder_outcome(folder, db)
    records = {
        path.relative_to(folder).as_posix(): _timeless(load_record(path))
        for path in folder.glob("matches/*/games/*.json*")
    }
    return games, lines, records


def _timeless(record: SdkGameRecord) -> SdkGameRecord:
    """A record without what differs between two plays of a game: times, log paths."""
    players = tuple(replace(player, log=None, cpu_ms=None) for player in record.players)
    hands = tuple(
        replace(hand, decisions=tuple(replace(d, ms=None) for d in hand.decisions))
        for hand in record.hands
    )
    return replace(record, players=players, hands=hands)


@pytest.fixture(scope="module")
def on_local_pool(tmp_path_factory: pytest.TempPathFactory) -> Any:
    folder = tmp_path_factory.mktemp("local") / "ladder"
    cli(*RUN, "--workers", "2", *comparable_ladder(folder))
    return _outcome(folder)


@pytest.mark.slow
@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="one core: nothing to pin apart")
def test_a_local_clusters_workers_are_pinned_each_to_a_core_of_its_own(cluster: Any) -> None:
    cores = cluster.run(lambda: sorted(os.sched_getaffinity(0)))
    assert sorted(len(pinned) for pinned in cores.values()) == [1, 1]
    assert len({pinned[0] for pinned in cores.values()}) == 2


@pytest.mark.slow
def test_a_round_robin_on_a_cluster_gives_the_local_pools_games_records_and_ratings(
    cluster: Any, on_local_pool: Any, tmp_path: Path
) -> None:
    folder = tmp_path / "ladder"
    cli(*RUN, "--cluster", cluster.scheduler.address, *comparable_ladder(folder))
    games, lines, records = _outcome(folder)
    assert len(games) == GAMES and len(records) == GAMES
    assert (games, lines, records) == on_local_pool
    logs = list(folder.glob("matches/*/logs/worker-*/A1-a-greedy.log"))
    assert logs, "the bots' logs come back with their games"


@pytest.mark.slow
def test_a_cluster_run_stores_its_workers_verified_records_without_replaying_them(
    cluster: Any, on_local_pool: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def replay(*_args: Any) -> str:
        raise AssertionError("the owner replayed a record its worker verified")

    monkeypatch.setattr(importer, "refusal", replay)
    folder = tmp_path / "ladder"
    cli(*RUN, "--cluster", cluster.scheduler.address, *comparable_ladder(folder))
    assert _outcome(folder) == on_local_pool


@pytest.mark.slow
def test_a_worker_fetches_each_bot_once_and_keeps_it_by_content_hash(tmp_path: Path) -> None:
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0"
        ) as local,
        distributed.Client(local, set_as_default=False) as client,
    ):
        workers = ClusterWorkers(client)
        a, b = Entrant.from_folder(GREEDY), Entrant.from_folder(RANDOM)
        quick = MatchSettings(games=6, seed=3, rules={"hand_cap": 2}, compress_records=False)
        for name in ("first", "second"):
            summary = run_match(a, b, quick, tmp_path / name, workers=workers)
            assert summary.games_played == 6
        cache = Path(next(iter(local.workers.values())).local_directory) / CACHE
        cached = sorted(entry.name for entry in cache.iterdir())
    assert sorted(workers.fetches) == cached and len(cached) == 2
    assert list(workers.fetches.values()) == [1, 1], "six pairs, two bots, one worker: two fetches"


@pytest.mark.slow
def test_a_worker_that_cannot_sandbox_the_bots_is_named_and_stores_no_forfeit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tasks, "unavailable_reason", lambda: "bubblewrap is not installed")
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0"
        ) as local,
        distributed.Client(local, set_as_default=False) as client,
    ):
        worker = next(iter(local.workers.values())).address
        a, b = Entrant.from_folder(GREEDY), Entrant.from_folder(RANDOM)
        sandboxed = MatchSettings(games=2, seed=3, sandbox="on")
        with pytest.raises(WorkerError, match=f"worker {worker} cannot sandbox the bots"):
            run_match(a, b, sandboxed, tmp_path / "m", workers=ClusterWorkers(client))
    assert not list((tmp_path / "m" / "games").iterdir())


def test_an_unreachable_scheduler_is_one_line_naming_it() -> None:
    with pytest.raises(
        ClusterError, match=r"cannot reach the Dask scheduler at tcp://127\.0\.0\.1:9 "
    ):
        connect("tcp://127.0.0.1:9", timeout_s=0.5)


@pytest.mark.parametrize("address", ["local", "127.0.0.1:8786", "tcp://127.0.0.1", "http://x:1"])
def test_a_mistyped_scheduler_address_is_refused_before_any_connection(address: str) -> None:
    with pytest.raises(ClusterError, match="is not a Dask scheduler address: give tcp://HOST"):
        connect(address)


@contextmanager
def _listener(answer: bytes | None) -> Iterator[str]:
    """A TCP server that is not Dask: it sends ``answer`` to each connection, or nothing."""
    server = socket.create_server(("127.0.0.1", 0))
    accepted: list[socket.socket] = []

    def serve() -> None:
        with contextlib.suppress(OSError):
            while True:
                connection, _ = server.accept()
                accepted.append(connection)
                if answer is not None:
                    connection.sendall(answer)

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    finally:
        server.close()
        for connection in accepted:
            connection.close()


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (b"HTTP/1.1 400 Bad Request\r\n\r\n" * 4, "it does not answer as a Dask scheduler"),
        (None, "no answer"),
    ],
    ids=["another-server", "silent"],
)
def test_a_listener_that_is_not_a_scheduler_is_one_line_without_the_clients_retries(
    answer: bytes | None, reason: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(owner, "PROBE_S", 0.5)
    with _listener(answer) as address, pytest.raises(ClusterError) as refused:
        connect(address)
    assert str(refused.value) == (
        f"cannot reach the Dask scheduler at {address} ({reason}); start one with "
        "`pitch cluster local` or `dask scheduler`"
    )


def test_pitch_match_on_a_mistyped_cluster_says_one_line_and_no_client_traceback() -> None:
    stderr = cli_error("match", GREEDY, RANDOM, "--games", "2", "--cluster", "local")
    assert stderr.strip().splitlines() == [
        "error: 'local' is not a Dask scheduler address: give tcp://HOST:PORT (8786 by "
        "default); `pitch cluster local` starts a scheduler and prints its address"
    ]


THREE_PAIRS_A_TASK = (
    "from pitch_cli import main\n"
    "from pitch_ladder.cluster import owner\n"
    "owner.pairs_a_task = lambda pairs, workers, matches: 3\n"
    "main()\n"
)
"""``pitch`` whose cluster tasks carry three deal pairs each (a 12-game match: two tasks)."""


@pytest.mark.slow
def test_a_worker_killed_mid_run_loses_and_duplicates_nothing(
    cluster: Any, on_local_pool: Any, tmp_path: Path, db_url: str
) -> None:
    _kill_a_worker_mid_run(cluster, ["-m", "pitch_cli"], tmp_path / "ladder", db_url)
    assert _outcome(tmp_path / "ladder", db_url) == on_local_pool


@pytest.mark.slow
def test_a_worker_killed_mid_task_of_three_pairs_loses_and_duplicates_nothing(
    on_local_pool: Any, tmp_path: Path
) -> None:
    """On a cluster of its own: a killed worker's nanny does not always bring it back,
    and the module's cluster serves the tests after this one."""
    with local_cluster(2) as local, distributed.Client(local, set_as_default=False) as client:
        _kill_a_worker_mid_run(client, ["-c", THREE_PAIRS_A_TASK], tmp_path / "ladder")
    assert _outcome(tmp_path / "ladder") == on_local_pool


def _kill_a_worker_mid_run(
    cluster: Any, pitch: list[str], folder: Path, db_url: str | None = None
) -> None:
    """``pitch`` (the arguments before ``RUN``) runs the ladder at ``folder`` on
    ``cluster``; a worker playing is killed once two records are in: the run still ends
    well."""
    where = comparable_ladder(folder, db_url)
    run = subprocess.Popen(
        [sys.executable, *pitch, *RUN, "--cluster", cluster.scheduler.address,
         *map(str, where)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while len(list(folder.glob("matches/*/games/*.json*"))) < 2:
            assert time.monotonic() < deadline and run.poll() is None, "the run made no progress"
            time.sleep(0.02)
        busy = [address for address, keys in cluster.processing().items() if keys]
        assert busy, "no worker was playing a pair"
        os.kill(cluster.run(os.getpid)[busy[0]], signal.SIGKILL)
        assert len(list(folder.glob("matches/*/games/*.json*"))) < GAMES, "killed too late"
        out, err = run.communicate(timeout=120)
    finally:
        run.kill()
    assert run.returncode == 0, out + err


@pytest.mark.slow
@pytest.mark.skipif(not POSTGRES, reason="PITCH_TEST_POSTGRES_URL is not set")
def test_a_database_failing_mid_run_stops_its_pairs_in_one_line_and_loses_nothing(
    cluster: Any, on_local_pool: Any, tmp_path: Path
) -> None:
    """The run ends at once, its matches' pairs cancelled on the cluster (a match thread
    left waiting for them kept the process from exiting), and the next run finishes its
    matches as if nothing had happened."""
    with fresh_database("postgresql", tmp_path) as url:
        folder = tmp_path / "ladder"
        comparable_ladder(folder, url)
        on_cluster = [*RUN, "--cluster", cluster.scheduler.address]
        ended = run_until_the_database_fails(on_cluster, folder, url, games=2)
        assert_ended_by_the_database(ended)
        assert len(list(folder.glob("matches/*/games/*.json*"))) < GAMES, "ended too late"
        cli(*on_cluster, "--ladder", folder, "--db", url)
        assert _outcome(folder, url) == on_local_pool


@pytest.mark.slow
def test_the_services_scheduler_plays_its_steps_on_a_cluster_as_on_the_local_pool(
    cluster: Any, tmp_path: Path
) -> None:
    """``pitch serve --cluster``: the scheduler's steps run as the cluster's tasks, and
    store what the local pool's would."""
    settings = SchedulerSettings(
        pairing=PairingSettings(matches=1, placement=0), games_per_match=4, rules={"hand_cap": 2}
    )
    outcomes = []
    for address in (None, cluster.scheduler.address):
        folder = tmp_path / ("cluster" if address else "local") / "ladder"
        comparable_ladder(folder)
        workers = None if address else 2
        with (
            Ladder.open(folder) as ladder,
            ladder_executor(address, workers) as (executor, count),
            Scheduler(ladder, settings, executor=executor, workers=count) as scheduler,
        ):
            steps = [scheduler.step() for _ in range(2)]
        assert [step.games for step in steps if step is not None] == [4, 4]
        outcomes.append(_outcome(folder))
    assert outcomes[0] == outcomes[1]


def test_workers_with_a_cluster_is_refused_since_the_cluster_decides(tmp_path: Path) -> None:
    cli("ladder", "init", "--ladder", tmp_path / "ladder")
    refusal = cli_refusal(
        "ladder", "run", "--cluster", "tcp://127.0.0.1:9", "--workers", "2",
        "--ladder", tmp_path / "ladder",
    )  # fmt: skip
    assert "--workers is for the local pool" in refusal


@pytest.mark.slow
def test_a_cluster_games_live_journal_reaches_the_owners_match_folder_over_dask_events(
    cluster: Any, tmp_path: Path
) -> None:
    """Workers send journal lines as events (no file is shared): the owner's live folder
    holds each game's journal while it is played, as its viewer reads them, and none after."""
    root = tmp_path / "m"
    settings = MatchSettings(games=2, seed=5, timing_grid_ms=20, sandbox="off")
    workers = ClusterWorkers(cluster)
    played = threading.Thread(
        target=run_match,
        args=(Entrant.from_folder(GREEDY), Entrant.from_folder(RANDOM), settings, root),
        kwargs={"workers": workers},
    )
    played.start()
    seen: dict[str, int] = {}
    while played.is_alive():
        for journal in live_journals(root):
            reader = JournalReader(root / "live" / f"{journal.game}.jsonl")
            with contextlib.suppress(FileNotFoundError, JournalError):
                reader.read()
                seen[journal.game] = max(seen.get(journal.game, 0), len(_decisions(reader)))
        time.sleep(0.05)
    played.join()
    games = {"pair-00000-a", "pair-00000-b"}
    assert seen and set(seen) <= games
    assert max(seen.values()) > 10  # decisions seen while the game went on
    assert not list((root / "live").glob("*.jsonl"))  # each closed with its record
    assert len(list((root / "games").iterdir())) == 2
    sent = [message for _, message in cluster.get_events(workers.journals.topic)]
    assert {message["game"] for message in sent} == games  # sent as events, not files


def _decisions(reader: JournalReader) -> list[Any]:
    return [d for hand in reader.record.hands for d in hand.decisions]


def _tar_gz(entries: list[tuple[tarfile.TarInfo, bytes | None]]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for info, data in entries:
            tar.addfile(info, None if data is None else io.BytesIO(data))
    return buffer.getvalue()


def _file(name: str, data: bytes) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    return info, data


def _link(name: str, target: str) -> tuple[tarfile.TarInfo, None]:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = tarfile.SYMTYPE, target
    return info, None


@pytest.mark.parametrize(
    ("entries", "refusal"),
    [
        (
            [_file("bot.toml", (GREEDY / "bot.toml").read_bytes()), _link("x", "/etc/passwd")],
            "is refused: ",
        ),
        (
            [_file("bot.toml", (GREEDY / "bot.toml").read_bytes()), _file("../up", b"x")],
            "is refused: ",
        ),
        ([_file("bot.toml", (GREEDY / "bot.toml").read_bytes())], "hashes to "),
    ],
    ids=["link", "path-out", "not-its-hash"],
)
def test_a_bot_fetched_by_hash_is_unpacked_with_the_upload_checks_and_cached_only_if_sound(
    cluster: Any, entries: list[Any], refusal: str
) -> None:
    digest = uuid.uuid4().hex * 2  # a content hash nothing hashes to
    ref = BotRef("evil", digest)
    cluster.publish_dataset(**{ref.dataset: _tar_gz(entries)})
    try:
        with pytest.raises(RuntimeError, match=f"the archive of evil {refusal}"):
            cluster.submit(fetch_bot, ref, pure=False).result()
        cached = cluster.run(
            lambda dask_worker: (Path(dask_worker.local_directory) / CACHE / digest).exists()
        )
        assert not any(cached.values())
    finally:
        cluster.unpublish_dataset(ref.dataset)


@given(st.integers(0, 2000), st.integers(1, 300), st.integers(1, 700))
def test_a_matchs_pairs_go_in_order_in_tasks_of_up_to_eight_four_tasks_a_worker_at_least(
    pairs: int, workers: int, matches: int
) -> None:
    """``matches`` matches like this one share the workers: four tasks a worker between
    them, unless a task is a single pair."""
    left = [[spec] for spec in range(pairs)]  # a pair per number, in schedule order
    size = owner.pairs_a_task(pairs, workers, matches)
    chunks = owner._chunks(left, size)  # type: ignore[arg-type]
    assert [pair for chunk in chunks for pair in chunk] == left
    assert 1 <= size <= owner.PAIRS_A_TASK and all(len(chunk) <= size for chunk in chunks)
    assert size == 1 or len(chunks) * matches >= 4 * workers
    assert owner.pairs_a_task(pairs, workers, matches + 1) >= size  # more matches: no fewer


def _verified_pair(tmp_path: Path) -> tuple[Any, list[GameSpec], list[Any]]:
    """A pair writer of a greedy-random match, the match's first pair, and that pair's
    games as a worker hands them back (played and verified)."""
    settings = MatchSettings(games=2, seed=11, rules={"hand_cap": 2})
    pair = schedule(settings)
    job = Job(
        Entrant.from_folder(GREEDY), Entrant.from_folder(RANDOM), settings, tmp_path, False, None
    )  # type: ignore[arg-type]
    games = []
    for spec in pair:
        names = seated(spec, tasks.job_lineup(job))
        bots = [
            (GreedyBot if name == "greedy" else RandomBot)(seat) for seat, name in enumerate(names)
        ]
        record = play_game(bots, spec.seed, settings.options(), spec.first_dealer)
        outcome = GameOutcome.from_record(spec, record)
        games.append(tasks.VerifiedGame.of(outcome, record, record_bytes(record, compress=False)))
    MatchFolder(tmp_path).games_dir.mkdir()
    return owner._PairWriter(MatchFolder(tmp_path), job, VouchedRecords()), pair, games


def test_the_owner_writes_a_pair_its_worker_verified_and_vouches_for_each_record(
    tmp_path: Path,
) -> None:
    writer, pair, games = _verified_pair(tmp_path)
    writer.write(tasks.PlayedPairs(games), [pair])
    for spec, game in zip(pair, games, strict=True):
        path = MatchFolder(tmp_path).record_path(spec)
        assert path.read_bytes() == game.data(compressed=False)  # as it came: not rewritten
        vouched = writer.vouched.take(path)
        assert vouched is not None and vouched.outcome == game.outcome
        assert vouched.packed == game.packed


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda game: replace(game, digest="0" * 64), "not those the worker verified"),
        (lambda game: replace(game, packed=game.packed[:40]), "came back damaged"),
        (lambda game: replace(game, players=game.players[::-1]), "not the game the schedule"),
        (lambda game: replace(game, seed=game.seed + "1"), "not the game the schedule"),
        (lambda game: replace(game, first_dealer=3 - game.first_dealer), "not the game the"),
        (
            lambda game: replace(
                game, outcome=replace(game.outcome, spec=replace(game.outcome.spec, pair=7))
            ),
            "is not a game of pair 0",
        ),
    ],
)
def test_a_pair_that_is_not_what_the_worker_verified_or_the_owner_asked_is_refused_whole(
    tmp_path: Path, change: Any, reason: str
) -> None:
    writer, pair, games = _verified_pair(tmp_path)
    with pytest.raises(WorkerError, match=reason):
        writer.write(tasks.PlayedPairs([games[0], change(games[1])]), [pair])
    assert not list(MatchFolder(tmp_path).games_dir.glob("*")) and len(writer.vouched) == 0
