"""``python -m pitch_ladder.cli``: the same as the ``pitch`` command."""

from . import main

main()
