"""The errors the ``pitch`` command prints as one-line messages (no traceback)."""


class PitchError(Exception):
    """A problem the user can fix; the CLI prints the message and exits with status 1."""


class LadderError(PitchError):
    """A ladder command that cannot go on: no ladder, unknown bot, unreachable database..."""
