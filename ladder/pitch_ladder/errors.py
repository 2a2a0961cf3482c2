"""The one error type the ``pitch`` command prints as a one-line message."""


class PitchError(Exception):
    """A problem the user can fix; the CLI prints the message and exits with status 1."""
