"""The ladder's errors: problems a user fixes, printed by the ``pitch`` command on one line."""

import errno

from pitch_referee.errors import PitchError

DISK_FULL = (errno.ENOSPC, errno.EDQUOT)


class LadderError(PitchError):
    """A ladder command that cannot go on: no ladder, unknown bot, unreachable database..."""


def disk_full(error: BaseException) -> bool:
    """Whether ``error`` is a full disk (or a used-up disk quota): the server's trouble, so
    never a reason to refuse what a user sent, nor a line of its verdict."""
    return isinstance(error, OSError) and error.errno in DISK_FULL
