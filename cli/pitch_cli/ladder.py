"""``pitch ladder ...``: submit bots, run round-robin rounds, read standings and games.

Each command collects its options and calls the service in ``pitch_ladder.ladder``; the
tables and the progress bar are built here (``pitch demo`` reuses them). The service is
imported on first use (``open_ladder``): SQLAlchemy and Alembic take a second to load,
which the other ``pitch`` commands should not pay.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich import box
from rich.console import Console, Group, RenderableType
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from pitch_ladder.game_query import MAX_PAGE, GameQuery
from pitch_ladder.ratings import INITIAL_RATING, K_FACTOR
from pitch_sdk.options import RuleOptions
from pitch_sdk.replay import replay_all

from .bot_folder import HELP as BOT_HELP
from .bot_folder import bot_folder
from .cluster import ClusterOption, ladder_executor
from .render import output_console, render_game
from .terminal import printable

if TYPE_CHECKING:
    from pitch_ladder.authors import IssuedToken
    from pitch_ladder.games import GameInfo
    from pitch_ladder.ladder import Ladder, Submission
    from pitch_ladder.runner import ProgressCallback, RunProgress, RunReport
    from pitch_ladder.standings import Standing, StandingsPage

DEFAULT_FOLDER = Path("ladder-data")

TABLE_WIDTH = 120
"""Columns when piped: one bot or game per line."""
STANDINGS_PAGE = 50
"""Lines a page of `pitch ladder standings --page`."""

app = typer.Typer(
    name="ladder",
    help="A ladder: submitted bots play round-robin matches; rated standings.",
    no_args_is_help=True,
)

LadderOption = Annotated[
    Path,
    typer.Option(
        "--ladder",
        envvar="PITCH_LADDER",
        help="The ladder folder: database, bots, records and logs.",
    ),
]
DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        envvar="PITCH_DB",
        help="Database URL, e.g. postgresql://user@host/db (default: SQLite in the folder).",
    ),
]

TrustOption = Annotated[
    bool,
    typer.Option(
        "--trust-bots",
        help="Where the machine cannot sandbox bots, run them anyway (only bots you trust).",
    ),
]


def open_ladder(folder: Path, db: str | None, *, create: bool = False) -> Ladder:
    """The ladder in ``folder`` (created first if ``create``), its schema up to date.

    Raises:
        LadderError: no ladder there (unless ``create``), or its database is unreachable.
    """
    from pitch_ladder.ladder import Ladder

    return Ladder.init(folder, db) if create else Ladder.open(folder, db)


@app.command()
def init(*, ladder: LadderOption = DEFAULT_FOLDER, db: DbOption = None) -> None:
    """Create a ladder folder and its database (or bring an existing one up to date)."""
    with open_ladder(ladder, db, create=True) as opened:
        url = opened.engine.url.render_as_string(hide_password=True)
        output_console().print(f"ladder ready in {opened.folder} (database {url})", soft_wrap=True)


@app.command()
def submit(
    bot: Annotated[str, typer.Argument(help=f"The bot: {BOT_HELP}.")],
    *,
    name: Annotated[
        str | None, typer.Option(help="The bot's name in the ladder (default: the manifest's).")
    ] = None,
    author: Annotated[
        str,
        typer.Option(help="Who owns the bot's name (`pitch ladder author list`)."),
    ] = "local",
    trust_bots: TrustOption = False,
    ladder: LadderOption = DEFAULT_FOLDER,
    db: DbOption = None,
) -> None:
    """Add a bot, or a new version of one, after it finishes a short game against random.

    A bot's name belongs to the author who first submitted it: by default the author
    `local`, who owns what is submitted on this machine.
    """
    with open_ladder(ladder, db) as opened:
        submission = opened.submit(bot_folder(bot), name, author=author, trust_bots=trust_bots)
    print_submission(output_console(), submission)


def print_submission(console: Console, submission: Submission) -> None:
    """What a submission did; its manifest's version as text (escaped, no markup). A
    refusal is a ``LadderError``, which ``main`` prints escaped."""
    if submission.new:
        line = (
            f"submitted {submission.bot} {submission.version}: it finished its smoke test; "
            f"copied to {submission.folder}"
        )
    else:
        line = (
            f"{submission.bot}: identical content already submitted as "
            f"{submission.version}; nothing stored"
        )
    console.print(printable(line), soft_wrap=True, markup=False)
    if submission.reactivated:
        console.print(f"{submission.bot} is active again")


@app.command()
def bots(*, ladder: LadderOption = DEFAULT_FOLDER, db: DbOption = None) -> None:
    """List the bots: status, latest version, number of versions and games."""
    with open_ladder(ladder, db) as opened:
        infos = opened.bots()
    console = output_console(TABLE_WIDTH)
    if not infos:
        console.print("no bots yet: submit one with `pitch ladder submit DIR`")
        return
    table = Table(box=box.SIMPLE_HEAD)
    for heading in ("bot", "status", "version", "versions", "games", "folder"):
        table.add_column(heading, no_wrap=heading == "folder")
    for info in infos:
        status = "active" if info.active else "retired"
        table.add_row(
            info.name, status, info.version, str(info.versions), str(info.games), str(info.folder)
        )
    console.print(table)


@app.command()
def retire(
    name: Annotated[str, typer.Argument(help="The bot to stop scheduling.")],
    *,
    ladder: LadderOption = DEFAULT_FOLDER,
    db: DbOption = None,
) -> None:
    """Stop scheduling a bot; its games and ratings stay (submitting it again revives it)."""
    with open_ladder(ladder, db) as opened:
        cancelled = opened.retire(name)
    note = f"; {cancelled} unfinished matches cancelled" if cancelled else ""
    output_console().print(f"retired {name}{note}")


@app.command()
def run(
    *,
    rounds: Annotated[int, typer.Option(help="Round-robin rounds to play.")] = 1,
    games_per_match: Annotated[
        int, typer.Option(help="Games per match (duplicate deals: whole pairs).")
    ] = 20,
    workers: Annotated[int, typer.Option(help="Matches at once (default: the cores).")] = 0,
    affinity: Annotated[
        bool, typer.Option(help="Pin each concurrent match, with its bots, to its own core.")
    ] = True,
    rule: Annotated[
        list[str], typer.Option(help="A rule option NAME=VALUE, e.g. hand_cap=30.")
    ] = [],  # noqa: B006  (Typer needs a literal default)
    wait: Annotated[
        bool, typer.Option(help="If another run holds the ladder, wait instead of refusing.")
    ] = False,
    trust_bots: TrustOption = False,
    partnerships: Annotated[
        bool,
        typer.Option(
            "--partnerships",
            help="Each round also plays the mixed-partnership format: groups of four bots, "
            "each partnering every other one, rated by the team model (at least four bots).",
        ),
    ] = False,
    ladder: LadderOption = DEFAULT_FOLDER,
    db: DbOption = None,
    cluster: ClusterOption = None,
) -> None:
    """Play round-robin rounds between the active bots' latest versions.

    Every pair plays a duplicate match per round. An interrupted run is finished first,
    and its unfinished rounds count toward --rounds.
    """
    console = output_console(TABLE_WIDTH)
    rules = RuleOptions().with_text(rule).to_dict()
    with (
        open_ladder(ladder, db) as opened,
        ladder_executor(cluster, workers or None) as (executor, at_once),
    ):
        report = run_with_progress(
            console,
            lambda progress: opened.run(
                rounds,
                games_per_match,
                rules,
                executor=executor,
                workers=at_once,
                affinity=affinity,
                progress=progress,
                wait=wait,
                trust_bots=trust_bots,
                partnerships=partnerships,
                on_wait=lambda pid: console.print(
                    f"waiting for the run in progress (pid {pid or '?'}) to finish"
                ),
            ),
        )
    console.print(
        f"{report.matches} matches, {report.games} new games stored; "
        f"see `pitch ladder standings --ladder {ladder}`",
        soft_wrap=True,
    )


def run_with_progress(console: Console, play: Callable[[ProgressCallback], RunReport]) -> RunReport:
    """Call ``play(progress)`` under a progress bar, printing each match as it ends."""
    columns = (
        TextColumn("[bold]games"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[matches]}"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("games", total=None, matches="")
        first = True

        def update(progress: RunProgress) -> None:
            nonlocal first
            if first and progress.resumed:
                bar.console.print(f"finishing {progress.resumed} matches of an interrupted run")
            first = False
            for problem in progress.problems:
                bar.console.print(f"[yellow]problem:[/] {problem}", soft_wrap=True)
            for result in progress.finished:
                bar.console.print(
                    f"round {result.round}: {result.a} vs {result.b}  "
                    f"+{result.wins} ={result.draws} -{result.losses}"
                )
            bar.update(
                task,
                completed=progress.games_done,
                total=progress.games_planned,
                matches=f"matches {progress.matches_done}/{progress.matches_planned}",
            )

        return play(update)


@app.command()
def backup(
    *,
    out: Annotated[
        Path | None,
        typer.Option(help="The backup file (default: backups/ladder-<time>.db in the ladder)."),
    ] = None,
    ladder: LadderOption = DEFAULT_FOLDER,
    db: DbOption = None,
) -> None:
    """Copy the SQLite database to a backup file, consistently even while a run writes."""
    with open_ladder(ladder, db) as opened:
        written = opened.backup(out)
    output_console().print(
        f"backed up the database to {written}; restore it with "
        f"`pitch ladder restore {written} --ladder {ladder}`",
        soft_wrap=True,
    )


@app.command()
def restore(
    backup_file: Annotated[Path, typer.Argument(help="A file made by `pitch ladder backup`.")],
    *,
    ladder: LadderOption = DEFAULT_FOLDER,
    db: DbOption = None,
) -> None:
    """Put a backup in the place of the SQLite database (missing, damaged or not).

    The database it replaces is kept beside it. Games played after the backup are still
    in their match folders: the next `pitch ladder run` imports them.
    """
    from pitch_ladder.ladder import Ladder

    kept = Ladder.restore(ladder, backup_file, db)
    note = f"; the database it replaced is kept as {kept}" if kept else ""
    output_console().print(
        f"restored {backup_file} as the ladder's database{note}. Matches played after the "
        "backup are pending again: `pitch ladder run` imports their games from the match "
        "folders (bots submitted after it must be submitted again)",
        soft_wrap=True,
    )


@app.command()
def standings(
    *,
    all_bots: Annotated[bool, typer.Option("--all", help="Include retired bots.")] = False,
    page: Annotated[
        int | None,
        typer.Option(
            min=1, help="Show only this page of the active bots (1 is the top), read in order."
        ),
    ] = None,
    page_size: Annotated[
        int, typer.Option(min=1, max=10_000, help="Lines a page (with --page).")
    ] = STANDINGS_PAGE,
    ladder: LadderOption = DEFAULT_FOLDER,
    db: DbOption = None,
) -> None:
    """Rank the bots' latest versions by a maximum-likelihood rating (95% interval) and Elo.

    Bots whose results do not connect (groups that never played each other, directly or
    through other bots) are not comparable: each group is ranked on its own. With
    thousands of bots, `--page` reads one page of the kept order instead of every bot.
    """
    if page is None:
        with open_ladder(ladder, db) as opened:
            lines = opened.standings(all_bots)
        output_console(TABLE_WIDTH).print(standings_table(lines))
        return
    if all_bots:
        raise typer.BadParameter("pages list the active bots only: drop --all", param_hint="--all")
    with open_ladder(ladder, db) as opened:
        shown = standings_page_of(opened, (page - 1) * page_size, page_size)
    if not shown.total:
        from pitch_ladder.errors import LadderError

        raise LadderError(
            f"no active bots in the ladder at {ladder}: submit some with `pitch ladder submit DIR`"
        )
    pages = -(-shown.total // page_size)
    if page > pages:
        raise typer.BadParameter(f"the standings have {pages} page(s) of {page_size} lines")
    output_console(TABLE_WIDTH).print(standings_table(shown.lines))
    output_console().print(
        f"page {page} of {pages}: lines {shown.offset + 1}-{shown.offset + len(shown.lines)} "
        f"of {shown.total}, ratings as of game {shown.fit_through_game or 'none'}",
        soft_wrap=True,
    )


def standings_page_of(opened: Ladder, offset: int, limit: int) -> StandingsPage:
    """``standings.standings_page`` of ``opened``, fitted first if games came since the kept
    fit (a command waits for the fit, as ``Ladder.standings`` does)."""
    from sqlmodel import Session

    from pitch_ladder.rating_tables import current_fit
    from pitch_ladder.standings import standings_page

    with Session(opened.engine) as session:
        current_fit(session)
        return standings_page(session, offset, limit)


def standings_table(lines: list[Standing]) -> RenderableType:
    """The standings as ``Ladder.standings`` ranks them: group by group when there are several.

    With more than one group, a note above the table says that ratings are not comparable
    between groups, and a ``group`` column and a rule separate them.
    """
    from pitch_ladder.rating_tables import GAME_ORDER

    groups = sorted({line.group for line in lines if line.group is not None})
    split = len(groups) > 1
    teams = any(line.team is not None for line in lines)
    table = Table(
        box=box.SIMPLE_HEAD,
        caption=(
            "ML: Bradley-Terry fit of all games at once (their order does not matter), with "
            "its 95% interval; the ranking (equal ratings share a rank, listed by name). "
            f"Elo: sequential, from {INITIAL_RATING:.0f}, K={K_FACTOR:.0f}, games in order "
            f"({GAME_ORDER}). Both from same-bot teams."
            + (
                " Team: the team model's rating from mixed partnerships (mu, 95% interval"
                " mu +- 2 sigma, games)."
                if teams
                else ""
            )
        ),
    )
    headings: tuple[str, ...] = (
        "#",
        "bot",
        "version",
        "ML (95%)",
        "Elo",
        "games",
        "W-L-D",
        "score",
    )
    if teams:
        headings += ("team (95%)",)
    for heading in ("group", *headings) if split else headings:
        table.add_column(heading, justify="left" if heading in ("bot", "version") else "right")
    previous = lines[0].group if lines else None
    for line in lines:
        if line.group != previous:
            table.add_section()
            previous = line.group
        fit = (
            f"{line.fit.rating:.1f} [{line.fit.lower:.0f}, {line.fit.upper:.0f}]"
            if line.fit
            else "-"
        )
        score = f"{line.score * 100:.1f}%" if line.score is not None else "-"
        cells = [
            "-" if line.rank is None else str(line.rank),
            line.bot,
            line.version,
            fit,
            f"{line.elo:.1f}",
            str(line.games),
            f"{line.wins}-{line.losses}-{line.draws}",
            score,
        ]
        if teams:
            team = line.team
            cells.append(
                f"{team.mu:.0f} [{team.lower:.0f}, {team.upper:.0f}] {team.games}g" if team else "-"
            )
        if split:
            cells.insert(0, "-" if line.group is None else str(line.group))
        table.add_row(*cells)
    if not split:
        return table
    note = (
        f"These bots form {len(groups)} groups that never played each other, directly or "
        "through other bots: ratings are not comparable between groups, so each group is "
        "ranked on its own (group 1 has the most bots)."
    )
    return Group(note, table)


@app.command()
def rerate(*, ladder: LadderOption = DEFAULT_FOLDER, db: DbOption = None) -> None:
    """Recompute every rating from the stored games: a repair, never needed otherwise.

    Storing games keeps the Elo history, the totals and the fit up to date; this replays
    all the games, for a database whose rating tables were changed by hand.
    """
    with open_ladder(ladder, db) as opened:
        count = opened.rerate()
    output_console().print(f"recomputed the ratings from {count} stored games")


@app.command()
def games(
    *,
    bot: Annotated[str | None, typer.Option(help="Only this bot's games.")] = None,
    version: Annotated[
        str | None,
        typer.Option(help="Only games of this version of --bot (its version or hash prefix)."),
    ] = None,
    result: Annotated[str | None, typer.Option(help="Only games --bot won, lost or drawn.")] = None,
    faults: Annotated[
        bool | None,
        typer.Option("--faults/--no-faults", help="Only games with a fault, or without one."),
    ] = None,
    match: Annotated[int | None, typer.Option(help="Only the games of this match.")] = None,
    limit: Annotated[int, typer.Option(help="Games per page.", min=1)] = 50,
    before: Annotated[
        int | None, typer.Option(help="Only games numbered below this one: the next page.")
    ] = None,
    offset: Annotated[int, typer.Option(help="Skip so many (newest) games first.", min=0)] = 0,
    ladder: LadderOption = DEFAULT_FOLDER,
    db: DbOption = None,
) -> None:
    """List the stored games a page at a time, newest first; `pitch ladder show N` replays N.

    With --bot, each game's result and points are that bot's (its points first). The
    line under the table gives the command for the next (older) page.
    """
    query = GameQuery(
        bot=bot,
        version=version,
        result=result,
        faults=faults,
        match=match,
        offset=offset,
        before=before,
    )
    with open_ladder(ladder, db) as opened:
        page, more = newest_games(opened, query, limit)
    console = output_console(TABLE_WIDTH)
    if not page:
        if any(value is not None for value in (version, result, faults, match)):
            console.print("no older games match" if before or offset else "no games match")
        elif before is None and not offset:
            console.print("no games yet: `pitch ladder run` plays some")
        else:
            console.print("no older games: that was the last page")
        return
    console.print(games_table(page) if bot is None else bot_games_table(page, bot))
    if more:
        shown = {"bot": bot, "version": version, "result": result, "match": match}
        options = [f"--{name} {value}" for name, value in shown.items() if value is not None]
        options += [] if faults is None else ["--faults" if faults else "--no-faults"]
        options += [f"--limit {limit}"] if limit != 50 else []
        options += [f"--before {page[-1].id}", f"--ladder {ladder}"]
        console.print(
            f"{len(page)} games shown, newest first; older ones: "
            f"`pitch ladder games {' '.join(options)}`",
            soft_wrap=True,
        )


def newest_games(opened: Ladder, query: GameQuery, limit: int) -> tuple[list[GameInfo], bool]:
    """The newest ``limit`` games of ``query``, and whether older ones match too.

    The ladder gives at most ``MAX_PAGE`` games a query; a longer list is read as pages
    of that size, each of the games before the last one read (as ``--before`` would).
    """
    found: list[GameInfo] = []
    page = replace(query, limit=min(limit + 1, MAX_PAGE))  # one more: is there a next page?
    while True:
        infos = opened.games(page)
        found += infos
        if len(found) > limit or len(infos) < page.limit:
            return found[:limit], len(found) > limit
        left = limit + 1 - len(found)
        page = replace(query, offset=0, before=infos[-1].id, limit=min(left, MAX_PAGE))


def games_table(infos: list[GameInfo]) -> Table:
    """Every game as "X beat Y" (or "X drew with Y"), the points in the same order."""
    table = Table(box=box.SIMPLE_HEAD)
    for heading in ("#", "round", "game", "result", "points", "ended"):
        table.add_column(heading, justify="right" if heading in ("#", "round") else "left")
    for info in infos:
        winner = info.winner
        first = info.side(winner or info.a)
        verb = "drew with" if winner is None else "beat"
        team = info.team("a" if first.bot == info.a else "b")
        table.add_row(
            str(info.id),
            str(info.round),
            info.game_id,
            f"{team} {verb} {first.opponent}",
            f"{first.points} to {first.opponent_points}",
            info.termination,
        )
    return table


def bot_games_table(infos: list[GameInfo], bot: str) -> Table:
    """One bot's games from its side: its opponent, its result, its points first."""
    table = Table(box=box.SIMPLE_HEAD, title=f"{bot}'s games, from {bot}'s side")
    headings = ("#", "round", "opponent", "game", f"{bot}'s result", f"points ({bot}'s first)")
    for heading in (*headings, "ended"):
        table.add_column(heading, justify="right" if heading in ("#", "round") else "left")
    for info in infos:
        side = info.side(bot)
        table.add_row(
            str(info.id),
            str(info.round),
            side.opponent,
            info.game_id,
            side.result,
            f"{side.points} to {side.opponent_points}",
            info.termination,
        )
    return table


