"""The documentation site builds with no warning (a broken link, a missing page or an API
reference entry that names nothing fails here, not on a reader's screen), and its pages
load nothing from another host."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_documentation_site_builds_strictly(tmp_path: Path) -> None:
    site = tmp_path / "site"
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        env=os.environ | {"NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr
    reference = (site / "reference" / "views" / "index.html").read_text()
    assert "pitch_sdk.views.PlayerView.legal_actions" in reference
    fetched = {
        f"{page.relative_to(site)}: {address}"
        for page in site.rglob("*.html")
        for address in re.findall(
            r'<(?:link|script)[^>]* (?:href|src)="(https?:[^"]*)"', page.read_text()
        )
    }
    assert not fetched, f"pages that load from another host (fonts, analytics): {sorted(fetched)}"
