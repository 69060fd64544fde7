"""``python -m agents.checkpoint``: the command of :mod:`agents.train.checkpoint` (kept at this name for old commands)."""

import sys

from .train.checkpoint import main

if __name__ == "__main__":
    sys.exit(main())
