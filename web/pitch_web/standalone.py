"""One game's viewer as a single HTML file: timeline, script and styles inlined.

``pitch replay RECORD --html FILE`` writes it, for a person to mail or attach: it opens
from disk with no server and no network (no external fonts, no requests at all). The
viewer is the site's own ``static/viewer.js`` and its styles, so the file and ``/view``
show a game the same way. Importing this module loads no web framework.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from pitch_sdk.gamerecord import GameRecord

from .timeline import timeline

STATIC = Path(__file__).parent / "static"
STYLES = ("site.css", "viewer.css")
SCRIPT = "viewer.js"


def script_json(data: Any) -> str:
    """JSON that is safe inside a ``<script>`` element (no ``</script>`` can end it early)."""
    text = json.dumps(data, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def standalone_html(
    record: GameRecord, *, game: str, hand: int | None = None, seat: int | None = None
) -> str:
    """The whole page for ``record``; it opens at ``hand`` and in ``seat``'s view if given."""
    return _page(timeline(record, game=game), game=game, hand=hand, seat=seat)


def _page(data: dict[str, Any], *, game: str, hand: int | None, seat: int | None) -> str:
    """The page around the timeline ``data``."""
    styles = "\n".join((STATIC / name).read_text() for name in STYLES)
    script = (STATIC / SCRIPT).read_text()
    if "</script" in script.lower():  # it would end the inline script early
        raise ValueError(f"{SCRIPT} holds '</script' and cannot be inlined")
    options = "".join(
        f' data-{name}="{value}"'
        for name, value in (("hand", hand), ("view", seat))
        if value is not None
    )
    title = html.escape(f"game {game} · Pitch Arena")
    return (
        "<!doctype html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{title}</title>\n<style>\n{styles}\n</style>\n</head>\n<body>\n"
        f'<header class="site"><span class="brand">Pitch Arena</span></header>\n'
        f'<main><div id="pitch-viewer" class="pv"{options}></div></main>\n'
        f'<script type="application/json" id="timeline-data">{script_json(data)}</script>\n'
        f"<script>\n{script}\n</script>\n</body>\n</html>\n"
    )


def write_standalone(
    record: GameRecord, path: Path, *, game: str, hand: int | None = None, seat: int | None = None
) -> str | None:
    """Write ``standalone_html(record, ...)`` to ``path`` (UTF-8); return the replay's
    discrepancy (``None``: the record replays), so the caller replays nothing itself."""
    data = timeline(record, game=game)
    Path(path).write_text(_page(data, game=game, hand=hand, seat=seat), encoding="utf-8")
    discrepancy: str | None = data["header"]["discrepancy"]
    return discrepancy
