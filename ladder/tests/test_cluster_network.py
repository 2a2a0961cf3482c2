"""A cluster across machines, for real: the scheduler, the owner and two workers each in a
network namespace of its own, joined by virtual ethernet on addresses of their own.

The scheduler and the workers also get a mount namespace of their own, with a private
tmpfs over this test run's temporary folder (pytest's base folder, where the owner's ladder
is): the owner's files are out of their sight, so bots reach the workers only by content
hash and records and live journals come back only over the network; the workers keep their
Dask files in that private folder. (Not a tmpfs over all of ``/tmp``: the project and its
environment may live there, as in a CI clone.) The owner keeps this machine's files (its
mount namespace is its own), as the operator's machine would.

Needs root (``ip netns``): skipped elsewhere, unless ``PITCH_REQUIRE_NETNS`` is set.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pitch_referee.live import live_journals
from pitch_testkit.ladder import cli, comparable_ladder, ladder_outcome

pytest.importorskip("distributed")

RUN = ["ladder", "run", "--rounds", "2", "--games-per-match", "12"]
"""Two rounds of one 12-game match (greedy vs random): 24 games, 12 deal pairs."""
GAMES = 24
SUBNET = "10.77.{}.{}"
SCHEDULER_PORT = 8786


def _netns_available() -> str | None:
    """Why network namespaces cannot be made here, or ``None``."""
    if os.geteuid() != 0:
        return "needs root for ip netns"
    name = f"pa-probe-{uuid.uuid4().hex[:6]}"
    made = subprocess.run(["ip", "netns", "add", name], capture_output=True, text=True)
    if made.returncode != 0:
        return f"ip netns add failed: {made.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", name], check=True)
    return None


_REASON = _netns_available()
if _REASON and not os.environ.get("PITCH_REQUIRE_NETNS"):
    pytest.skip(_REASON, allow_module_level=True)


def _ip(*args: str, netns: str | None = None) -> None:
    prefix = ["ip", "netns", "exec", netns] if netns else []
    subprocess.run([*prefix, "ip", *args], check=True, capture_output=True)


@dataclass
class Network:
    """A hub namespace with a bridge, and hosts plugged into it, each with its address."""

    tag: str = field(default_factory=lambda: uuid.uuid4().hex[:5])
    net: int = field(default_factory=lambda: 100 + os.getpid() % 100)
    hosts: dict[str, str] = field(default_factory=dict)
    processes: list[subprocess.Popen[str]] = field(default_factory=list)

    @property
    def hub(self) -> str:
        return f"pa-{self.tag}-hub"

    def __enter__(self) -> Network:
        subprocess.run(["ip", "netns", "add", self.hub], check=True)
        _ip("link", "add", "br0", "type", "bridge", netns=self.hub)
        _ip("link", "set", "br0", "up", netns=self.hub)
        return self

    def add(self, name: str) -> str:
        """A host ``name`` on the bridge: its namespace's name; its address in ``hosts``."""
        netns, number = f"pa-{self.tag}-{name}", len(self.hosts) + 1
        inside, outside = f"v{self.tag}{number}a", f"v{self.tag}{number}b"
        subprocess.run(["ip", "netns", "add", netns], check=True)
        _ip("link", "add", inside, "type", "veth", "peer", "name", outside)
        _ip("link", "set", inside, "netns", netns)
        _ip("link", "set", outside, "netns", self.hub)
        _ip("link", "set", outside, "master", "br0", "up", netns=self.hub)
        address = SUBNET.format(self.net, number)
        _ip("addr", "add", f"{address}/24", "dev", inside, netns=netns)
        _ip("link", "set", inside, "up", netns=netns)
        _ip("link", "set", "lo", "up", netns=netns)
        self.hosts[name] = address
        return netns

    def start(
        self, name: str, command: list[str], private: Path | None = None
    ) -> subprocess.Popen[str]:
        """``command`` on host ``name``, in a mount namespace of its own (and a tmpfs of
        its own over folder ``private``, if given), with its own host name."""
        mounts = f"mount -t tmpfs tmpfs {shlex.quote(str(private))} && " if private else ""
        script = f'{mounts}hostname {name} && exec "$@"'
        process = subprocess.Popen(
            ["ip", "netns", "exec", f"pa-{self.tag}-{name}",
             "unshare", "--mount", "--uts", "--propagation", "private", "--fork",
             "sh", "-c", script, name, *command],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )  # fmt: skip
        self.processes.append(process)
        return process

    def __exit__(self, *exc: object) -> None:
        for process in self.processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        for name in [*self.hosts, "hub"]:
            subprocess.run(["ip", "netns", "del", f"pa-{self.tag}-{name}"], check=False)


