"""``pitch scheduler ...``: see, pause and resume a ladder's scheduler (``pitch serve``'s),
on this machine (``--ladder``) or through its server (``--server``, an admin's token)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from .ladder import DEFAULT_FOLDER, DbOption, LadderOption, open_ladder
from .remote import TokenFileOption, TokenOption, call, token_of

app = typer.Typer(
    name="scheduler",
    help="See, pause or resume a ladder's scheduler, here or through its server.",
    no_args_is_help=True,
)

RemoteOption = Annotated[
    str | None,
    typer.Option(
        "--server",
        envvar="PITCH_SERVER",
        help="Act through this server (an admin's token) instead of the local --ladder.",
        show_default=False,
    ),
]


@app.command()
def status(
    *,
    server: RemoteOption = None,
    ladder: LadderOption = DEFAULT_FOLDER,
    db: DbOption = None,
) -> None:
    """Whether the scheduler is paused, by whom, and the matches it has pending."""
    if server:
        _show(call("GET", server, "/api/scheduler")[1])
    else:
        _show(_local(ladder, db, None))


@app.command()
def pause(
    *,
    server: RemoteOption = None,
    token: TokenOption = None,
    token_file: TokenFileOption = None,
    ladder: LadderOption = DEFAULT_FOLDER,
    db: DbOption = None,
) -> None:
    """Pause the scheduler: the step it is playing finishes, then it plays nothing more."""
    _switch(True, server, token, token_file, ladder, db)


@app.command()
def resume(
    *,
    server: RemoteOption = None,
    token: TokenOption = None,
    token_file: TokenFileOption = None,
    ladder: LadderOption = DEFAULT_FOLDER,
    db: DbOption = None,
) -> None:
    """Resume a paused scheduler."""
    _switch(False, server, token, token_file, ladder, db)


def _switch(
    paused: bool,
    server: str | None,
    token: str | None,
    token_file: Path | None,
    ladder: Path,
    db: str | None,
) -> None:
    if server:
        path = "/api/scheduler/pause" if paused else "/api/scheduler/resume"
        _show(call("POST", server, path, token_of(token, token_file))[1])
    else:
        _show(_local(ladder, db, paused))


def _local(folder: Path, db: str | None, paused: bool | None) -> dict[str, Any]:
    """The switch of the ladder in ``folder``, flipped first unless ``paused`` is None."""
    from dataclasses import asdict

    from pitch_ladder.scheduler import set_paused
    from pitch_ladder.scheduler import status as read_status

    with open_ladder(folder, db) as ladder:
        state = read_status(ladder) if paused is None else set_paused(ladder, paused, "cli")
    return asdict(state)


def _show(state: dict[str, Any]) -> None:
    if state["paused"]:
        print(f"paused by {state['changed_by'] or 'someone'} at {state['changed_at']}")
    else:
        print(
            "running" if not state["changed_by"] else f"running (resumed by {state['changed_by']})"
        )
    print(f"{state['pending_matches']} match(es) pending")
