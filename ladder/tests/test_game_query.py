"""A ``GameQuery`` is built only from filters that some page of games can answer: the
CLI and the web refuse the same filters with the same one-line message."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pitch_ladder.errors import LadderError
from pitch_ladder.game_query import MAX_PAGE, RESULTS, GameQuery

names = st.none() | st.sampled_from(["alpha", "beta"])
results = st.none() | st.sampled_from([*RESULTS, "lose", ""])


@given(
    bot=names,
    version=st.none() | st.just("1.0"),
    result=results,
    limit=st.integers(-2, MAX_PAGE + 2),
    offset=st.integers(-2, 3),
)
def test_a_query_is_built_exactly_when_its_filters_can_be_answered(
    bot: str | None, version: str | None, result: str | None, limit: int, offset: int
) -> None:
    answerable = (
        1 <= limit <= MAX_PAGE
        and offset >= 0
        and (result is None or result in RESULTS)
        and (bot is not None or (version is None and result is None))
    )
    filters = {"bot": bot, "version": version, "result": result, "limit": limit, "offset": offset}
    if answerable:
        assert GameQuery(**filters) == GameQuery(**filters)  # a value: equal when built alike
    else:
        with pytest.raises(LadderError):
            GameQuery(**filters)


@pytest.mark.parametrize(
    ("filters", "message"),
    [
        ({"result": "won"}, "a version or result filter needs a bot: whose version, whose win?"),
        ({"bot": "alpha", "result": "lose"}, "result must be one of won, lost, drawn, not 'lose'"),
        ({"limit": 0}, f"--limit must be from 1 to {MAX_PAGE}, not 0"),
        ({"offset": -1}, "--offset must be 0 or more, not -1"),
    ],
)
def test_a_refused_query_says_which_filter_is_wrong(filters: dict[str, object], message: str):
    with pytest.raises(LadderError) as refused:
        GameQuery(**filters)  # type: ignore[arg-type]
    assert str(refused.value) == message


def test_filters_are_named_never_positional():
    with pytest.raises(TypeError):
        GameQuery("alpha")  # type: ignore[misc]
