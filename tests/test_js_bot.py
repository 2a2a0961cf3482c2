"""The JavaScript starter kit (`sample_bots/js`): a Node.js bot that plays like the greedy bot.

The kit is a port of the greedy bot's heuristic, so the Python bot is its oracle: fed the
same real requests, through the protocol's bytes, it must answer exactly as greedy does.
Any of the traps a non-Python client falls into (a zero left out of a decoded message, a
card mask read with 32-bit or double arithmetic, a request id rounded on its way back)
makes some answer differ or fail.

These tests need Node.js. Without it they skip, unless ``PITCH_REQUIRE_NODE`` is set (as
``.ci/run`` does where Node is installed): then they fail. The kit's npm packages are
installed into ``sample_bots/js/node_modules`` when missing (``.ci/run`` installs them too).
"""

from __future__ import annotations

import base64
import json
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from pitch_ladder.archive import ArchiveLimits, pack
from pitch_ladder.submit import copy_bot
from pitch_referee.conformance import check_bot
from pitch_referee.match import Entrant, MatchSettings, run_match
from pitch_referee.sandbox import SandboxLimits
from pitch_sdk import reference
from pitch_sdk.bots import GreedyBot
from pitch_sdk.cards import POINTS, STRENGTH, TRUMPS
from pitch_sdk.protocol import messages as pb
from pitch_sdk.record import load_record
from pitch_sdk.rules import CHANCE, TERMINAL, GameState
from pitch_sdk.wire import action_from_proto, action_to_proto, view_to_proto
from pitch_testkit.sandbox import sandbox_or_skip

ROOT = Path(__file__).resolve().parents[1]
KIT = ROOT / "sample_bots" / "js"
GREEDY = reference.folder("greedy")
CONTRACT = ROOT / "proto" / "pitch" / "v1" / "pitch.proto"
NPM_INSTALL = ["install", "--no-package-lock", "--no-audit", "--no-fund", "--no-bin-links"]


@pytest.fixture(scope="module")
def sandbox() -> SandboxLimits:
    return sandbox_or_skip()


