"""Submissions: a bot folder's content hash, the ladder's copy of it, and its smoke test.

A version is identified by its content, not by the version string in its manifest, so
resubmitting an unchanged folder is recognised whatever it claims. Before a version is
stored, its copy must start and finish a short game against the random bot through the
real referee, and then pass the conformance check (``pitch_referee.conformance``, what
``pitch check`` runs): a legal answer in time to every kind of decision, the rare ones
included; otherwise the submission is refused with what went wrong and the bot's stderr.

A bot folder may hold no symbolic link, wherever it points: a link out of the folder
would copy (and hash) someone else's file, a dangling one nothing, and the ladder's copy
must be the bot's own files. The refusal names the link and says to copy the file in.

Does not touch the database (``versions`` does).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

from pitch_referee.conformance import ConformanceReport, check_bot
from pitch_referee.errors import ManifestError
from pitch_referee.logtail import excerpt
from pitch_referee.manifest import MANIFEST, BotManifest, load_manifest
from pitch_referee.match import Entrant, MatchError, MatchSettings, run_match
from pitch_referee.sandbox import SandboxLimits, unavailable_reason
from pitch_sdk import reference
from pitch_sdk.options import RuleOptions
from pitch_sdk.record import load_record, log_file, record_result

from .errors import LadderError, disk_full

SMOKE_LOG_BUDGET_BYTES = 1024 * 1024
"""What a smoke test's game keeps of each bot's logs, and the conformance check of the
bot's: a refused bot's logs are kept for its author, and a flood stays small."""
SMOKE_SETTINGS = MatchSettings(
    games=1,
    duplicate=False,
    rules=RuleOptions(hand_cap=1),
    concurrency=1,
    log_budget_bytes=SMOKE_LOG_BUDGET_BYTES,
)
"""The smoke test: one game of one hand, the new bot in seats 0 and 2."""
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
STDERR_LINES = 20
"""How much of a refused bot's stderr the refusal shows (each line cut at
``logtail.LINE_BYTES``): its own lines and exception first (``logtail.excerpt``)."""
FAILURES_SHOWN = 5
"""How many of a refused bot's conformance failures the refusal lists."""


def bot_files(folder: Path) -> Iterator[Path]:
    """The files of a bot folder that make a version (no ``__pycache__``, no ``.pyc``), as
    relative paths, sorted by their parts.

    Walks the folder without recursion (``Path.rglob`` recurses once per folder, so a tree
    about a thousand folders deep raised ``RecursionError``).

    Raises:
        LadderError: the folder holds a symbolic link.
    """
    found: list[tuple[str, ...]] = []
    folders: list[tuple[str, ...]] = [()]
    while folders:
        parts = folders.pop()
        try:
            with os.scandir(folder.joinpath(*parts)) as entries:
                listed = list(entries)
        except PermissionError:  # as rglob did: what cannot be read is not the bot's
            continue
        for entry in listed:
            relative = (*parts, entry.name)
            if entry.is_symlink():
                raise LadderError(
                    f"refused: {Path(*relative)} in {folder} is a symbolic link (to "
                    f"{os.readlink(entry.path)}); a bot folder must hold its own files: copy "
                    "the file in instead of linking it"
                )
            if entry.is_dir():
                folders.append(relative)
            elif entry.is_file() and "__pycache__" not in relative and _suffix(entry) != ".pyc":
                found.append(relative)
    for parts in sorted(found):
        yield Path(*parts)


def _suffix(entry: os.DirEntry[str]) -> str:
    return Path(entry.name).suffix


