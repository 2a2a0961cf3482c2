"""Bot folders for tests: reference bots under other names, for tests that need several
different bots (bots are told apart by name: four-bot matches, the ladder), and the test
bots of ``bot_scripts/`` made into bot folders."""

from __future__ import annotations

import shutil
from pathlib import Path

from pitch_referee.match import Entrant
from pitch_sdk import reference

SCRIPTS = Path(__file__).with_name("bot_scripts")
"""The test bots: single-file Python bots that a test copies into a bot folder."""


def renamed_sample(sample: str, name: str, where: Path) -> Entrant:
    """A copy of the reference bot ``sample`` named ``name``, made in ``where`` once."""
    folder = where / name
    if not folder.exists():
        shutil.copytree(reference.folder(sample), folder)
        manifest = folder / "bot.toml"
        manifest.write_text(manifest.read_text().replace(f'name = "{sample}"', f'name = "{name}"'))
    return Entrant.from_folder(folder)


def script_bot(where: Path, name: str, script: str, *args: str) -> Path:
    """A bot folder named ``name`` in ``where`` that runs ``script`` (a bot file of
    ``bot_scripts/``, copied in) with ``args``."""
    folder = where / name
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(SCRIPTS / script, folder / script)
    command = ", ".join(f'"{part}"' for part in ("python", script, *args))
    (folder / "bot.toml").write_text(f'name = "{name}"\nversion = "1"\ncommand = [{command}]\n')
    return folder