def _missing(reason: str) -> None:
    if os.environ.get("PITCH_REQUIRE_NODE"):
        pytest.fail(f"PITCH_REQUIRE_NODE is set, but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def node() -> str:
    """The ``node`` program (version 20 or later)."""
    program = shutil.which("node")
    if program is None:
        _missing("node is not installed: the JavaScript kit cannot run here")
    version = subprocess.run([program, "--version"], capture_output=True, text=True).stdout
    if int(version.lstrip("v").split(".")[0]) < 20:
        _missing(f"the JavaScript kit needs Node.js 20 or later, not {version.strip()}")
    return program


@pytest.fixture(scope="module")
def kit(node: str) -> Path:
    """The kit folder with its npm packages installed: ``npm install`` there unless
    ``npm ls`` finds every package of ``package.json`` already, in a version it accepts."""
    npm = shutil.which("npm")
    if npm is None:
        _missing("npm is not installed: the kit's packages cannot be checked or installed")
    listed = subprocess.run([npm, "ls"], cwd=KIT, capture_output=True, timeout=120)
    if listed.returncode != 0:
        done = subprocess.run(
            [npm, *NPM_INSTALL], cwd=KIT, capture_output=True, text=True, timeout=300
        )
        if done.returncode != 0:
            _missing(f"npm install failed in {KIT}:\n{done.stdout}{done.stderr}")
    return KIT


def _node_json(node: str, script: str, stdin: str = "") -> object:
    """Run a script in the kit's folder and read the JSON it prints."""
    done = subprocess.run(
        [node, "-e", script], cwd=KIT, input=stdin, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_kits_pitch_proto_is_an_up_to_date_copy_of_the_contract():
    # A submitted bot folder is copied alone, so the kit carries the contract with it.
    assert (KIT / "pitch.proto").read_bytes() == CONTRACT.read_bytes(), (
        f"sample_bots/js/pitch.proto is stale: cp {CONTRACT.relative_to(ROOT)} sample_bots/js/"
    )


def test_js_trump_tables_match_the_engines(node):
    tables = _node_json(
        node,
        'const { TABLES } = require("./cards");'
        "console.log(JSON.stringify(TABLES.map((t) => "
        "({ strength: t.strength, points: t.points, trumps: t.trumps.toString() }))));",
    )
    for suit, table in enumerate(tables):
        assert table["strength"] == list(STRENGTH[suit])
        assert table["points"] == list(POINTS[suit])
        assert int(table["trumps"]) == TRUMPS[suit]


def _requests(games: int, seed: int) -> tuple[list[pb.RefereeMessage], list[object]]:
    """Real decision requests and greedy's answer to each.

    The games wander (half the moves random, half greedy) so that discards, pick-ups and
    the partner's look come up, not only greedy's own lines. Request ids count down from
    2^64 - 1: far above 2^53, where a JavaScript Number can no longer hold every integer.
    """
    rng = random.Random(seed)
    greedy = GreedyBot(0)
    messages, expected = [], []
    for _ in range(games):
        state = GameState(first_dealer=rng.randrange(4))
        while (seat := state.current_seat()) != TERMINAL:
            if seat == CHANCE:
                state.deal(rng.sample(range(54), 54))
                continue
            legal = state.legal_actions()
            if len(legal) > 1:
                view = state.view(seat)
                request = pb.DecisionRequest(
                    request_id=2**64 - 1 - len(messages),
                    game_id="g",
                    view=view_to_proto(view),
                    legal_actions=[action_to_proto(action) for action in legal],
                )
                messages.append(pb.RefereeMessage(request=request))
                expected.append(greedy.decide(view))
            state.apply(
                rng.choice(legal) if rng.random() < 0.5 else greedy.decide(state.view(seat))
            )
    return messages, expected


_REPLY_EACH_LINE = """
const { reply, definition } = require("./bot");
const play = definition["pitch.v1.Referee"].Play;  // its (de)serializers: the wire's bytes
const lines = require("fs").readFileSync(0, "utf8").split("\\n").filter(Boolean);
const out = lines.map((line) => {
  const message = play.responseDeserialize(Buffer.from(line, "base64"));
  return play.requestSerialize(reply(message)).toString("base64");
});
console.log(JSON.stringify(out));
"""


def test_js_answers_real_requests_exactly_as_greedy_with_zeros_big_masks_and_64_bit_ids(kit, node):
    messages, expected = _requests(games=6, seed=5)
    kinds = {message.request.view.decision for message in messages}
    assert kinds == {1, 2, 3, 4, 5, 6}, "every decision kind should come up"
    stdin = "\n".join(base64.b64encode(m.SerializeToString()).decode() for m in messages)
    answers = _node_json(node, _REPLY_EACH_LINE, stdin)
    assert len(answers) == len(messages)
    differences, zero_answers = [], set()
    for message, greedy_action, encoded in zip(messages, expected, answers, strict=True):
        answer = pb.BotMessage.FromString(base64.b64decode(encoded)).answer
        assert answer.request_id == message.request.request_id  # echoed exactly
        # A pass is {bid: 0} and the two of clubs {play: 0}: the oneof must still be set.
        member = answer.action.WhichOneof("action")
        assert member is not None
        if member in ("bid", "trump", "play") and getattr(answer.action, member) == 0:
            zero_answers.add(member)
        if action_from_proto(answer.action) != greedy_action:
            view = message.request.view
            differences.append((view.decision, str(greedy_action), str(answer.action)))
    assert not differences, f"{len(differences)} of {len(messages)}: {differences[:5]}"
    assert zero_answers == {"bid", "trump", "play"}  # passes, clubs, the two of clubs


def test_the_installed_kit_packs_within_the_upload_limits_without_links_or_lock_file(kit, tmp_path):
    # pack() refuses what the arena's upload would: a symbolic link (npm's .bin links)
    # or more files or bytes than the limits allow.
    size = pack(kit, tmp_path / "jsbot.tar.gz")
    assert 0 < size <= ArchiveLimits().max_archive_bytes
    assert not (kit / "package-lock.json").exists()  # it would record download addresses


@pytest.mark.slow
def test_a_ladder_copy_of_the_kit_passes_pitch_check_in_the_sandbox(kit, sandbox, tmp_path):
    # The ladder copies a bot folder alone: the kit must run without the repository.
    copy = copy_bot(kit, tmp_path / "jsbot", "jsbot")
    assert copy.folder != kit and (copy.folder / "pitch.proto").is_file()
    report = check_bot(copy, sandbox=sandbox)
    assert report.ok, (report.failures, report.stopped, report.not_asked)
    assert all(kind.asked and not kind.failed for kind in report.kinds.values())


@pytest.mark.slow
def test_a_sandboxed_match_against_greedy_has_no_faults_and_mirrors_it_deal_for_deal(
    kit, sandbox, tmp_path
):
    settings = MatchSettings(games=4, seed=21, concurrency=2, sandbox="on")
    summary = run_match(
        Entrant.from_argument(str(kit)), Entrant.from_argument(str(GREEDY)),
        settings, tmp_path / "m", announce=lambda _: None,
    )  # fmt: skip
    assert summary.status == "finished" and summary.games_played == 4
    assert summary.faults == 0
    # Both deals of a pair are played with the teams swapped; a faithful port makes every
    # decision the same both times, so the two games are the same game.
    games = {game.game: _decisions(summary.record_path(game)) for game in summary.games}
    for pair in ("pair-00000", "pair-00001"):
        assert games[f"{pair}-a"] == games[f"{pair}-b"]


def _decisions(path: Path) -> list[tuple[int, str]]:
    record = load_record(path)
    assert not record.faults
    return [(d.seat, d.action) for hand in record.hands for d in hand.decisions]