def _inside(process: subprocess.Popen[str]) -> int:
    """The process inside ``unshare --fork``'s namespaces: the one to enter."""
    children = Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split()
    return int(children[0])


@pytest.fixture(scope="module")
def on_local_pool(tmp_path_factory: pytest.TempPathFactory) -> Any:
    folder = tmp_path_factory.mktemp("local") / "ladder"
    cli(*RUN, "--workers", "2", *comparable_ladder(folder))
    return ladder_outcome(folder)


@pytest.fixture
def network(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Network, dict[str, subprocess.Popen[str]]]]:
    """The scheduler and two workers started, each on its host; the owner's host made."""
    dask = [sys.executable, "-m", "dask"]
    private = tmp_path_factory.getbasetemp()
    with Network() as net:
        for name in ("scheduler", "owner", "worker1", "worker2"):
            net.add(name)
        scheduler = f"tcp://{net.hosts['scheduler']}:{SCHEDULER_PORT}"
        started = {
            "scheduler": net.start(
                "scheduler",
                [*dask, "scheduler", "--host", net.hosts["scheduler"],
                 "--port", str(SCHEDULER_PORT), "--no-dashboard"],
                private,
            ),
        }  # fmt: skip
        for name in ("worker1", "worker2"):
            started[name] = net.start(
                name,
                [*dask, "worker", scheduler, "--host", net.hosts[name], "--nthreads", "1",
                 "--no-dashboard", "--local-directory", str(private / "dask"), "--name", name],
                private,
            )  # fmt: skip
        waited = net.start(
            "owner",
            [sys.executable, "-c",
             "import sys; from distributed import Client; "
             "Client(sys.argv[1], timeout=120).wait_for_workers(2, timeout=180)", scheduler],
        )  # fmt: skip
        out, _ = waited.communicate(timeout=300)
        if waited.returncode != 0:
            for process in started.values():  # what the scheduler and workers said
                if process.poll() is None:
                    os.killpg(process.pid, signal.SIGKILL)
                out += "".join(process.communicate()[0] or "")
        assert waited.returncode == 0, out
        yield net, started


@pytest.mark.slow
def test_a_cluster_across_network_namespaces_plays_every_game_once_through_a_worker_killed(
    network: tuple[Network, dict[str, subprocess.Popen[str]]],
    on_local_pool: Any,
    tmp_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    net, started = network
    folder = tmp_path / "ladder"
    where = comparable_ladder(folder)
    scheduler = f"tcp://{net.hosts['scheduler']}:{SCHEDULER_PORT}"
    run = net.start(
        "owner",
        [sys.executable, "-m", "pitch_cli", *RUN, "--cluster", scheduler, *map(str, where)],
    )
    live_seen: set[str] = set()
    deadline = time.monotonic() + 240
    while len(list(folder.glob("matches/*/games/*.json*"))) < 2:
        live_seen.update(j.game for m in folder.glob("matches/*") for j in live_journals(m))
        assert time.monotonic() < deadline and run.poll() is None, run.stdout and run.stdout.read()
        time.sleep(0.02)
    os.killpg(started["worker1"].pid, signal.SIGKILL)  # the whole machine goes
    assert len(list(folder.glob("matches/*/games/*.json*"))) < GAMES, "killed too late"
    while run.poll() is None:
        live_seen.update(j.game for m in folder.glob("matches/*") for j in live_journals(m))
        assert time.monotonic() < deadline, "the run did not finish"
        time.sleep(0.02)
    out = run.stdout.read() if run.stdout else ""
    assert run.returncode == 0, out

    assert ladder_outcome(folder) == on_local_pool  # every game, once, as played locally
    assert live_seen, "no live journal reached the owner while its games were played"
    assert not list(folder.glob("matches/*/live/*.jsonl"))
    fetched = subprocess.run(
        ["nsenter", "--target", str(_inside(started["worker2"])), "--mount",
         "find", str(tmp_path_factory.getbasetemp() / "dask"), "-path", "*/pitch-bots/*",
         "-name", "bot.toml"],
        capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    assert len(fetched) == 2, fetched  # both bots, by content hash, in the worker's own folder
    unseen = subprocess.run(
        ["nsenter", "--target", str(_inside(started["worker2"])), "--mount", "ls", str(folder)],
        capture_output=True,
    )  # fmt: skip
    assert unseen.returncode != 0, "the worker sees the owner's ladder folder"
