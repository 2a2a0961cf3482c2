"""Scratch folders: removed however their block ends, however deep; leftovers swept at
start, but never one that a running process holds."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pitch_ladder.errors import LadderError
from pitch_ladder.ladder import Ladder
from pitch_ladder.scratch import remove_tree, scratch_folder, sweep

PREFIXES = ("upload-", "submit-")


def _deep(folder: Path, depth: int) -> Path:
    made = folder
    for _ in range(depth):
        made /= "d"
        made.mkdir(parents=made == folder / "d")
    (made / "f").write_text("x")
    return made


def test_a_tree_1100_folders_deep_is_removed(tmp_path: Path) -> None:
    _deep(tmp_path / "tree", 1100)
    remove_tree(tmp_path / "tree")  # shutil.rmtree raised RecursionError and left it
    assert not (tmp_path / "tree").exists()


def test_removing_a_tree_removes_its_links_not_what_they_lead_to(tmp_path: Path) -> None:
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "keep.txt").write_text("keep")
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "door").symlink_to(tmp_path / "outside")
    (tmp_path / "link").symlink_to(tmp_path / "outside")
    remove_tree(tmp_path / "tree")
    remove_tree(tmp_path / "link")
    remove_tree(tmp_path / "missing")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["outside"]
    assert (tmp_path / "outside" / "keep.txt").read_text() == "keep"


@pytest.mark.parametrize("error", [KeyboardInterrupt, SystemExit, RuntimeError])
def test_a_scratch_folder_is_removed_however_its_block_ends(
    tmp_path: Path, error: type[BaseException]
) -> None:
    with pytest.raises(error), scratch_folder(tmp_path, "upload-") as scratch:
        _deep(scratch, 3)
        raise error()
    assert list(tmp_path.iterdir()) == []


_HOLDER = """
import sys
from pathlib import Path
from pitch_ladder.scratch import scratch_folder

with scratch_folder(Path(sys.argv[1]), "upload-") as scratch:
    print(scratch.name, flush=True)
    sys.stdin.read()
"""


def test_a_sweep_removes_leftovers_and_leaves_what_a_live_process_holds(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(_HOLDER), str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        held = holder.stdout.readline().strip()
        _deep(tmp_path / "upload-0123abcd", 1100)  # left by a server before the locks
        (tmp_path / "submit-greedy-ab12cd34").mkdir()  # its process killed: its lock free
        (tmp_path / "submit-greedy-ab12cd34.held").write_text("")
        (tmp_path / "upload-gone.held").write_text("")  # killed while cleaning up
        (tmp_path / "submit-greedy.lock").write_text("")  # a name's lock: not scratch
        (tmp_path / "something-else").mkdir()
        swept = sweep(tmp_path, PREFIXES)
        assert swept == ["submit-greedy-ab12cd34", "upload-0123abcd", "upload-gone"]
        assert sorted(path.name for path in tmp_path.iterdir()) == sorted(
            [held, f"{held}.held", "submit-greedy.lock", "something-else"]
        )
    finally:
        holder.communicate("")
    assert holder.returncode == 0
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "something-else",
        "submit-greedy.lock",
    ]


def test_ladder_run_sweeps_leftover_scratch_when_it_starts(tmp_path: Path) -> None:
    with Ladder.init(tmp_path / "ladder") as ladder:
        left = ladder.folder / "tmp" / "upload-0123abcd"
        _deep(left, 3)
        with pytest.raises(LadderError):  # no bots to play: it still swept on its way in
            ladder.run(trust_bots=True)
        assert not left.exists()
