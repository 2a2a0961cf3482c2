"""``pitch author ...``: what an author does on a Pitch Arena server besides submitting:
read their uploads' verdicts, list and read their bots' logs, retire a bot. Every command
takes the server and the author's token as ``pitch submit`` does."""

from __future__ import annotations

import sys
from typing import Annotated
from urllib.parse import quote

import typer

from .remote import ServerOption, TokenFileOption, TokenOption, call, token_of
from .terminal import printable

app = typer.Typer(
    name="author",
    help="Your bots on a server: submissions' verdicts, logs, retiring.",
    no_args_is_help=True,
)

BotArgument = Annotated[str, typer.Argument(help="The bot's name in the ladder.")]


@app.command()
def submissions(
    server: ServerOption, token: TokenOption = None, token_file: TokenFileOption = None
) -> None:
    """Your uploads' verdicts, newest first, each refusal with its reason (control
    characters in it escaped); each by its number (``pitch author logs -s NUMBER``: a
    refused one's smoke-test logs)."""
    _, verdicts = call("GET", server, "/api/submissions", token_of(token, token_file))
    if not verdicts:
        print("no submissions yet")
    for verdict in verdicts:
        when = verdict["submitted_at"][:19].replace("T", " ")
        if verdict["accepted"]:
            what = "accepted" if verdict["new"] else "unchanged"
            print(
                printable(
                    f"#{verdict['id']}  {when}  {verdict['bot']} {verdict['version']}: {what}"
                )
            )
        else:
            print(
                printable(f"#{verdict['id']}  {when}  {verdict['bot'] or '?'}: {verdict['reason']}")
            )


@app.command()
def logs(
    bot: Annotated[
        str | None,
        typer.Argument(help="The bot's name in the ladder (with --submission: the log to print)."),
    ] = None,
    path: Annotated[
        str | None,
        typer.Argument(help="One log to print, as the list gives it (default: list them)."),
    ] = None,
    submission: Annotated[
        int | None,
        typer.Option(
            "--submission",
            "-s",
            help="A submission's number (`pitch author submissions` shows it): the logs of "
            "its smoke test, kept when it was refused.",
        ),
    ] = None,
    server: ServerOption = "",
    token: TokenOption = None,
    token_file: TokenFileOption = None,
) -> None:
    """List your bot's logs (its seats' in each match), or a submission's (``-s NUMBER``:
    a refused upload's smoke test), or print one (at a terminal, with control characters
    escaped; as it is into a pipe or file)."""
    secret = token_of(token, token_file)
    if submission is not None:
        where, path = f"/api/submissions/{submission}/logs", path or bot
    elif bot is None:
        raise typer.BadParameter("name a bot, or give --submission NUMBER")
    else:
        where = f"/api/bots/{quote(bot)}/logs"
    if path is None:
        listed = call("GET", server, where, secret)[1]
        for log in listed:
            print(printable(f"{log['size']:>10,}  {log['path']}"))
        if not listed:
            print("no logs")
        return
    text = call("GET", server, f"{where}/{quote(path)}", secret, raw=True)[1]
    sys.stdout.write(printable(text) if sys.stdout.isatty() else text)


@app.command()
def retire(
    bot: BotArgument,
    server: ServerOption,
    token: TokenOption = None,
    token_file: TokenFileOption = None,
) -> None:
    """Retire one of your bots: it plays no more; its games and ratings stay."""
    _, retired = call("POST", server, f"/api/bots/{quote(bot)}/retire", token_of(token, token_file))
    print(f"retired {retired['bot']} ({retired['cancelled_matches']} pending match(es) cancelled)")
