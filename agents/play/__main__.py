"""``python -m agents.play``: play in the terminal (:mod:`agents.play.cli`)."""

import sys

from .cli import main

sys.exit(main())
