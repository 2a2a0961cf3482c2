"""Uploaded bots: verdicts kept for their authors, and each author's reach limited to their
own bots (retiring them, reading their logs)."""

from __future__ import annotations

import io
import shutil
import tarfile
from pathlib import Path

import pytest

from pitch_ladder.archive import pack
from pitch_ladder.authors import ForbiddenError, add_author, authenticate
from pitch_ladder.errors import LadderError
from pitch_ladder.ladder import Ladder, NotInLadder
from pitch_ladder.models import Author
from pitch_ladder.submissions import (
    REASON_BYTES,
    _keep,
    bot_logs,
    open_log,
    open_submission_log,
    public_reason,
    retire_own,
    submission_logs,
    submit_upload,
    verdicts,
)
from pitch_testkit.ladder import GREEDY, RANDOM, write_bot

MANIFEST = b'name = "evil"\nversion = "1"\ncommand = ["python", "bot.py"]\n'
CRASHER = "import sys\nprint('segfault imminent', file=sys.stderr)\nsys.exit(3)\n"


def _author(ladder: Ladder, name: str, admin: bool = False) -> Author:
    return authenticate(ladder, add_author(ladder, name, admin=admin).token)


def _archive(folder: Path, tmp_path: Path) -> io.BytesIO:
    out = tmp_path / f"{folder.name}.tar.gz"
    pack(folder, out)
    return io.BytesIO(out.read_bytes())


@pytest.fixture
def ladder(tmp_path: Path):
    with Ladder.init(tmp_path / "ladder") as ladder:
        yield ladder


@pytest.mark.slow
def test_an_accepted_upload_is_stored_once_and_identical_content_again_is_a_no_op(
    ladder: Ladder, tmp_path: Path
) -> None:
    alice = _author(ladder, "alice")
    first = submit_upload(ladder, alice, _archive(GREEDY, tmp_path))
    again = submit_upload(ladder, alice, _archive(GREEDY, tmp_path))
    assert (first.accepted, first.new, first.bot) == (True, True, "greedy")
    assert (again.accepted, again.new, again.version) == (True, False, first.version)
    assert [bot.name for bot in ladder.bots()] == ["greedy"]
    left = [path.name for path in (ladder.folder / "tmp").iterdir()]
    assert left == ["submit-greedy.lock"], "the upload's scratch folders and locks are gone"


def _crafted(*names: str) -> io.BytesIO:
    upload = io.BytesIO()
    with tarfile.open(
        fileobj=upload, mode="w:gz", format=tarfile.GNU_FORMAT, errors="surrogateescape"
    ) as tar:
        for name, data in [("bot.toml", MANIFEST), *((name, b"x") for name in names)]:
            entry = tarfile.TarInfo(name)
            entry.size = len(data)
            tar.addfile(entry, io.BytesIO(data))
    upload.seek(0)
    return upload


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("a/" * 1100 + "bot.py", "1,101 names deep, over the limit of 32"),  # RecursionError
        ("caf\udce9.py", "caf\\xe9.py: a name that is not UTF-8"),  # UnicodeEncodeError
    ],
    ids=["deep", "not-utf-8"],
)
def test_a_malformed_archive_is_a_one_line_verdict_and_leaves_no_scratch(
    ladder: Ladder, name: str, reason: str
) -> None:
    alice = _author(ladder, "alice")
    verdict = submit_upload(ladder, alice, _crafted(name), trust_bots=True)
    assert not verdict.accepted and verdict.reason.endswith(reason)
    assert "\n" not in verdict.reason
    assert [v.reason for v in verdicts(ladder, alice)] == [verdict.reason]
    assert list((ladder.folder / "tmp").iterdir()) == []