@app.command()
def show(
    game: Annotated[int, typer.Argument(help="The game's number (`pitch ladder games`).")],
    *,
    hand: Annotated[
        int | None, typer.Option("--hand", min=1, help="Show only this hand (1 is the first).")
    ] = None,
    seat: Annotated[
        int | None, typer.Option("--seat", min=0, max=3, help="Show only what this seat knew.")
    ] = None,
    ladder: LadderOption = DEFAULT_FOLDER,
    db: DbOption = None,
) -> None:
    """Replay a stored game hand by hand, from the record kept in the database."""
    with open_ladder(ladder, db) as opened:
        stored = opened.game(game)
    console = output_console()
    steps, replayed = replay_all(stored.record)
    console.print(render_game(stored.record, steps, replayed, hand=hand, seat=seat))
    console.print(f"record: {stored.info.record_path}", soft_wrap=True)


author_app = typer.Typer(
    name="author",
    help="Authors and their API tokens: add, list, revoke, rotate; their limits.",
    no_args_is_help=True,
)
app.add_typer(author_app)


@author_app.command("add")
def author_add(
    name: Annotated[str, typer.Argument(help="The author's name (letters, digits, - _ .).")],
    *,
    admin: Annotated[
        bool, typer.Option("--admin", help="An operator, whose token may act on every bot.")
    ] = False,
    ladder: LadderOption = DEFAULT_FOLDER,
    db: DbOption = None,
) -> None:
    """Add an author and print their API token: shown this once, never stored."""
    from pitch_ladder.authors import add_author

    with open_ladder(ladder, db) as opened:
        issued = add_author(opened, name, admin=admin)
    role = "admin" if admin else "author"
    print_token(output_console(), f"added {role} {issued.author}", issued)


