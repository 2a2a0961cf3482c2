"""Startup: how long a ``pitch`` command takes before it does anything, against the floors.

Run by hand: ``uv run python bench/startup.py [--runs N] [--checkout PATH ...]``. Results
are recorded in ``bench/RESULTS.md``. Each checkout is a copy of this repository with its
own ``.venv`` (``uv sync`` there): to compare with an older commit, clone it, for example
``git clone /work/main /tmp/startup-before && git -C /tmp/startup-before checkout COMMIT
&& (cd /tmp/startup-before && uv sync)``, and pass both folders. Without ``--checkout``
the repository this file is in is measured.

Every command is run with the checkout's own interpreter and ``pitch`` script (not
through ``uv run``, which adds its own start-up), output discarded, ``--runs`` times; the
runs of all commands and checkouts are interleaved so that a busy moment of the machine
falls on all of them alike. Each is reported as the median and the minimum wall-clock
time, and the median CPU time (user + system): on a loaded machine a start-up waits for
a core, and its CPU time is the better guess of its wall-clock time on a quiet one.

The floors: ``python -c pass`` (the interpreter), ``python -c "import typer"`` (the CLI
framework, which every command needs) and ``python -c "import typer.rich_utils"``
(Typer's rich help formatter, which imports rich with its Markdown and traceback
support: a help screen that uses it pays it; ``pitch`` shows Click's plain help). Then
``-X importtime`` runs of each ``pitch`` command (the quickest of ``--profiles``) give the
packages that cost the most (import time spent in each package's own modules, its
dependencies counted apart) and whether the database layer, gRPC or numpy was loaded at
all.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
HEAVY = ("sqlmodel", "sqlalchemy", "alembic", "grpc", "google", "numpy")
"""Packages a command should load only when it needs them (``google`` is protobuf)."""


def commands(record: Path) -> list[tuple[str, list[str]]]:
    """(label, argv after the interpreter); ``pitch`` is the checkout's console script."""
    return [
        ("python -c pass", ["-c", "pass"]),
        ('python -c "import typer"', ["-c", "import typer"]),
        ('python -c "import typer.rich_utils"', ["-c", "import typer.rich_utils"]),
        ("pitch --help", ["PITCH", "--help"]),
        ("pitch replay RECORD", ["PITCH", "replay", str(record)]),
        ("pitch check --help", ["PITCH", "check", "--help"]),
        ("pitch ladder --help", ["PITCH", "ladder", "--help"]),
    ]


def argv(checkout: Path, args: list[str]) -> list[str]:
    python = checkout / ".venv" / "bin" / "python"
    pitch = checkout / ".venv" / "bin" / "pitch"
    return [str(python), *(str(pitch) if a == "PITCH" else a for a in args)]


def make_record(checkout: Path, folder: Path) -> Path:
    """One game's record, written by the checkout's own ``pitch simulate``."""
    subprocess.run(
        argv(checkout, ["PITCH", "simulate", "--games", "1", "--seed", "3", "--out", str(folder)]),
        check=True,
        capture_output=True,
    )
    return next(folder.glob("game-*"))


def run_once(command: list[str]) -> tuple[float, float]:
    """The command's wall-clock time and its CPU time (user + system), in seconds."""
    cpu_before = _children_cpu()
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr.decode()}")
    return elapsed, _children_cpu() - cpu_before


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def import_profile(command: list[str]) -> tuple[float, dict[str, float]]:
    """Total import time (s) and each top-level package's own import time (s), one run."""
    done = subprocess.run(command, capture_output=True, text=True, env=ENV)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr}")
    per_package: dict[str, float] = {}
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, _cumulative, name = line.removeprefix("import time:").split("|")
        package = name.strip().split(".")[0]
        per_package[package] = per_package.get(package, 0.0) + int(self_us) / 1e6
    return sum(per_package.values()), per_package


ENV = {**os.environ, "COLUMNS": "100", "NO_COLOR": "1"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="Runs of each command.")
    parser.add_argument(
        "--profiles", type=int, default=5, help="-X importtime runs of each pitch command."
    )
    parser.add_argument(
        "--checkout",
        type=Path,
        action="append",
        help="A checkout with its .venv (repeat to compare); default: this repository.",
    )
    args = parser.parse_args()
    checkouts = [path.resolve() for path in args.checkout or [HERE]]
    load = os.getloadavg()
    print(f"{os.cpu_count()} cores, load average {load[0]:.2f} at the start")

    with tempfile.TemporaryDirectory() as tmp:
        plans = {}
        for number, checkout in enumerate(checkouts):
            record = make_record(checkout, Path(tmp) / str(number))
            plans[checkout] = [(label, argv(checkout, c)) for label, c in commands(record)]
        times: dict[tuple[Path, str], list[tuple[float, float]]] = {}
        for _ in range(args.runs):
            for checkout, plan in plans.items():
                for label, command in plan:
                    times.setdefault((checkout, label), []).append(run_once(command))
        print(f"load average {os.getloadavg()[0]:.2f} at the end of {args.runs} runs\n")

        labels = [label for label, _ in next(iter(plans.values()))]
        header = " | ".join(f"{c}: median / min (CPU)" for c in checkouts)
        print(f"| command | {header} |")
        print("|---|" + "---|" * len(checkouts))
        for label in labels:
            cells = []
            for checkout in checkouts:
                walls, cpus = zip(*times[(checkout, label)], strict=True)
                cells.append(
                    f"{statistics.median(walls):.3f} / {min(walls):.3f} s "
                    f"({statistics.median(cpus):.3f} s)"
                )
            print(f"| `{label}` | {' | '.join(cells)} |")

        for checkout, plan in plans.items():
            print(f"\n{checkout}: -X importtime, each package's own import time")
            for label, command in plan:
                if not label.startswith("pitch"):
                    continue
                profiled = [command[0], "-X", "importtime", *command[1:]]
                total, per_package = min(
                    (import_profile(profiled) for _ in range(args.profiles)),
                    key=lambda profile: profile[0],
                )
                top = sorted(per_package.items(), key=lambda item: -item[1])[:8]
                loaded = [name for name in HEAVY if name in per_package] or ["none"]
                print(
                    f"- `{label}`: {total:.3f} s of imports; "
                    + ", ".join(f"{name} {seconds:.3f}" for name, seconds in top)
                    + f"; heavy packages loaded: {', '.join(loaded)}"
                )


if __name__ == "__main__":
    sys.exit(main())
