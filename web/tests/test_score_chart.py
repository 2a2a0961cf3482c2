"""The geometry of the viewer's score chart (pitch_web.score_chart)."""

from __future__ import annotations

from pitch_web.hand_summary import HandRow
from pitch_web.score_chart import HEIGHT, MOST_LABELLED_BIDS, score_chart


def _hand(number: int, before: tuple[int, int], after: tuple[int, int], made: bool) -> HandRow:
    return HandRow(number, number * 20, 0, before, 1, 7, "S", made, (0, 0), after)


def test_no_chart_before_a_hand_is_scored_and_a_set_bid_is_marked_on_the_bidders_line():
    assert score_chart([HandRow(1, 0, 0, (0, 0), 1, 7)]) is None
    chart = score_chart([_hand(1, (0, 0), (5, -7), False), HandRow(2, 20, 1, (5, -7))])
    assert chart is not None and len(chart.marks) == 1  # the unscored hand is left out
    mark = chart.marks[0]
    assert (mark.team, mark.made, mark.step) == (1, False, 20)
    assert mark.y == max(float(p.split(",")[1]) for p in chart.lines[1].split())  # lowest
    assert 0 < chart.zero < HEIGHT and [t.label for t in chart.y_ticks] == [
        "-6",
        "-4",
        "-2",
        "0",
        "2",
        "4",
    ]


def test_the_bids_are_written_out_only_while_they_fit():
    rows = [_hand(n, (n - 1, 0), (n, 0), True) for n in range(1, MOST_LABELLED_BIDS + 2)]
    assert score_chart(rows[:MOST_LABELLED_BIDS]).label_bids
    assert not score_chart(rows).label_bids