@author_app.command("rotate")
def author_rotate(
    name: Annotated[str, typer.Argument(help="The author to give a new token.")],
    *,
    ladder: LadderOption = DEFAULT_FOLDER,
    db: DbOption = None,
) -> None:
    """Give an author a new API token (printed once); their previous token stops working."""
    from pitch_ladder.authors import rotate

    with open_ladder(ladder, db) as opened:
        issued = rotate(opened, name)
    print_token(
        output_console(), f"new token for {issued.author}; the previous one is revoked", issued
    )


def print_token(console: Console, headline: str, issued: IssuedToken) -> None:
    """The headline, then the token alone on the last line (for scripts: `tail -n 1`)."""
    console.print(
        f"{headline} (token id {issued.token_id}). The token is shown only now; keep it "
        "where only they can read it:",
        soft_wrap=True,
    )
    console.print(issued.token, soft_wrap=True, markup=False)


@author_app.command("revoke")
def author_revoke(
    name: Annotated[str, typer.Argument(help="The author whose token stops working.")],
    *,
    ladder: LadderOption = DEFAULT_FOLDER,
    db: DbOption = None,
) -> None:
    """Stop an author's API token at once; their bots stay (rotate gives a new token)."""
    from pitch_ladder.authors import revoke

    with open_ladder(ladder, db) as opened:
        token_id = revoke(opened, name)
    output_console().print(f"revoked {name}'s token {token_id}; their bots stay theirs")


