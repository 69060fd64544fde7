"""``python -m agents.refit``: the command of :mod:`agents.train.refit` (kept at this name for old commands)."""

import sys

from .train.refit import main

if __name__ == "__main__":
    sys.exit(main())
