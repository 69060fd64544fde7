"""``python -m agents.ppo``: the command of :mod:`agents.train.ppo` (kept at this name for old commands)."""

import sys

from .train.ppo import Args, PPOAgent, main, train  # noqa: F401 (the names old code imports from here)

if __name__ == "__main__":
    sys.exit(main())
