"""Playing games in-process: four ``Bot`` objects at one ``Table``, one record per game.

The researchers' entry point (``pitch simulate``) and the input of many tests. No
processes, no gRPC: each bot gets exactly the calls it would get from the referee, in the
same order and with the same arguments, without a clock: decisions are not timed, so
every seat keeps its whole reserve and records stay identical run after run. A bot's
exception is not a fault here: it propagates, traceback and all, because in-process play
is for debugging.
"""

from __future__ import annotations

from collections.abc import Sequence

from .bot import Bot, ask, listens, notify, start_game
from .cards import Seat
from .gamerecord import GameRecord
from .options import RuleOptions
from .table import (
    Answer,
    FaultPolicy,
    GameStart,
    SeatEvent,
    Table,
    TimeControl,
    Turn,
    play_in_process,
)
from .views import PlayerView


class BotPlayer:
    """A ``Bot`` in this process, seated at a ``Table``."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        """The bot playing this seat."""
        self._listens = listens(bot)

    @property
    def name(self) -> str:
        """The bot's name."""
        return self.bot.name

    @property
    def version(self) -> str:
        """The bot's version."""
        return self.bot.version

    def start(self, game: GameStart) -> None:
        """Reseed the bot and call its ``on_game_start`` (``pitch_sdk.bot.start_game``)."""
        start_game(self.bot, game)

    async def decide(self, turn: Turn) -> Answer:
        """Ask the bot; the answer is not timed, so that records replay identically."""
        return Answer(ask(self.bot, turn.view, turn.budget), None)

    def observe(self, event: SeatEvent) -> None:
        """Pass the event to the bot's hooks, if it has any."""
        if self._listens:
            notify(self.bot, event)

    def end(self, view: PlayerView) -> None:
        """Call the bot's ``on_game_end``."""
        self.bot.on_game_end(view)


def play_game(
    bots: Sequence[Bot],
    seed: int | str,
    options: RuleOptions | None = None,
    first_dealer: Seat = 0,
    *,
    game_id: str = "",
    bot_seeds: Sequence[str] = ("", "", "", ""),
    time_control: TimeControl | None = None,
    fault_policy: FaultPolicy = FaultPolicy.FORFEIT,
) -> GameRecord:
    """Play one game between ``bots`` (indexed by seat) and return its record.

    Forced decisions (a single legal option) are taken without asking the bot. Give
    ``bot_seeds`` to reseed each bot's ``rng`` at the start, as the referee does; an
    illegal answer is a fault, handled by ``fault_policy`` as in a match.
    """
    table = Table(
        [BotPlayer(bot) for bot in bots],
        seed=seed,
        options=options,
        first_dealer=first_dealer,
        game_id=game_id,
        time_control=time_control or TimeControl(),
        fault_policy=fault_policy,
        bot_seeds=bot_seeds,
    )
    return play_in_process(table.play()).record
