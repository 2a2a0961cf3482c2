"""A bot that attacks its host, one attack per mode, then plays randomly (for the sandbox tests).

Usage: python hostile_bot.py MODE [ARG...]. At its first decision it tries the attack
and writes one line to stderr, ``ATTACK <mode>: blocked (<why>)`` or
``ATTACK <mode>: SUCCEEDED (<what>)``, which the tests read from its log. It then keeps
playing, so that a blocked attack costs it nothing and the match goes on.
"""

from __future__ import annotations

import os
import signal
import socket
import sys
import time

from pitch_sdk.bots import RandomBot
from pitch_sdk.run import run
from pitch_sdk.views import PlayerView

MODE = sys.argv[1]
ARGS = sys.argv[2:]
MARKER = "pitch-hostile-daemon"
"""In the command line of every process an attack leaves behind, for the tests to look for."""


def report(outcome: str, detail: str) -> None:
    print(f"ATTACK {MODE}: {outcome} ({detail})", file=sys.stderr, flush=True)


def read_files() -> None:
    """Read each path given: another bot's folder, the ladder database, a record."""
    for path in ARGS:
        try:
            with open(path, "rb") as file:
                data = file.read(64)
        except OSError as error:
            report("blocked", f"{path}: {error.strerror}")
        else:
            report("SUCCEEDED", f"read {len(data)} bytes of {path}")


def write_files() -> None:
    """Write each path given, outside the scratch folder."""
    for path in ARGS:
        try:
            with open(path, "w") as file:
                file.write("pwned")
        except OSError as error:
            report("blocked", f"{path}: {error.strerror}")
        else:
            report("SUCCEEDED", f"wrote {path}")


def connect() -> None:
    """Connect to host:port pairs: the database, Redis, anything on the machine."""
    for target in ARGS:
        host, port = target.rsplit(":", 1)
        try:
            with socket.create_connection((host, int(port)), timeout=2):
                report("SUCCEEDED", f"connected to {target}")
        except OSError as error:
            report("blocked", f"{target}: {error.strerror or error}")


def environment() -> None:
    """Look for the referee's secrets in our environment."""
    leaked = [key for key in os.environ if key not in _EXPECTED_ENV]
    if leaked:
        report("SUCCEEDED", f"inherited {', '.join(sorted(leaked))}")
    else:
        report("blocked", f"only {', '.join(sorted(os.environ))}")


_EXPECTED_ENV = {
    "PITCH_ADDRESS",
    "PITCH_TOKEN",
    "PYTHONUNBUFFERED",
    "PATH",
    "HOME",
    "TMPDIR",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TZ",
    "PITCH_LOG_LEVEL",
    "GRPC_EXPERIMENTS",  # the referee's gRPC I/O path (pitch_sdk.grpc_io)
    "PWD",  # set by bubblewrap for the working folder, /bot
}


def processes() -> None:
    """Look for other processes: their tokens, their memory, anything to signal."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as file:
                environ = file.read()
            with open(f"/proc/{entry}/cmdline", "rb") as file:
                command = file.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if b"PITCH_TOKEN=" in environ and os.environ["PITCH_TOKEN"].encode() not in environ:
            found.append(f"another seat's token in {entry} ({command[:40]})")
        elif "pytest" in command or "pitch" in command.split("/")[-1]:
            found.append(f"the referee as {entry} ({command[:40]})")
    if found:
        report("SUCCEEDED", "; ".join(found))
    else:
        report("blocked", "no process but our own sandbox's")


def signal_pids() -> None:
    """SIGKILL each pid given (the referee's and the opponent's, as the host numbers them)."""
    for pid in ARGS:
        try:
            os.kill(int(pid), signal.SIGKILL)
        except OSError as error:
            report("blocked", f"kill {pid}: {error.strerror}")
        else:
            report("SUCCEEDED", f"killed {pid}")


def daemon() -> None:
    """Double-fork a detached process in a new session that tries to live for ever."""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.execv(sys.executable, [sys.executable, "-c", _FOREVER, MARKER])
        os._exit(0)
    report("blocked", "a daemon was started; the test checks it is gone after the match")


_FOREVER = "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(3600)"


def fork_bomb() -> None:
    """Fork until the kernel says no; the children sleep, holding their slots."""
    children = 0
    try:
        while children < 100_000:
            if os.fork() == 0:
                time.sleep(3600)
                os._exit(0)
            children += 1
    except OSError as error:
        report("blocked", f"fork failed after {children} children: {error.strerror}")
        return
    report("SUCCEEDED", f"{children} children")


def memory_hog() -> None:
    """Take 2 GiB and touch every page."""
    hoard = []
    for _ in range(2048):
        hoard.append(bytearray(1 << 20))
    report("SUCCEEDED", f"holding {len(hoard)} MiB")


def cpu_burner() -> None:
    """Start a detached process that spins for ever, to eat the opponent's CPU."""
    if os.fork() == 0:
        os.setsid()
        os.execv(sys.executable, [sys.executable, "-c", "while True: pass", MARKER])
    report("blocked", "a burner was started; the test measures the opponent's decision times")


def flood() -> None:
    """Write 50 MB of output."""
    chunk = "x" * (1 << 20)
    for _ in range(50):
        sys.stderr.write(chunk)
    sys.stderr.flush()
    report("blocked", "flooded; the test checks the log stayed capped")


ATTACKS = {
    "read": read_files,
    "write": write_files,
    "connect": connect,
    "environment": environment,
    "processes": processes,
    "signal": signal_pids,
    "daemon": daemon,
    "fork_bomb": fork_bomb,
    "memory_hog": memory_hog,
    "cpu_burner": cpu_burner,
    "flood": flood,
}


class Hostile(RandomBot):
    name = f"hostile-{MODE}"
    attacked = False

    def decide(self, view: PlayerView):
        if not self.attacked:
            self.attacked = True
            ATTACKS[MODE]()
        return super().decide(view)


if __name__ == "__main__":
    raise SystemExit(run(Hostile()))
