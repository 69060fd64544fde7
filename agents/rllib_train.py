"""``python -m agents.rllib_train``: the command of :mod:`agents.train.rllib_train` (kept at this name for old commands)."""

import sys

from .train.rllib_train import Args, build_config, main  # noqa: F401 (the names old code imports from here)

if __name__ == "__main__":
    sys.exit(main())
