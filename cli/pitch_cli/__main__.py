"""``python -m pitch_cli``: the same as the ``pitch`` command."""

from . import main

main()
