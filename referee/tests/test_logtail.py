"""Quoting a bot's output: its last lines, each cut to a width and marked, read as a stream."""

from __future__ import annotations

from pathlib import Path

from pitch_referee.logtail import LINE_BYTES, clip, exception_line, excerpt, log_tail


def test_three_huge_lines_are_quoted_in_a_few_hundred_bytes(tmp_path: Path) -> None:
    log = tmp_path / "bot.log"
    log.write_bytes((b"x" * 3 * 2**20 + b"\n") * 3)
    tail = log_tail(log, 20)
    cut = f"{'x' * LINE_BYTES}... [{3 * 2**20 - LINE_BYTES:,} more bytes]"
    assert tail == [cut] * 3
    assert sum(len(line) for line in tail) < 1_000


def test_the_last_lines_are_kept_whole_when_short(tmp_path: Path) -> None:
    log = tmp_path / "bot.log"
    log.write_bytes(b"".join(b"line %d\r\n" % number for number in range(30)) + b"\n\nlast")
    assert log_tail(log, 3) == ["line 28", "line 29", "last"]


def test_only_the_lines_after_the_last_mark_are_quoted(tmp_path: Path) -> None:
    log = tmp_path / "bot.log"
    log.write_text("--- start ---\nfirst run\n--- start ---\nsecond run\ncrashed\n")
    assert log_tail(log, 10, after="--- start ---") == ["second run", "crashed"]
    assert log_tail(log, 10, after="--- never ---")[0] == "--- start ---"


def test_a_cut_never_splits_a_character_and_bad_bytes_are_replaced(tmp_path: Path) -> None:
    log = tmp_path / "bot.log"
    log.write_bytes("é".encode() * 10 + b"\n\xff\xfe ok\n")
    assert log_tail(log, 5, width=5) == ["éé... [15 more bytes]", "\ufffd\ufffd ok"]


def test_a_missing_log_has_no_lines(tmp_path: Path) -> None:
    assert log_tail(tmp_path / "nowhere.log", 5) == []


def test_clip_marks_what_it_cut() -> None:
    assert clip("abc" * 100, 10) == "abcabcabca... [290 more bytes]"
    assert clip("short") == "short"
    assert clip("caf\udce9") == "caf\ufffd"  # a database takes it
    assert clip("caf\udce9 \ud800") == "caf? ?"


PYTHON_DEATH = """\
2026-12-02 20:00:00,000 INFO game g0: playing seat 1
Traceback (most recent call last):
  File "/bot/bot.py", line 7, in decide
    raise ValueError("boom: at the table")
ValueError: boom: at the table
"""
NODE_DEATH = """\
/bot/bot.js:10
    throw new TypeError('no card');
    ^

TypeError: no card
    at decide (/bot/bot.js:10:11)
    at main (/bot/bot.js:20:3)

Node.js v20.11.0
"""


def test_the_exception_line_is_pythons_last_traceback_line_and_nodes_first_stack_line() -> None:
    assert exception_line(PYTHON_DEATH.splitlines()) == "ValueError: boom: at the table"
    assert exception_line(NODE_DEATH.splitlines()) == "TypeError: no card"


def test_output_without_a_traceback_names_no_exception() -> None:
    assert exception_line(["about to crash", "ready", "    indented"]) is None
    assert exception_line([]) is None


CRASH = """INFO game g0: playing seat 2
chose play 4C
{}Traceback (most recent call last):
  File "/bot/bot.py", line 29, in <module>
    raise SystemExit(run(Chatty()))
                     ^^^^^^^^^^^^^
  File "/venv/lib/python3.11/site-packages/pitch_sdk/run.py", line 58, in run
    return asyncio.run(_connect_and_play(bot, args.address, args.token))
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/usr/lib/python3.11/asyncio/runners.py", line 190, in run
    return runner.run(main)
  File "/usr/lib/python3.11/asyncio/base_events.py", line 653, in run_until_complete
    return future.result()
  File "/venv/lib/python3.11/site-packages/pitch_sdk/run.py", line 124, in _answer
    action = ask(bot, view_from_proto(request.view, legal), budget)
  File "/venv/lib/python3.11/site-packages/pitch_sdk/bot.py", line 109, in ask
    return bot.decide(view)
  File "/bot/bot.py", line 23, in decide
    raise ValueError("chatty gives up")
ValueError: chatty gives up
"""


def test_an_excerpt_of_a_crash_shows_the_bots_lines_and_exception_before_the_sdks_frames(
    tmp_path: Path,
) -> None:
    log = tmp_path / "bot.log"
    log.write_text(CRASH.format(""))
    shown = excerpt(log, 20)
    assert shown[:8] == [
        "INFO game g0: playing seat 2",
        "chose play 4C",
        "ValueError: chatty gives up",
        "Traceback (most recent call last):",
        '  File "/bot/bot.py", line 29, in <module>',
        "    raise SystemExit(run(Chatty()))",
        '  File "/bot/bot.py", line 23, in decide',
        '    raise ValueError("chatty gives up")',
    ]
    assert shown[8] == "(the frames of the SDK and libraries, last:)"
    assert all("/bot/" not in line and "^" not in line for line in shown[9:])


def test_an_excerpt_keeps_the_exception_and_the_bots_frames_when_its_lines_are_many(
    tmp_path: Path,
) -> None:
    log = tmp_path / "bot.log"
    log.write_text(CRASH.format("".join(f"thinking {n}\n" for n in range(100))))
    shown = excerpt(log, 8)
    assert shown[:2] == ["thinking 98", "thinking 99"]
    assert shown[2:4] == ["ValueError: chatty gives up", "Traceback (most recent call last):"]
    assert shown[-1] == '    raise ValueError("chatty gives up")'


def test_the_exception_line_is_the_end_of_the_last_traceback_or_a_nodes_error() -> None:
    assert exception_line(CRASH.format("").splitlines()) == "ValueError: chatty gives up"
    node = [
        "/bot/bot.js:10",
        '    throw new Error("boom");',
        "    ^",
        "",
        "Error: boom",
        "    at x",
    ]
    assert exception_line(node) == "Error: boom"
    assert exception_line(["all is well"]) is None
