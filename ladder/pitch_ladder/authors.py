"""Authors, their API tokens, and who owns a bot name.

A token is ``pa_<id>_<secret>``: the id is public (``author list`` shows it) and finds the
one row to check, so that authenticating costs one scrypt, not one per stored token. Only
a salted scrypt hash of the secret is stored, compared in constant time; the token itself
is shown once, when it is made (``add``, ``rotate``). An author has at most one working
token: ``rotate`` replaces it, ``revoke`` stops it and leaves the author without one.

A bot name belongs to the author who first submitted it (``bot.author_id``); the author
``local`` (``models.LOCAL_AUTHOR_ID``) owns what was submitted on this machine without
naming an author, and every bot that a ladder had before authors existed. A new name may
not look like one the ladder has: names are the same under NFKC case-folding
(``name_key``), so ``Greedy`` is refused beside ``greedy``, whoever owns it
(``check_new_name``). Bots that a ladder held before this rule keep their names.

Errors map onto the service's answers: ``AuthenticationError`` is a 401,
``ForbiddenError`` a 403. Imports nothing of the ladder but its models and errors.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from sqlalchemy import Engine, func, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from .errors import LadderError
from .models import Author, AuthorToken, Bot, now

LOCAL_AUTHOR = "local"
"""The name of the author with id ``models.LOCAL_AUTHOR_ID`` (made by migration 0006)."""
TOKEN_PREFIX = "pa"
_ID_BYTES = 8
_SECRET_BYTES = 32
_SALT_BYTES = 16
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**12, 8, 1
"""scrypt's cost: 4 MiB and about 10 ms, paid on every authenticated request. The secret
is 256 random bits, so the hash must be salted and one-way, not slow: no cost would make
guessing it feasible. Stored with each hash, so it can be raised without breaking tokens."""
_SCRYPT_LENGTH = 32
_SECRET_LENGTH = -(-_SECRET_BYTES * 4 // 3)
"""Characters of ``secrets.token_urlsafe(_SECRET_BYTES)``: base64 without its padding."""
_TOKEN = re.compile(
    rf"^{TOKEN_PREFIX}_([0-9a-f]{{{2 * _ID_BYTES}}})_([A-Za-z0-9_-]{{{_SECRET_LENGTH}}})$"
)
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


class AuthenticationError(LadderError):
    """A token that is malformed, unknown, wrong or revoked (the service's 401)."""


class ForbiddenError(LadderError):
    """An author acting on what is not theirs, or on what only an admin may do (403)."""


class _HasEngine(Protocol):
    engine: Engine


Store = Session | _HasEngine
"""A session (used as it is, committed by these functions when they write) or anything
with an ``engine``, such as a ``Ladder`` (a session of its own per call)."""


@dataclass(frozen=True)
class IssuedToken:
    """A token just made: the only time its secret exists outside its holder's hands."""

    author: str
    token: str
    """``pa_<id>_<secret>``: to be shown once and never stored."""
    token_id: str


@dataclass(frozen=True)
class AuthorInfo:
    """An author as ``author list`` shows them."""

    name: str
    admin: bool
    token_id: str | None
    """The working token's public id; None if revoked or never issued."""
    token_created_at: datetime | None
    bots: int
    created_at: datetime


@contextmanager
def _session(store: Store) -> Iterator[Session]:
    if isinstance(store, Session):
        yield store
        return
    with Session(store.engine) as session:
        yield session


def check_author_name(name: str) -> None:
    """Check an author's name: the characters a bot name may have.

    Raises:
        LadderError: ``name`` cannot name an author.
    """
    if not _NAME.match(name):
        raise LadderError(
            f"author name {name!r}: use letters, digits, '-', '_' and '.' (at most 64, "
            "starting with a letter or digit)"
        )


def author_named(session: Session, name: str) -> Author:
    """The author called ``name``.

    Raises:
        LadderError: there is none (the message lists the authors).
    """
    author = session.exec(select(Author).where(Author.name == name)).first()
    if author is None:
        names = session.exec(select(Author.name).order_by(col(Author.name))).all()
        raise LadderError(
            f"no author named {name!r} in this ladder (authors: {', '.join(names)}); "
            f"add one with `pitch ladder author add {name}`"
        )
    return author


def add_author(store: Store, name: str, *, admin: bool = False) -> IssuedToken:
    """Create an author and their first token (committed).

    Raises:
        LadderError: a bad name, or an author of that name exists.
    """
    check_author_name(name)
    exists = LadderError(
        f"author {name!r} exists already: `pitch ladder author rotate {name}` gives them "
        "a new token"
    )
    with _session(store) as session:
        if session.exec(select(Author.id).where(Author.name == name)).first() is not None:
            raise exists
        author = Author.model_validate({"name": name, "admin": admin})
        try:
            session.add(author)
            session.flush()
        except IntegrityError:  # added by another command meanwhile
            session.rollback()
            raise exists from None
        token, row = _new_token(author)
        session.add(row)
        session.commit()
        return token


def rotate(store: Store, name: str) -> IssuedToken:
    """Give the author a new token (committed); their previous one stops working.

    Also how a revoked author, or ``local``, gets a token.

    Raises:
        LadderError: no author of that name.
    """
    with _session(store) as session:
        author = _locked(session, name)
        token, row = _new_token(author)
        _revoke_all(session, author)
        session.add(row)
        session.commit()
        return token


def revoke(store: Store, name: str) -> str:
    """Stop the author's token (committed); returns its public id. Their bots stay theirs.

    Raises:
        LadderError: no author of that name, or they have no working token.
    """
    with _session(store) as session:
        author = _locked(session, name)
        revoked = _revoke_all(session, author)
        if not revoked:
            raise LadderError(
                f"{name} has no working token to revoke (`pitch ladder author rotate {name}` "
                "gives them one)"
            )
        session.commit()
        return revoked[0]


def authenticate(store: Store, token: str) -> Author:
    """The author whose working token ``token`` is.

    Reads one token row, by the id in the token, and checks one hash.

    Raises:
        AuthenticationError: the token is malformed, unknown, wrong or revoked; the message
            names the token by its public id only.
    """
    match = _TOKEN.match(token.strip())
    if match is None:
        raise AuthenticationError(
            f"not a Pitch Arena token: expected {TOKEN_PREFIX}_<id>_<secret>, as "
            "`pitch ladder author add` or `rotate` printed it"
        )
    token_id, secret = match.groups()
    shown = f"{TOKEN_PREFIX}_{token_id}_..."
    with _session(store) as session:
        row = session.get(AuthorToken, token_id)
        if row is None or not verify_secret(secret, row.secret_hash):
            raise AuthenticationError(f"unknown token {shown}: no author has it")
        if row.revoked_at is not None:
            raise AuthenticationError(
                f"token {shown} was revoked on {row.revoked_at:%Y-%m-%d %H:%M} UTC; ask the "
                "ladder's operator for a new one"
            )
        return session.get_one(Author, row.author_id)


def require_admin(author: Author) -> None:
    """Allow operator actions to admins only.

    Raises:
        ForbiddenError: ``author`` is not an admin.
    """
    if not author.admin:
        raise ForbiddenError(f"{author.name} is not an admin: only an admin token may do this")


def check_owner(bot: Bot, author: Author) -> None:
    """Allow ``author`` to act on ``bot`` (submit a version, retire it) if it is theirs.

    Raises:
        ForbiddenError: another author owns the bot's name.
    """
    if bot.author_id != author.id:
        raise ForbiddenError(
            f"refused: the bot name {bot.name!r} belongs to another author; submit your bot "
            "under a name of your own (`--name`)"
        )


def name_key(name: str) -> str:
    """What makes two bot names the same name: ``name`` NFKC-normalised and case-folded
    (``Greedy`` and ``greedy``; ``ＧＲＥＥＤＹ`` too, were such a name allowed)."""
    return unicodedata.normalize("NFKC", name).casefold()


def check_new_name(session: Session, name: str) -> None:
    """Allow a bot name that no bot of the ladder has yet, if none looks like it.

    Reads the names alone (one narrow column; a ladder has hundreds of bots, and a
    submission plays a smoke game besides), and compares their ``name_key``: no
    database's ``lower()`` is trusted to fold as Unicode does. Callers hold the
    submission lock of ``name_key(name)``, so that two look-alikes submitted at once take
    turns and the second is refused.

    Raises:
        LadderError: a bot with another name of the same ``name_key`` exists (the reason
            names it).
    """
    key = name_key(name)
    for existing in session.exec(select(Bot.name)):
        if existing != name and name_key(existing) == key:
            raise LadderError(
                f"refused: the bot name {name!r} is taken: the ladder has {existing!r}, and "
                "names that differ only in case or Unicode form are the same name; choose "
                "another (`--name`)"
            )


def list_authors(store: Store) -> list[AuthorInfo]:
    """Every author, by name, with their working token's id and their number of bots."""
    with _session(store) as session:
        bots: dict[int | None, int] = dict(
            session.exec(select(Bot.author_id, func.count()).group_by(col(Bot.author_id))).all()
        )
        tokens = {
            row.author_id: row
            for row in session.exec(
                select(AuthorToken).where(col(AuthorToken.revoked_at).is_(None))
            )
        }
        return [
            AuthorInfo(
                name=author.name,
                admin=author.admin,
                token_id=tokens[author.id].id if author.id in tokens else None,
                token_created_at=tokens[author.id].created_at if author.id in tokens else None,
                bots=bots.get(author.id, 0),
                created_at=author.created_at,
            )
            for author in session.exec(select(Author).order_by(col(Author.name)))
        ]


def hash_secret(secret: str) -> str:
    """``scrypt$n$r$p$salt$digest`` (hex) of ``secret``, with a fresh random salt."""
    salt = secrets.token_bytes(_SALT_BYTES)
    digest = _scrypt(secret, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P)
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${salt.hex()}${digest.hex()}"


def verify_secret(secret: str, stored: str) -> bool:
    """Whether ``secret`` is the one ``stored`` (a ``hash_secret`` result) was made from.

    The digests are compared in constant time.

    Raises:
        LadderError: ``stored`` is of a scheme other than scrypt (a damaged database).
    """
    scheme, n, r, p, salt, digest = stored.split("$")
    if scheme != "scrypt":
        raise LadderError(f"a token hash of an unknown scheme {scheme!r} in the database")
    candidate = _scrypt(secret, bytes.fromhex(salt), int(n), int(r), int(p))
    return hmac.compare_digest(candidate, bytes.fromhex(digest))


def _scrypt(secret: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    # Twice what scrypt needs (128 * n * r bytes), so the default cap never refuses it.
    memory = 256 * n * r
    return hashlib.scrypt(
        secret.encode(), salt=salt, n=n, r=r, p=p, maxmem=memory, dklen=_SCRYPT_LENGTH
    )


def _new_token(author: Author) -> tuple[IssuedToken, AuthorToken]:
    """A new token for ``author`` and its row (not added: hashing takes a while, and is
    done before any lock is taken)."""
    token_id = secrets.token_hex(_ID_BYTES)
    secret = secrets.token_urlsafe(_SECRET_BYTES)
    row = AuthorToken.model_validate(
        {"id": token_id, "author_id": author.id, "secret_hash": hash_secret(secret)}
    )
    return IssuedToken(author.name, f"{TOKEN_PREFIX}_{token_id}_{secret}", token_id), row


def _locked(session: Session, name: str) -> Author:
    """The author called ``name``, their row locked until the session commits, so that
    commands changing one author's tokens take turns (PostgreSQL; SQLite lets one writer
    in at a time, from the first write on).

    Raises:
        LadderError: there is no such author.
    """
    author = author_named(session, name)
    return session.exec(select(Author).where(Author.id == author.id).with_for_update()).one()


def _revoke_all(session: Session, author: Author) -> list[str]:
    """Revoke the author's working tokens in one statement (which sees every token
    committed before it, including another command's); their ids."""
    revoked = session.exec(
        update(AuthorToken)
        .where(col(AuthorToken.author_id) == author.id, col(AuthorToken.revoked_at).is_(None))
        .values(revoked_at=now())
        .returning(col(AuthorToken.id))
    )
    return list(revoked.scalars())
