"""`pitch match --sprt`: help that fits 80 columns."""

from __future__ import annotations

import os
import subprocess
import sys


def test_match_help_fits_80_columns_without_cutting_a_word():
    done = subprocess.run(
        [sys.executable, "-m", "pitch_cli", "match", "--help"],
        capture_output=True, text=True, timeout=60, env={**os.environ, "COLUMNS": "80"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "…" not in done.stdout, done.stdout
    assert "elo0=0,elo1=20" in done.stdout
    assert max(len(line) for line in done.stdout.splitlines()) <= 80
