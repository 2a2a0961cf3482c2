"""The ``--sandbox on|off|auto`` choice of the commands that run one bot (check, rerun)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from pitch_referee.errors import PitchError

if TYPE_CHECKING:
    from pitch_referee.sandbox import SandboxLimits

SandboxOption = Annotated[str, typer.Option(help="Run the bot in the sandbox: on, off or auto.")]


def sandbox_limits(mode: str, trusted: str) -> SandboxLimits | None:
    """The sandbox's limits if the bot is to run in it, else ``None``; ``auto`` says on
    stderr when there is no sandbox. ``trusted`` finishes the refusal's advice, e.g.
    "check a bot you trust".

    Raises:
        PitchError: a mode that is not on, off or auto, or ``on`` where the machine cannot
            sandbox.
    """
    # The sandbox brings gRPC: imported when the command runs, never for its --help.
    from pitch_referee.sandbox import SandboxLimits, SandboxMode, SandboxUnavailableError
    from pitch_referee.sandbox import resolve as resolve_sandbox

    stderr = Console(stderr=True)
    try:
        sandboxed = resolve_sandbox(SandboxMode(mode), lambda line: stderr.print(line))
    except ValueError:
        raise PitchError(f"--sandbox {mode!r}: choose on, off or auto") from None
    except SandboxUnavailableError as error:
        raise PitchError(f"{error}; or {trusted} with --sandbox off") from None
    return SandboxLimits() if sandboxed else None