@author_app.command("list")
def author_list(*, ladder: LadderOption = DEFAULT_FOLDER, db: DbOption = None) -> None:
    """List the authors: role, working token's id, number of bots."""
    from pitch_ladder.authors import list_authors

    with open_ladder(ladder, db) as opened:
        infos = list_authors(opened)
    table = Table(box=box.SIMPLE_HEAD)
    for heading in ("author", "role", "token", "issued", "bots"):
        table.add_column(heading, justify="right" if heading == "bots" else "left")
    for info in infos:
        issued = f"{info.token_created_at:%Y-%m-%d %H:%M}" if info.token_created_at else "-"
        table.add_row(
            info.name,
            "admin" if info.admin else "author",
            info.token_id or "none",
            issued,
            str(info.bots),
        )
    output_console(TABLE_WIDTH).print(table)


@author_app.command("limits")
def author_limits(
    name: Annotated[str, typer.Argument(help="The author whose limits to show or change.")],
    *,
    uploads_per_hour: Annotated[
        int | None, typer.Option("--uploads-per-hour", min=1, help="Uploads in any hour.")
    ] = None,
    checks: Annotated[
        int | None,
        typer.Option("--checks", min=1, help="Uploads being checked or waiting, at once."),
    ] = None,
    versions: Annotated[
        int | None, typer.Option("--versions", min=1, help="Bot versions stored.")
    ] = None,
    disk_bytes: Annotated[
        int | None,
        typer.Option("--disk-bytes", min=1, help="Bytes of their stored versions' files."),
    ] = None,
    clear: Annotated[
        bool, typer.Option("--clear", help="Back to the server's settings (before the rest).")
    ] = False,
    ladder: LadderOption = DEFAULT_FOLDER,
    db: DbOption = None,
) -> None:
    """Show an author's own limits, or give them some: the others stay the server's
    ([limits] in `pitch serve --config`). A running server reads them at each upload."""
    from pitch_ladder.quotas import set_limits

    servers = "(the server's)"
    with open_ladder(ladder, db) as opened:
        override = set_limits(
            opened,
            name,
            clear=clear,
            uploads_per_hour=uploads_per_hour,
            checks=checks,
            versions=versions,
            disk_bytes=disk_bytes,
        )
    shown = ", ".join(
        f"{key} {servers if value is None else value}" for key, value in override.items()
    )
    output_console().print(f"{name}: {shown}", soft_wrap=True)
