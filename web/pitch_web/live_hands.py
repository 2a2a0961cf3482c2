"""A live page's hand table and score chart, grown as its game is played.

The page is drawn with the hands so far (``templates/viewer.html``); then each event of
its stream (``live``) carries what changed since the last: the table's rows from the
first that changed (a hand dealt, its contract, its trump, its score) and, once another
hand is scored, the score chart again. Both are the HTML of the game page's own
templates, so a live page and ``/view`` draw them with the same code, and the browser
only puts them in place (``static/live.js``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .hand_summary import HandRow, hand_rows
from .score_chart import score_chart
from .templates import templates


def hands_update(
    steps: Sequence[dict[str, Any]], players: Sequence[dict[str, Any]], sent: Sequence[HandRow]
) -> tuple[dict[str, Any] | None, list[HandRow]]:
    """What a page that shows the rows ``sent`` lacks to show the hands of ``steps``, and
    the rows it then shows.

    The update is None when nothing changed, else ``{"from": n, "rows": [html, ...]}``:
    the rows to put in place of the page's rows from the ``n``-th on, with ``"chart"``
    (the chart section's HTML, ``""`` before a hand is scored) when the scored hands
    changed.
    """
    rows = hand_rows(steps)
    if rows == list(sent):
        return None, rows
    first = next(
        (n for n, (new, old) in enumerate(zip(rows, sent, strict=False)) if new != old),
        min(len(rows), len(sent)),
    )
    # a template's macros are attributes made at run time, which Jinja's types cannot name
    row_macro = templates.env.get_template("_hand_row.html").module.hand_row  # type: ignore[attr-defined]
    update: dict[str, Any] = {
        "from": first,
        "rows": [str(row_macro(row, players)).strip() for row in rows[first:]],
    }
    if _scored(rows) != _scored(sent):
        chart = score_chart(rows)
        update["chart"] = (
            ""
            if chart is None
            else templates.env.get_template("_score_chart.html").render(chart=chart)
        )
    return update, rows


def _scored(rows: Sequence[HandRow]) -> list[HandRow]:
    return [row for row in rows if row.scores is not None]
