"""``pitch serve``: the web application (pages, game viewer, live games, API) on a ladder,
a match folder or a folder of records, served by uvicorn until Ctrl-C.

On a ladder it is the arena as a service as well: authors submit, retire and read their
bots over HTTP (``pitch_web.routes.service``), and the scheduler plays in a thread of its own
beside the server (``pitch_ladder.scheduler``) until the server stops, and the bots' logs
are swept at start and periodically (``pitch_ladder.retention``). Settings come from
``--config`` (``pitch_web.settings``), options on the command line winning. Each request
and each scheduler step is logged to stderr.

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

from .cluster import ClusterOption, ladder_executor

if TYPE_CHECKING:
    import threading

    from pitch_web.routes.service import ServiceSettings
    from pitch_web.settings import ServeSettings
    from pitch_web.source import LadderSource, Source

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
STOP_WAIT_S = 30.0
"""How long a stopping server waits for the scheduler's step; what is left resumes later."""
STREAM_GRACE_S = 2.0
"""On Ctrl-C, how long open responses may finish before they are cut: a live game's
event stream lasts until its game ends."""


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
        str | None,
        typer.Option(
            "--host",
            help="Address to listen on; 0.0.0.0 shows it to the network "
            f"[default: {DEFAULT_HOST}].",
            show_default=False,
        ),
    ] = None,
    port: Annotated[
        int | None,
        typer.Option(
            "--port",
            min=0,
            max=65535,
            help=f"Port to listen on (0: any free one) [default: {DEFAULT_PORT}].",
            show_default=False,
        ),
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option(
            "--config",
            envvar="PITCH_SERVE_CONFIG",
            help="A settings file (TOML): server, scheduler, upload limits, log retention "
            "(docs/deployment.md).",
            show_default=False,
        ),
    ] = None,
    scheduler: Annotated[
        bool | None,
        typer.Option(
            "--scheduler/--no-scheduler",
            help="On a ladder, keep playing matches while serving [default: on].",
            show_default=False,
        ),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers", min=1, help="Matches the scheduler plays at once [default: the cores]."
        ),
    ] = None,
    trust_bots: Annotated[
        bool,
        typer.Option(
            "--trust-bots",
            help="Where the machine cannot sandbox bots, run them anyway (only bots you trust).",
        ),
    ] = False,
    cluster: ClusterOption = None,
) -> None:
    """Serve a ladder, a match folder or a folder of records in the browser, with its API.

    Pages: the standings, bots, matches and games of a ladder, or the matches and records
    of a folder; every game opens in the viewer; the JSON API is under /api (/docs).
    """
    from pitch_web.settings import ServeSettings

    if folder is not None and ladder is not None:
        raise PitchError("give a folder or --ladder, not both")
    settings = _overridden(ServeSettings.load(config), scheduler, workers)
    target = folder if folder is not None else ladder or Path("ladder-data")
    source = open_folder(target, db, ladder_only=folder is None)
    try:
        host = host or settings.server.host
        listener = listen(host, settings.server.port if port is None else port)
        address = f"http://{_shown_host(host)}:{listener.getsockname()[1]}/"
        run(
            source,
            listener,
            lambda: print(f"serving {source.title} at {address} (Ctrl-C stops)", flush=True),
            settings,
            trust_bots=trust_bots,
            cluster=cluster,
        )
    finally:
        source.close()


def _overridden(
    settings: ServeSettings, scheduler: bool | None, workers: int | None
) -> ServeSettings:
    """``settings`` with the command line's options in place of the file's."""
    from dataclasses import replace

    schedule = settings.scheduler
    if scheduler is not None:
        schedule = replace(schedule, enabled=scheduler)
    if workers is not None:
        schedule = replace(schedule, workers=workers)
    return replace(settings, scheduler=schedule)


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


