"""``pitch view``: one game record or match folder, served on a free local port and opened
in the browser's game viewer; it serves until Ctrl-C.

A record is served from its match folder when it is one of a match's games (the viewer
then shows the bots' logs, and the match's other games are a link away), else from its
own folder, and opened at its viewer page; a match folder opens at its first game.
"""

from __future__ import annotations

import webbrowser
from pathlib import Path
from typing import Annotated
from urllib.parse import quote

import typer

from pitch_referee.errors import PitchError

from .serve import DEFAULT_HOST, listen, open_folder, run


def view(
    path: Annotated[
        Path,
        typer.Argument(
            help="A game record (.json or .json.gz), a match folder, or a folder of records.",
            show_default=False,
        ),
    ],
    no_browser: Annotated[
        bool, typer.Option("--no-browser", help="Print the viewer's address; open nothing.")
    ] = False,
) -> None:
    """Open a game record or a match folder in the browser's game viewer, served locally.

    It keeps serving until Ctrl-C, so that the viewer's links (the match's other games)
    keep working.
    """
    from pitch_sdk.record import load_record

    if not path.exists():
        raise PitchError(f"no record or folder {path}")
    if path.is_file():
        load_record(path)  # a file that is not a record is refused here, in one line
        served = _served_folder(path)
        source = open_folder(served, None)
        page = f"view/{quote(path.resolve().relative_to(served.resolve()).as_posix())}"
    else:
        source = open_folder(path, None)
        page = _first_page(source)
    try:
        listener = listen(DEFAULT_HOST, 0)
        url = f"http://{DEFAULT_HOST}:{listener.getsockname()[1]}/{page}"

        def ready() -> None:
            print(f"viewing {path} at {url} (Ctrl-C stops)", flush=True)
            if not no_browser:
                webbrowser.open(url)

        run(source, listener, ready)
    finally:
        source.close()


def _served_folder(record: Path) -> Path:
    """The record's match folder if it is one of a match's games (so that the viewer
    shows the bots' logs and the match's other games), else its own folder."""
    from pitch_referee.match.folder import MatchFolder

    folder = record.parent
    if folder.name == "games" and MatchFolder(folder.parent).exists():
        return folder.parent
    return folder


def _first_page(source: object) -> str:
    """A match folder's first game's viewer; the start page of anything else."""
    from pitch_web.source import FolderSource

    if isinstance(source, FolderSource) and source.is_match:
        games, _total = source.match_games("", 0, 1)
        if games:
            return f"view/{quote(games[0].key, safe='/')}"
    return ""
