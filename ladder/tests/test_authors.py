"""Authors and tokens: issued once, stored hashed, found by id, revoked and rotated; bot
names owned by the author who first submitted them."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from sqlmodel import Session, select

from pitch_ladder import authors
from pitch_ladder.authors import (
    LOCAL_AUTHOR,
    AuthenticationError,
    ForbiddenError,
    add_author,
    authenticate,
    require_admin,
    revoke,
    rotate,
)
from pitch_ladder.errors import LadderError
from pitch_ladder.ladder import Ladder
from pitch_ladder.models import LOCAL_AUTHOR_ID, Author, AuthorToken, Bot
from pitch_testkit.ladder import RANDOM


@pytest.fixture
def ladder(db_url: str, tmp_path: Path) -> Iterator[Ladder]:
    opened = Ladder.init(tmp_path / "ladder", db_url)
    yield opened
    opened.close()


def test_a_new_token_authenticates_its_author_and_only_its_hash_is_stored(ladder: Ladder) -> None:
    issued = add_author(ladder, "alice")
    author = authenticate(ladder, issued.token)
    assert (author.name, author.admin) == ("alice", False)
    secret = issued.token.split("_", 2)[2]
    with Session(ladder.engine) as session:
        row = session.get_one(AuthorToken, issued.token_id)
    assert issued.token.startswith(f"pa_{issued.token_id}_")
    assert secret not in row.secret_hash and row.secret_hash.startswith("scrypt$")


def test_a_token_read_from_a_file_with_its_newline_still_authenticates(ladder: Ladder) -> None:
    issued = add_author(ladder, "alice")
    assert authenticate(ladder, issued.token + "\n").name == "alice"


def test_the_same_secret_hashes_differently_each_time_and_verifies_both_times() -> None:
    first, second = authors.hash_secret("s3cret"), authors.hash_secret("s3cret")
    assert first != second  # a fresh salt each time
    assert authors.verify_secret("s3cret", first) and authors.verify_secret("s3cret", second)
    assert not authors.verify_secret("s3cret!", first)


def test_a_hash_is_checked_with_the_cost_stored_beside_it() -> None:
    salt = bytes(16)
    digest = hashlib.scrypt(b"s3cret", salt=salt, n=2**10, r=4, p=2, dklen=32)
    stored = f"scrypt${2**10}$4$2${salt.hex()}${digest.hex()}"
    assert authors.verify_secret("s3cret", stored)
    assert not authors.verify_secret("s3cret", stored.replace("$4$2$", "$8$1$"))


def test_authenticating_checks_one_hash_however_many_tokens_are_stored(
    ladder: Ladder, monkeypatch: pytest.MonkeyPatch
) -> None:
    tokens = [add_author(ladder, f"author{number}").token for number in range(5)]
    calls = []
    real = authors._scrypt
    monkeypatch.setattr(authors, "_scrypt", lambda *args: calls.append(args) or real(*args))
    assert authenticate(ladder, tokens[3]).name == "author3"
    assert len(calls) == 1


@pytest.mark.parametrize(
    ("token", "reason"),
    [
        ("", "not a Pitch Arena token"),
        ("hunter2", "not a Pitch Arena token"),
        ("pa_xyz_secret", "not a Pitch Arena token"),
        ("pa_0123456789abcdef_secret", "not a Pitch Arena token"),  # a secret too short
        (f"pa_0123456789abcdef_{'s' * 10**6}", "not a Pitch Arena token"),  # never hashed
        (f"pa_0123456789abcdef_{'s' * 43}", "unknown token pa_0123456789abcdef_...: no author"),
    ],
)
def test_a_malformed_or_unknown_token_is_refused(ladder: Ladder, token: str, reason: str) -> None:
    with pytest.raises(AuthenticationError, match=re.escape(reason)):
        authenticate(ladder, token)


def test_a_right_id_with_a_wrong_secret_is_refused_without_showing_the_secret(
    ladder: Ladder,
) -> None:
    issued = add_author(ladder, "alice")
    forged = f"pa_{issued.token_id}_{'x' * 43}"
    with pytest.raises(AuthenticationError) as refusal:
        authenticate(ladder, forged)
    assert str(refusal.value) == f"unknown token pa_{issued.token_id}_...: no author has it"


def test_a_revoked_token_is_refused_saying_so_and_the_author_keeps_their_bots(
    ladder: Ladder,
) -> None:
    issued = add_author(ladder, "alice")
    assert revoke(ladder, "alice") == issued.token_id
    with pytest.raises(AuthenticationError, match=r"pa_\w+_\.\.\. was revoked on "):
        authenticate(ladder, issued.token)
    with pytest.raises(LadderError, match="alice has no working token to revoke"):
        revoke(ladder, "alice")
    assert [info.token_id for info in authors.list_authors(ladder) if info.name == "alice"] == [
        None
    ]


def test_rotating_gives_a_working_token_and_stops_the_old_one(ladder: Ladder) -> None:
    old = add_author(ladder, "alice")
    new = rotate(ladder, "alice")
    assert new.token_id != old.token_id
    assert authenticate(ladder, new.token).name == "alice"
    with pytest.raises(AuthenticationError, match="was revoked"):
        authenticate(ladder, old.token)


def test_rotating_gives_a_revoked_author_and_the_local_author_a_token(ladder: Ladder) -> None:
    add_author(ladder, "alice")
    revoke(ladder, "alice")
    assert authenticate(ladder, rotate(ladder, "alice").token).name == "alice"
    assert authenticate(ladder, rotate(ladder, LOCAL_AUTHOR).token).id == LOCAL_AUTHOR_ID


def test_only_an_admin_token_passes_the_admin_check(ladder: Ladder) -> None:
    operator = authenticate(ladder, add_author(ladder, "ops", admin=True).token)
    author = authenticate(ladder, add_author(ladder, "alice").token)
    require_admin(operator)
    with pytest.raises(ForbiddenError, match="alice is not an admin"):
        require_admin(author)


def test_an_author_name_is_checked_and_taken_once(ladder: Ladder) -> None:
    add_author(ladder, "alice")
    with pytest.raises(LadderError, match="author 'alice' exists already"):
        add_author(ladder, "alice")
    with pytest.raises(LadderError, match=re.escape("author name '../x'")):
        add_author(ladder, "../x")
    with pytest.raises(LadderError, match=r"no author named 'bob' .*authors: alice, local"):
        rotate(ladder, "bob")


def test_authenticate_takes_a_session_as_well_as_a_ladder(ladder: Ladder) -> None:
    issued = add_author(ladder, "alice")
    with Session(ladder.engine) as session:
        assert authenticate(session, issued.token).name == "alice"


def test_a_new_ladder_has_the_local_author_who_owns_bots_made_without_one(
    ladder: Ladder,
) -> None:
    with Session(ladder.engine) as session:
        local = session.get_one(Author, LOCAL_AUTHOR_ID)
        bot = Bot.model_validate({"name": "anon"})
        session.add(bot)
        session.commit()
        assert (local.name, local.admin) == (LOCAL_AUTHOR, False)
        assert session.exec(select(Bot.author_id)).one() == LOCAL_AUTHOR_ID


@pytest.mark.slow
def test_a_bot_name_belongs_to_the_author_who_first_submitted_it(
    ladder: Ladder, tmp_path: Path
) -> None:
    add_author(ladder, "alice")
    add_author(ladder, "bob")
    submitted = ladder.submit(RANDOM, "shared", author="alice", trust_bots=True)
    assert submitted.new
    with pytest.raises(ForbiddenError, match="the bot name 'shared' belongs to another author"):
        ladder.submit(RANDOM, "shared", author="bob", trust_bots=True)
    with pytest.raises(ForbiddenError, match="belongs to another author"):
        ladder.submit(RANDOM, "shared", trust_bots=True)  # the local author is another one too
    again = ladder.submit(RANDOM, "shared", author="alice", trust_bots=True)
    assert not again.new  # its owner may resubmit, as before authors
    infos = {info.name: info.bots for info in authors.list_authors(ladder)}
    assert infos == {"alice": 1, "bob": 0, LOCAL_AUTHOR: 0}


def test_an_unknown_author_cannot_submit(ladder: Ladder) -> None:
    with pytest.raises(LadderError, match="no author named 'nobody'"):
        ladder.submit(RANDOM, author="nobody", trust_bots=True)
    assert not ladder.bots()


def test_rotations_at_once_leave_exactly_one_working_token(ladder: Ladder) -> None:
    add_author(ladder, "alice")
    with ThreadPoolExecutor(max_workers=6) as pool:
        issued = list(pool.map(lambda _: rotate(ladder, "alice"), range(6)))
    working = [token for token in issued if _works(ladder, token.token)]
    assert len(working) == 1
    assert [info.token_id for info in authors.list_authors(ladder) if info.name == "alice"] == [
        working[0].token_id
    ]


def _works(ladder: Ladder, token: str) -> bool:
    try:
        authenticate(ladder, token)
    except AuthenticationError:
        return False
    return True


def test_adding_one_name_at_once_makes_one_author_and_refuses_the_rest_plainly(
    ladder: Ladder,
) -> None:
    def add(_: int) -> str:
        try:
            return add_author(ladder, "alice").token
        except LadderError as error:
            return str(error)

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(add, range(4)))
    tokens = [result for result in results if result.startswith("pa_")]
    assert len(tokens) == 1 and authenticate(ladder, tokens[0]).name == "alice"
    assert all("exists already" in result for result in results if result not in tokens)


@pytest.mark.slow
@pytest.mark.parametrize("second", ["bob", "alice"], ids=["another-author", "same-author"])
def test_a_bot_name_that_differs_only_in_case_is_refused_naming_the_bot_it_looks_like(
    ladder: Ladder, second: str
) -> None:
    add_author(ladder, "alice")
    add_author(ladder, "bob")
    ladder.submit(RANDOM, "greedy", author="alice", trust_bots=True)
    with pytest.raises(LadderError) as refusal:
        ladder.submit(RANDOM, "Greedy", author=second, trust_bots=True)
    assert str(refusal.value) == (
        "refused: the bot name 'Greedy' is taken: the ladder has 'greedy', and names that "
        "differ only in case or Unicode form are the same name; choose another (`--name`)"
    )
    assert [bot.name for bot in ladder.bots()] == ["greedy"]


def test_names_are_the_same_under_nfkc_case_folding() -> None:
    assert authors.name_key("Greedy") == authors.name_key("GREEDY") == "greedy"
    assert authors.name_key("ＧＲＥＥＤＹ") == authors.name_key("greedy")  # full-width
    assert authors.name_key("Straße") == authors.name_key("STRASSE")
    assert authors.name_key("greedy-2") != authors.name_key("greedy")


@pytest.mark.slow
def test_look_alike_names_submitted_at_once_store_one_bot(ladder: Ladder) -> None:
    add_author(ladder, "alice")
    add_author(ladder, "bob")

    def submit(who: tuple[str, str]) -> str:
        try:
            return ladder.submit(RANDOM, who[1], author=who[0], trust_bots=True).bot
        except LadderError as error:
            return str(error)

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(submit, [("alice", "Greedy"), ("bob", "greedy")]))
    [stored] = [bot.name for bot in ladder.bots()]
    [refused] = [result for result in results if result != stored]
    other = "greedy" if stored == "Greedy" else "Greedy"
    assert refused.startswith(
        f"refused: the bot name {other!r} is taken: the ladder has {stored!r}"
    )


@pytest.mark.slow
def test_look_alike_bots_that_a_ladder_already_holds_keep_working(ladder: Ladder) -> None:
    alice = add_author(ladder, "alice")
    ladder.submit(RANDOM, "greedy", author="alice", trust_bots=True)
    with Session(ladder.engine) as session:  # as a ladder made before the rule may hold
        author = session.exec(select(Author).where(Author.name == alice.author)).one()
        session.add(Bot.model_validate({"name": "Greedy", "author_id": author.id}))
        session.commit()
    again = ladder.submit(RANDOM, "Greedy", author="alice", trust_bots=True)
    assert again.new and again.bot == "Greedy"
    assert not ladder.submit(RANDOM, "greedy", author="alice", trust_bots=True).new
    assert [bot.name for bot in ladder.bots()] == ["Greedy", "greedy"]


def test_a_bot_name_with_a_trailing_newline_is_refused(ladder: Ladder) -> None:
    with pytest.raises(LadderError, match="bot name 'greedy\\\\n': use letters"):
        ladder.submit(RANDOM, "greedy\n", trust_bots=True)
