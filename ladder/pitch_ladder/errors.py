"""The ladder's errors: problems a user fixes, printed by the ``pitch`` command on one line."""

from pitch_referee.errors import PitchError


class LadderError(PitchError):
    """A ladder command that cannot go on: no ladder, unknown bot, unreachable database..."""
