"""``pitch serve``: the web application (pages, game viewer, live games, API) on a ladder,
a match folder or a folder of records, served by uvicorn until Ctrl-C.

The listening socket is bound here, before uvicorn starts, so that a port in use is one
line of error and the address printed is one that answers. FastAPI, uvicorn and the
ladder's database code are imported when the command runs, never for ``pitch --help``.
"""

from __future__ import annotations

import errno
import socket
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from pitch_referee.errors import PitchError

if TYPE_CHECKING:
    from pitch_web.source import Source

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def serve(
    folder: Annotated[
        Path | None,
        typer.Argument(
            help="A ladder folder, a match folder, or a folder of match folders and records "
            "(default: the --ladder folder).",
            show_default=False,
        ),
    ] = None,
    ladder: Annotated[
        Path | None,
        typer.Option(
            "--ladder",
            envvar="PITCH_LADDER",
            help="The ladder folder to serve (default: ladder-data).",
            show_default=False,
        ),
    ] = None,
    db: Annotated[
        str | None,
        typer.Option(
            "--db",
            envvar="PITCH_DB",
            help="The ladder's database URL, e.g. postgresql://user@host/db.",
        ),
    ] = None,
    host: Annotated[
        str, typer.Option("--host", help="Address to listen on; 0.0.0.0 shows it to the network.")
    ] = DEFAULT_HOST,
    port: Annotated[
        int, typer.Option("--port", min=0, max=65535, help="Port to listen on (0: any free one).")
    ] = DEFAULT_PORT,
) -> None:
    """Serve a ladder, a match folder or a folder of records in the browser, with its API.

    Pages: the standings, bots, matches and games of a ladder, or the matches and records
    of a folder; every game opens in the viewer; the JSON API is under /api (/docs).
    """
    if folder is not None and ladder is not None:
        raise PitchError("give a folder or --ladder, not both")
    target = folder if folder is not None else ladder or Path("ladder-data")
    source = open_folder(target, db, ladder_only=folder is None)
    try:
        listener = listen(host, port)
        address = f"http://{_shown_host(host)}:{listener.getsockname()[1]}/"
        run(
            source,
            listener,
            lambda: print(f"serving {source.title} at {address} (Ctrl-C stops)", flush=True),
        )
    finally:
        source.close()


def open_folder(folder: Path, db: str | None, *, ladder_only: bool = False) -> Source:
    """The source for ``folder``: its ladder, or its matches and records.

    Raises:
        PitchError: no such folder, a file, or (``ladder_only``) no ladder in it.
        LadderError: the ladder's database cannot be opened.
    """
    from pitch_web.source import LADDER_FILE, open_source

    if folder.is_file():
        raise PitchError(f"{folder} is a file: `pitch view {folder}` opens one record")
    if ladder_only and not (folder / LADDER_FILE).exists():
        raise PitchError(
            f"no ladder in {folder}: create one with `pitch ladder init --ladder {folder}`, "
            "or serve a folder of matches with `pitch serve FOLDER`"
        )
    if not folder.is_dir():
        raise PitchError(f"no folder {folder}")
    return open_source(folder, db)


def listen(host: str, port: int) -> socket.socket:
    """A socket listening on ``host``:``port``.

    Raises:
        PitchError: the port is in use, or the address is not one of this machine's.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((host, port))
        listener.listen(128)
    except OSError as error:
        listener.close()
        if error.errno == errno.EADDRINUSE:
            raise PitchError(
                f"port {port} on {host} is in use: choose another with --port"
            ) from None
        raise PitchError(f"cannot listen on {host}:{port}: {error.strerror or error}") from None
    return listener


def run(source: Source, listener: socket.socket, on_ready: Callable[[], None]) -> None:
    """Serve ``source`` on ``listener`` until Ctrl-C (or SIGTERM); ``on_ready`` once listening."""
    import uvicorn

    from pitch_web import create_app

    config = uvicorn.Config(create_app(source), log_level="warning", access_log=False)
    server = uvicorn.Server(config)
    on_ready()
    try:
        server.run(sockets=[listener])
    except KeyboardInterrupt:  # uvicorn raises Ctrl-C again once it has shut down cleanly
        pass
    finally:
        listener.close()
    print("stopped")


def _shown_host(host: str) -> str:
    if host in ("0.0.0.0", "::"):
        return socket.gethostname()
    return f"[{host}]" if ":" in host else host