def test_an_upload_interrupted_while_it_is_checked_leaves_no_scratch(
    ladder: Ladder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice = _author(ladder, "alice")
    seen: list[Path] = []

    def interrupted(self: Ladder, source: Path, **_: object) -> None:
        seen.append(source)
        raise KeyboardInterrupt

    monkeypatch.setattr(Ladder, "submit", interrupted)
    with pytest.raises(KeyboardInterrupt):
        submit_upload(ladder, alice, _archive(RANDOM, tmp_path))
    assert seen and not seen[0].exists()
    assert list((ladder.folder / "tmp").iterdir()) == []
    assert verdicts(ladder, alice) == []


def test_a_refused_archive_is_a_verdict_with_its_reason_and_stores_nothing(
    ladder: Ladder, tmp_path: Path
) -> None:
    alice = _author(ladder, "alice")
    upload = io.BytesIO()
    with tarfile.open(fileobj=upload, mode="w:gz") as tar:
        entry = tarfile.TarInfo("../escape.py")
        tar.addfile(entry, io.BytesIO(b""))
    upload.seek(0)
    verdict = submit_upload(ladder, alice, upload)
    assert not verdict.accepted
    assert "escape.py" in verdict.reason
    assert ladder.bots() == []
    assert not (ladder.folder.parent / "escape.py").exists()


@pytest.mark.slow
def test_a_bot_failing_its_smoke_test_is_refused_with_its_stderr_for_its_author(
    ladder: Ladder, tmp_path: Path
) -> None:
    alice = _author(ladder, "alice")
    crasher = write_bot(tmp_path / "crasher", "crasher", CRASHER)
    verdict = submit_upload(ladder, alice, _archive(crasher, tmp_path))
    assert not verdict.accepted
    assert "segfault imminent" in verdict.reason
    assert ladder.bots() == []


def test_another_authors_bot_name_is_forbidden(ladder: Ladder, tmp_path: Path) -> None:
    alice, bob = _author(ladder, "alice"), _author(ladder, "bob")
    ladder.submit(RANDOM, author="alice", trust_bots=True)
    with pytest.raises(ForbiddenError, match="belongs to another author"):
        submit_upload(ladder, bob, _archive(RANDOM, tmp_path), trust_bots=True)
    assert verdicts(ladder, bob) == []
    assert verdicts(ladder, alice) == []


@pytest.mark.slow
def test_each_author_reads_only_their_own_verdicts_and_an_admin_reads_all(
    ladder: Ladder, tmp_path: Path
) -> None:
    alice, bob = _author(ladder, "alice"), _author(ladder, "bob")
    admin = _author(ladder, "operator", admin=True)
    submit_upload(ladder, alice, _archive(GREEDY, tmp_path))
    submit_upload(ladder, bob, _archive(RANDOM, tmp_path))
    assert [v.bot for v in verdicts(ladder, alice)] == ["greedy"]
    assert [v.bot for v in verdicts(ladder, bob)] == ["random"]
    assert [v.bot for v in verdicts(ladder, admin)] == ["random", "greedy"]


def test_an_author_retires_their_own_bot_but_not_anothers(ladder: Ladder) -> None:
    alice, bob = _author(ladder, "alice"), _author(ladder, "bob")
    admin = _author(ladder, "operator", admin=True)
    ladder.submit(GREEDY, author="alice", trust_bots=True)
    ladder.submit(RANDOM, author="bob", trust_bots=True)
    with pytest.raises(ForbiddenError):
        retire_own(ladder, bob, "greedy")
    retire_own(ladder, alice, "greedy")
    retire_own(ladder, admin, "random")
    assert [bot.active for bot in ladder.bots()] == [False, False]
    with pytest.raises(NotInLadder):
        retire_own(ladder, alice, "nobody")


@pytest.mark.slow
def test_an_author_reads_the_logs_of_their_bots_seats_and_never_the_opponents(
    ladder: Ladder,
) -> None:
    alice, bob = _author(ladder, "alice"), _author(ladder, "bob")
    ladder.submit(GREEDY, author="alice")
    ladder.submit(RANDOM, author="bob")
    ladder.run(games_per_match=2, rules={"hand_cap": 2}, workers=1)
    greedy = bot_logs(ladder, alice, "greedy")
    random = bot_logs(ladder, bob, "random")
    assert greedy and random
    assert {Path(log.path).name[:1] for log in greedy} == {"A"}  # greedy sorts first: side A
    assert {Path(log.path).name[:1] for log in random} == {"B"}
    assert open_log(ladder, alice, "greedy", greedy[0].path).is_file()
    with pytest.raises(ForbiddenError):
        bot_logs(ladder, alice, "random")
    with pytest.raises(ForbiddenError, match="not a log of greedy"):
        open_log(ladder, alice, "greedy", random[0].path)


@pytest.mark.slow
def test_in_a_mixed_partnership_match_each_author_reads_exactly_their_own_bots_logs(
    ladder: Ladder,
) -> None:
    # Four bots of two authors play the mixed-partnership format: in the team match where
    # alice's bot sits at A1 with bob's at A2, each author reads their own seat's log.
    alice, bob = _author(ladder, "alice"), _author(ladder, "bob")
    owners = {"ann": alice, "amy": alice, "bea": bob, "bob": bob}
    for name, author in owners.items():
        ladder.submit(GREEDY if name.startswith("a") else RANDOM, name, author=author.name)
    ladder.run(games_per_match=2, rules={"hand_cap": 1}, workers=2, partnerships=True)
    mixed = [f for f in (ladder.folder / "matches").iterdir() if "+" in f.name]
    assert any("ann+bea" in f.name or "ann+bob" in f.name for f in mixed), "a mixed team played"
    for name, author in owners.items():
        listed = {log.path for log in bot_logs(ladder, author, name)}
        written = {
            path.relative_to(ladder.folder).as_posix()
            for path in (ladder.folder / "matches").glob(f"*/logs/worker-*/*-{name}.log")
        }
        assert written and listed == written, name
        in_teams = {path for path in listed if "+" in path}
        assert in_teams, f"{name} played team matches"
        for path in listed:
            assert open_log(ladder, author, name, path).read_text() is not None


@pytest.mark.slow
def test_a_refused_uploads_smoke_logs_are_its_submissions_never_the_names_next_owner(
    ladder: Ladder, tmp_path: Path
) -> None:
    alice, bob = _author(ladder, "alice"), _author(ladder, "bob")
    admin = _author(ladder, "operator", admin=True)
    crasher = write_bot(tmp_path / "crasher", "taken", CRASHER)
    refused = submit_upload(ladder, alice, _archive(crasher, tmp_path))
    assert not refused.accepted
    theirs = submission_logs(ladder, alice, refused.id)
    assert theirs, "the smoke test's logs are kept for the refused submission"
    texts = [open_submission_log(ladder, alice, refused.id, log.path).read_text() for log in theirs]
    assert any("segfault imminent" in text for text in texts)
    assert submission_logs(ladder, admin, refused.id) == theirs

    # bob claims the free name with a good bot: nothing of alice's is his to read.
    greedy = tmp_path / "greedy"
    shutil.copytree(GREEDY, greedy)
    (greedy / "bot.toml").write_text(
        (greedy / "bot.toml").read_text().replace('name = "greedy"', 'name = "taken"')
    )
    accepted = submit_upload(ladder, bob, _archive(greedy, tmp_path))
    assert accepted.accepted and accepted.bot == "taken"
    assert bot_logs(ladder, bob, "taken") == []
    with pytest.raises(ForbiddenError):
        submission_logs(ladder, bob, refused.id)
    with pytest.raises(ForbiddenError):
        open_submission_log(ladder, bob, refused.id, theirs[0].path)
    assert submission_logs(ladder, bob, accepted.id) == []
    assert submission_logs(ladder, alice, refused.id) == theirs  # still alice's, by its id
    with pytest.raises(ForbiddenError, match="not a log of submission"):
        open_submission_log(ladder, alice, refused.id, "../../ladder.toml")
    with pytest.raises(NotInLadder):
        submission_logs(ladder, alice, 999)


@pytest.mark.slow
def test_a_node_bot_uploaded_without_its_packages_is_told_to_run_npm_install(
    ladder: Ladder, tmp_path: Path
) -> None:
    kit = Path(__file__).resolve().parents[2] / "sample_bots" / "js"
    copied = shutil.copytree(kit, tmp_path / "jsbot", ignore=shutil.ignore_patterns("node_modules"))
    line = "jsbot: its Node packages are not installed: run npm install in"
    for refused in (lambda: ladder.submit(copied), lambda: _archive(copied, tmp_path)):
        with pytest.raises(LadderError) as refusal:  # `pitch submit` packs: it says so first
            refused()
        assert str(refusal.value) == f"refused: {line} {copied}"
    upload = io.BytesIO()  # an archive packed by other means: the verdict says it
    with tarfile.open(fileobj=upload, mode="w:gz") as tar:
        for file in sorted(copied.iterdir()):
            tar.add(file, arcname=file.name)
    upload.seek(0)
    verdict = submit_upload(ladder, _author(ladder, "alice"), upload)
    assert (verdict.accepted, verdict.reason) == (False, f"refused: {line} the bot's folder")


def test_a_refusal_names_no_path_of_the_servers_disk(ladder: Ladder, tmp_path: Path) -> None:
    alice = _author(ladder, "alice")
    crasher = write_bot(tmp_path / "crasher", "crasher", CRASHER)
    broken = io.BytesIO()
    with tarfile.open(fileobj=broken, mode="w:gz") as tar:
        manifest = b'name = "broken"\nversion = 1\ncommand = "x"\n'
        entry = tarfile.TarInfo("bot.toml")
        entry.size = len(manifest)
        tar.addfile(entry, io.BytesIO(manifest))
    broken.seek(0)
    for upload in (_archive(crasher, tmp_path), broken):
        verdict = submit_upload(ladder, alice, upload)
        assert not verdict.accepted
        assert str(ladder.folder) not in verdict.reason, verdict.reason
        assert str(ladder.folder.resolve()) not in verdict.reason, verdict.reason
        assert "/tmp/" not in verdict.reason, verdict.reason
    assert "bot.toml" in verdict.reason  # the broken manifest, named as the author knows it


def test_a_reasons_server_paths_become_relative_or_their_file_name(tmp_path: Path) -> None:
    root, scratch = tmp_path / "ladder", tmp_path / "ladder" / "tmp" / "upload-1"
    reason = (
        f"refused: {scratch}/bot.toml: field 'version' is missing; see {root}/tmp/x/y.log "
        f'(File "/bot/bot.py", line 3; {scratch})'
    )
    assert public_reason(reason, root, {scratch: "the archive"}) == (
        "refused: bot.toml: field 'version' is missing; see y.log "
        '(File "/bot/bot.py", line 3; the archive)'
    )


def test_a_reason_is_capped_to_a_few_kilobytes_with_each_line_cut(ladder: Ladder) -> None:
    alice = _author(ladder, "alice")
    huge = "refused: flooder did not finish\n" + ("  | " + "x" * 3 * 2**20 + "\n") * 3
    many = "refused: chatty\n" + "".join(f"  | line {number}\n" for number in range(5_000))
    for reason in (huge, many, "refused: caf\udce9\n  | ok"):
        kept = _keep(ladder, alice, "bot", "", accepted=False, reason=reason).reason
        assert len(kept.encode()) <= REASON_BYTES
        assert kept.splitlines()[0] == reason.splitlines()[0].replace("\udce9", "\ufffd")
    stored = [verdict.reason for verdict in verdicts(ladder, alice)]
    assert stored[2].splitlines()[1].endswith(f"... [{3 * 2**20 + 4 - 512:,} more bytes]")
    assert stored[1].splitlines()[-1].endswith("more lines cut]")
