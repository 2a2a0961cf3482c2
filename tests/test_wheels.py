"""The packages as a stranger gets them: wheels built with ``uv build``, installed into a
fresh virtual environment outside the workspace (no editable installs, the workspace not
on ``sys.path``, every command run from a folder outside the repository), and used from
there: a new bot, its check, a match against a bundled reference bot, and a submission to
a real ``pitch serve --ladder``.

One test for the whole path: each step needs the one before. uv's cache makes the install
take seconds; the match is two short games."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
WHEELS = ("pitch_sdk", "pitch_referee", "pitch_ladder", "pitch_web", "pitch_cli")
TEST_KIT = "pitch_testkit"
"""Built with the workspace's other members but never installed by a user: the tests' helpers."""
WORKSPACE_VARIABLES = ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "UV_PROJECT_ENVIRONMENT")
"""What would let the installed commands see the workspace: left out of their environment."""


def _environment() -> dict[str, str]:
    kept = {key: value for key, value in os.environ.items() if key not in WORKSPACE_VARIABLES}
    return {**kept, "PYTHONUNBUFFERED": "1"}


def _run(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``args`` in ``cwd``, outside the workspace's environment; failing on a failure."""
    done = subprocess.run(
        [str(arg) for arg in args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        env=_environment(),
    )
    assert done.returncode == 0, f"{args}: {done.stdout}{done.stderr}"
    return done


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A virtual environment with the project's wheels installed, and nothing else of it."""
    uv = shutil.which("uv")
    assert uv is not None, "uv is the project's one prerequisite besides Python"
    where = tmp_path_factory.mktemp("wheels")
    dist = where / "dist"
    _run(uv, "build", "--all-packages", "--wheel", "--out-dir", dist, cwd=ROOT)
    built = sorted(dist.glob("*.whl"))
    assert sorted(wheel.name.split("-")[0] for wheel in built) == sorted((*WHEELS, TEST_KIT))
    wheels = [wheel for wheel in built if wheel.name.split("-")[0] in WHEELS]
    venv = where / "venv"
    _run(uv, "venv", "--quiet", "--python", sys.executable, venv, cwd=where)
    _run(uv, "pip", "install", "--quiet", "--python", venv / "bin" / "python", *wheels, cwd=where)
    return venv


def test_the_installed_packages_come_from_the_wheels_not_the_workspace(venv: Path) -> None:
    code = "import sys, pitch_cli, pitch_sdk.reference as r; print(r.folder('greedy'), *sys.path)"
    shown = _run(venv / "bin" / "python", "-c", code, cwd=venv).stdout.split()
    site_packages = next(venv.glob("lib/python3*/site-packages"))
    assert Path(shown[0]) == site_packages.resolve() / "pitch_sdk" / "reference" / "greedy"
    assert not [path for path in shown[1:] if path.startswith(str(ROOT))]
    assert not list(site_packages.glob("*.pth")), "an editable install leaves a .pth file"


def test_a_stranger_makes_a_bot_checks_it_plays_greedy_and_submits_it(
    venv: Path, tmp_path: Path
) -> None:
    pitch = venv / "bin" / "pitch"
    home = tmp_path / "stranger"
    home.mkdir()
    assert "wrote mybot/" in _run(pitch, "new-bot", "mybot", cwd=home).stdout

    checked = _run(pitch, "check", "mybot", cwd=home).stdout
    assert checked.splitlines()[-1].startswith("passed: every one of the 19 positions"), checked

    played = _run(pitch, "match", "mybot", "@greedy", "--games", "2", "--seed", "1",
                  "--rule", "hand_cap=2", "--concurrency", "1", cwd=home).stdout  # fmt: skip
    assert "mybot 0.1 vs greedy 1.0: 2 of 2 games (finished)" in played, played

    arena = ["--ladder", home / "arena"]
    _run(pitch, "ladder", "init", *arena, cwd=home)
    token = _run(pitch, "ladder", "author", "add", "stranger", *arena, cwd=home).stdout
    (home / "stranger.token").write_text(token.strip().splitlines()[-1] + "\n")
    server = subprocess.Popen(
        [pitch, "serve", *arena, "--port", "0", "--no-scheduler"],
        cwd=home,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_environment(),
    )
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        assert " at http" in line, line
        address = line.split(" at ", 1)[1].split()[0]
        submitted = _run(pitch, "submit", "mybot", "--server", address,
                         "--token-file", "stranger.token", cwd=home).stdout  # fmt: skip
        assert "accepted: mybot 0.1" in submitted, submitted
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.communicate()