def content_hash(folder: Path) -> str:
    """sha256 over the sorted relative paths and bytes of the bot's files (hex).

    Each path and each file's length are hashed before its bytes, so that no two
    different folders can give the same stream.
    """
    digest = hashlib.sha256()
    for relative in bot_files(folder):
        data = (folder / relative).read_bytes()
        digest.update(f"{relative.as_posix()}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def check_name(name: str) -> None:
    """Check a ladder name, which also names the bot's folders and log files.

    Raises:
        LadderError: ``name`` cannot name a bot.
    """
    if not _NAME.fullmatch(name):  # not match: its $ also matches before a final newline
        raise LadderError(
            f"bot name {name!r}: use letters, digits, '-', '_' and '.' (at most 64, "
            "starting with a letter or digit)"
        )


def read_manifest(folder: Path) -> BotManifest:
    """The bot folder's manifest.

    Raises:
        LadderError: the folder or its ``bot.toml`` is missing or wrong (the field named),
            or the packages it needs are not installed in it (``missing_packages``).
    """
    try:
        manifest = load_manifest(folder)
    except ManifestError as error:
        raise LadderError(f"refused: {error}") from None
    if missing := manifest.missing_packages():
        raise LadderError(f"refused: {missing}")
    return manifest


def copy_bot(source: Path, target: Path, name: str) -> BotManifest:
    """Copy the version's files to ``target``; the copy's manifest carries the ladder ``name``.

    The name is rewritten when it differs (``submit --name``) so that the records and logs
    of the ladder's games say which bot played; the content hash is the source's.
    """
    manifest = read_manifest(source)
    target.mkdir(parents=True, exist_ok=True)
    for relative in bot_files(source):
        made = target
        for part in relative.parts[:-1]:  # not mkdir(parents=True): it recurses per folder
            made /= part
            made.mkdir(exist_ok=True)
        shutil.copy2(source / relative, target / relative)
    if manifest.name != name:
        (target / MANIFEST).write_text(_manifest_text(manifest, name))
    return load_manifest(target)


def _manifest_text(manifest: BotManifest, name: str) -> str:
    # A JSON string is a valid TOML basic string.
    fields = {
        "name": json.dumps(name),
        "version": json.dumps(manifest.version),
        "command": "[" + ", ".join(json.dumps(part) for part in manifest.command) + "]",
        "description": json.dumps(manifest.description),
        "author": json.dumps(manifest.author),
    }
    return "".join(f"{key} = {value}\n" for key, value in fields.items())


def smoke_test(bot: BotManifest, work: Path) -> None:
    """Test the bot in ``work`` (a new folder): a one-hand game against the random bot,
    then the conformance check; return if it passed both.

    Raises:
        LadderError: the bot faulted, the game did not finish, or the bot failed the
            conformance check; the message says where and gives the tail of its stderr.
    """
    _smoke_game(bot, work)
    _conformance(bot, work)


def _conformance(bot: BotManifest, work: Path) -> None:
    """The conformance check, in the sandbox where the machine has one (as the ladder's
    matches are); its log stays in ``work``.

    Raises:
        LadderError: the bot failed it.
    """
    sandbox = SandboxLimits() if unavailable_reason() is None else None
    log = work / "conformance.log"
    report = check_bot(bot, sandbox=sandbox, log_path=log, log_cap_bytes=SMOKE_LOG_BUDGET_BYTES)
    if not report.ok:
        raise LadderError(conformance_refusal(report))


def conformance_refusal(report: ConformanceReport) -> str:
    """Why a bot that failed the conformance check is refused: its failures, each naming
    the position and the kind of decision, and the last lines of its stderr."""
    failures = report.failures
    first = str(failures[0]) if failures else report.stopped or "it did not finish"
    lines = [f"refused: {report.bot} failed the conformance check: {first}"]
    lines += [f"  also: {failure}" for failure in failures[1:FAILURES_SHOWN]]
    if len(failures) > FAILURES_SHOWN:
        lines.append(f"  and {len(failures) - FAILURES_SHOWN} more")
    if report.stopped and failures:
        lines.append(f"  {report.stopped}")
    lines.append("  (`pitch check` on the bot folder shows the whole report)")
    tail = next((failure.log_tail for failure in failures if failure.log_tail), ())
    if tail:
        lines.append("; the end of its stderr:")
        lines += [f"  | {line}" for line in tail]
    return "\n".join(lines)


def _smoke_game(bot: BotManifest, work: Path) -> None:
    """Play the smoke game in ``work``; return if the bot finished it.

    Raises:
        LadderError: the bot faulted or the game did not finish; the message gives the
            fault and the tail of the bot's stderr.
    """
    opponent = load_manifest(reference.folder("random"))  # any install of pitch_sdk has it
    entrants = Entrant(bot.name, bot), Entrant("random", opponent)
    match = work / "match"
    try:
        summary = run_match(*entrants, SMOKE_SETTINGS, match, announce=lambda _: None)
    except (MatchError, OSError) as error:
        if disk_full(error):
            raise
        raise LadderError(f"refused: the smoke test could not run: {error}") from None
    record = load_record(summary.record_path(summary.games[0])) if summary.games else None
    result = record_result(record) if record else None
    faults = [fault for fault in result.faults if fault.seat in (0, 2)] if result else []
    if result and not faults:
        return
    reason = f"{faults[0].kind}: {faults[0].detail}" if faults else "the game did not finish"
    seat = faults[0].seat if faults else 0
    player = record.player(seat) if record else None
    log = log_file(match, player.log) if player and player.log else None
    raise LadderError(
        f"refused: {bot.name} did not finish a one-hand game against the random bot "
        f"({reason})" + _stderr_tail(log)
    )


def _stderr_tail(log: Path | None) -> str:
    lines = excerpt(log, STDERR_LINES) if log else []
    if not lines:
        return "; its stderr was empty"
    return "; the end of its stderr:\n" + "\n".join(f"  | {line}" for line in lines)
