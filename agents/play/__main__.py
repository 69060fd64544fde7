"""``python -m agents.play``: play in the terminal (:mod:`agents.play.cli`)."""

import sys

from .cli import main

if __name__ == "__main__":  # the docs build imports this module to read it: play only when run
    sys.exit(main())
