"""Argument checks every game uses."""

from __future__ import annotations

from typing import Any

import numpy as np


def as_int(value: Any) -> int | None:
    """``value`` as a Python int if it is an integer scalar (``int``, NumPy integer,
    0-d integer array; not ``bool``), else None. The conversion is exact."""
    if isinstance(value, (int, np.integer)):
        return None if type(value) is bool else int(value)
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iu":
        return int(value)
    return None
