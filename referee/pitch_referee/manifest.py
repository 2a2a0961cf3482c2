"""Bot folders: a ``bot.toml`` manifest saying who the bot is and how to start it.

```toml
name = "greedy"                 # letters, digits, - and _
version = "1.0"
command = ["python", "bot.py"]  # or a string, split like a shell would; run in the folder
description = "optional"
author = "optional"
```

A command starting with ``python`` or ``python3`` runs with the Python that runs the
referee, so bots written with ``pitch_sdk`` find it installed.
"""

from __future__ import annotations

import json
import re
import shlex
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

from .errors import ManifestError

MANIFEST = "bot.toml"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


@dataclass(frozen=True)
class BotManifest:
    folder: Path
    name: str
    version: str
    command: tuple[str, ...]
    description: str = ""
    author: str = ""

    def hello_mismatch(self, name: str, version: str) -> str | None:
        """One line where the bot's Hello names it otherwise than this manifest does (a
        Python bot's class may declare both too); ``None`` where they agree. The
        manifest's name and version are the ones records, matches and the ladder use."""
        if (name, version) == (self.name, self.version):
            return None
        return (
            f"{self.name}: bot.toml says {self.name} {self.version} but the bot says "
            f"{name} {version} (its Hello); bot.toml's name and version are used"
        )

    def missing_packages(self) -> str | None:
        """One line where the bot cannot run for packages not installed in its folder (a
        Node bot's ``package.json`` declares dependencies, and ``node_modules`` is not
        there, as in a folder copied without it); ``None`` otherwise. Said before the bot
        starts, since Node would only print a stack."""
        try:
            package = json.loads((self.folder / "package.json").read_text())
        except (OSError, ValueError):
            return None
        declared = isinstance(package, dict) and package.get("dependencies")
        if not declared or (self.folder / "node_modules").is_dir():
            return None
        return f"{self.name}: its Node packages are not installed: run npm install in {self.folder}"

    def argv(self) -> list[str]:
        """The command to run, with ``python`` meaning the referee's own interpreter."""
        first, *rest = self.command
        if first in ("python", "python3"):
            first = sys.executable
        return [first, *rest]


def load_manifest(folder: Path | str) -> BotManifest:
    """Read and check ``folder/bot.toml``.

    Raises:
        ManifestError: the folder or manifest is missing, or a field is wrong (named).
    """
    folder = Path(folder).resolve()
    path = folder / MANIFEST
    if not folder.is_dir():
        raise ManifestError(f"{folder}: no such bot folder")
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise ManifestError(f"{path}: missing; a bot folder needs a {MANIFEST}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ManifestError(f"{path}: not valid TOML ({error})") from None
    unknown = sorted(set(data) - {"name", "version", "command", "description", "author"})
    if unknown:
        raise ManifestError(
            f"{path}: unknown field {unknown[0]!r} (known: name, version, "
            "command, description, author)"
        )
    name = _text(data, "name", path)
    if not _NAME.match(name):
        raise ManifestError(
            f"{path}: field 'name' = {name!r}: use letters, digits, '-', '_', '.' (at most 64)"
        )
    return BotManifest(
        folder=folder,
        name=name,
        version=_text(data, "version", path),
        command=_command(data, path),
        description=_text(data, "description", path, required=False),
        author=_text(data, "author", path, required=False),
    )


def _text(data: dict, field: str, path: Path, required: bool = True) -> str:
    if field not in data:
        if required:
            raise ManifestError(f"{path}: field {field!r} is missing")
        return ""
    value = data[field]
    if not isinstance(value, str) or (required and not value.strip()):
        raise ManifestError(f"{path}: field {field!r} must be a non-empty string, found {value!r}")
    return value.strip()


def _command(data: dict, path: Path) -> tuple[str, ...]:
    value = data.get("command")
    if isinstance(value, str):
        try:
            value = shlex.split(value)
        except ValueError as error:
            raise ManifestError(f"{path}: field 'command' cannot be split: {error}") from None
    if (
        not isinstance(value, list)
        or not value
        or not all(isinstance(part, str) and part for part in value)
    ):
        raise ManifestError(
            f"{path}: field 'command' must be a string or a non-empty list of "
            'strings, e.g. command = ["python", "bot.py"]'
        )
    return tuple(value)