def run(
    source: Source,
    listener: socket.socket,
    on_ready: Callable[[], None],
    settings: ServeSettings | None = None,
    *,
    trust_bots: bool = False,
    cluster: str | None = None,
) -> None:
    """Serve ``source`` on ``listener`` until Ctrl-C (or SIGTERM); ``on_ready`` first.

    ``listener`` already listens, so ``on_ready`` (which prints the address, and may open
    the browser) comes at once: a request that arrives while the web app is still being
    built waits in the listener's backlog, and is answered when the server starts.

    With ``settings`` and a ladder: the service's routes, and the scheduler (if enabled)
    in a thread that the server's end stops after its current step; its matches play on
    the Dask ``cluster`` at that address if one is given.
    """
    on_ready()
    import copy
    import logging
    import threading

    import uvicorn

    from pitch_web import create_app
    from pitch_web.routes.service import close_service, enable_service
    from pitch_web.settings import ServeSettings
    from pitch_web.source import LadderSource
    from pitch_web.timeouts import BodyTimeout, with_header_timeout

    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    app = create_app(source)
    stop = threading.Event()
    playing: threading.Thread | None = None
    if settings is not None and isinstance(source, LadderSource):
        from pitch_ladder.retention import Sweeper

        enable_service(app, _service_settings(settings, trust_bots))
        Sweeper(source.ladder, settings.retention, stop).start()  # logs kept within bounds
        if settings.scheduler.enabled:
            playing = _start_scheduler(source, settings, trust_bots, stop, cluster)
    logs = copy.deepcopy(uvicorn.config.LOGGING_CONFIG)  # stdout is for the address
    logs["handlers"]["access"]["stream"] = "ext://sys.stderr"
    # a token sent in a query string is refused, but uvicorn would log the request whole
    logs.setdefault("filters", {})["redact"] = {"()": "pitch_web.security.RedactTokens"}
    for handler in logs["handlers"].values():
        handler.setdefault("filters", []).append("redact")
    limits = (settings or ServeSettings()).server
    config = uvicorn.Config(
        BodyTimeout(app, limits.body_timeout_s),
        http=with_header_timeout(limits.header_timeout_s),
        # uvicorn annotates these two timeouts int, but passes them on as seconds: a float works
        timeout_keep_alive=limits.keep_alive_s,  # type: ignore[arg-type]
        limit_concurrency=limits.max_connections,
        h11_max_incomplete_event_size=limits.max_header_bytes,
        log_level="info" if settings else "warning",
        log_config=logs,
        # live games' streams end with their game
        timeout_graceful_shutdown=STREAM_GRACE_S,  # type: ignore[arg-type]
    )
    server = _server_class()(config, lambda: close_service(app))
    try:
        server.run(sockets=[listener])
    except KeyboardInterrupt:  # uvicorn raises Ctrl-C again once it has shut down cleanly
        pass
    finally:
        listener.close()
        stop.set()
        if playing is not None:
            playing.join(STOP_WAIT_S)
    print("stopped")


def _service_settings(settings: ServeSettings, trust_bots: bool) -> ServiceSettings:
    from pitch_web.routes.service import ServiceSettings

    return ServiceSettings(
        settings.uploads,
        trust_bots,
        settings.limits.per_author(),
        settings.limits.checks_at_once,
        settings.limits.checks_queued,
    )


def _server_class() -> type:
    import uvicorn

    class Server(uvicorn.Server):
        """uvicorn's server, stopping the uploads' checks as soon as it starts to stop:
        the waiting ones are cancelled and the running ones killed with their bots, so that
        their requests end (503) within the shutdown's grace instead of after the checks."""

        def __init__(self, config: uvicorn.Config, on_stop: Callable[[], None]) -> None:
            super().__init__(config)
            self.on_stop = on_stop

        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            self.on_stop()
            await super().shutdown(sockets)

    return Server


def _start_scheduler(
    source: LadderSource,
    settings: ServeSettings,
    trust_bots: bool,
    stop: threading.Event,
    cluster: str | None,
) -> threading.Thread:
    """The scheduler playing in a daemon thread (a process that ends takes it along; its
    unfinished step resumes on the next start, as after kill -9), on the Dask ``cluster``
    if given (connected before the thread starts, so that a bad address stops ``serve``).

    Raises:
        LadderError: the machine cannot sandbox bots (and not ``trust_bots``), or the
            cluster cannot be used.
    """
    import contextlib
    import logging
    import threading

    from pitch_ladder.errors import LadderError
    from pitch_ladder.scheduler import Scheduler

    with contextlib.ExitStack() as opening:  # the cluster's client, closed if this fails
        executor, workers = opening.enter_context(
            ladder_executor(cluster, settings.scheduler.workers)
        )
        scheduler = Scheduler(
            source.ladder,
            settings.scheduler.settings(),
            executor=executor,
            workers=workers,
            trust_bots=trust_bots,
        )
        playing = opening.pop_all()  # closed by the thread, once the scheduler stops

    def play() -> None:
        try:
            with playing:
                scheduler.run(stop)
        except LadderError as error:  # another run holds the ladder: serve all the same
            logging.getLogger("pitch_ladder.scheduler").error("not playing: %s", error)

    thread = threading.Thread(target=play, name="scheduler", daemon=True)
    thread.start()
    return thread


def _shown_host(host: str) -> str:
    if host in ("0.0.0.0", "::"):
        return socket.gethostname()
    return f"[{host}]" if ":" in host else host
