"""``python -m agents.alphazero``: the command of :mod:`agents.train.alphazero` (AlphaZero-style training)."""

import sys

from .train.alphazero import AZTrainer, main, train  # noqa: F401 (the names a caller imports from here)
from .train.az_args import Args  # noqa: F401

if __name__ == "__main__":
    sys.exit(main())
