"""Checks of the arguments that the environments share (seeds, reset options)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .common.validation import as_int


def check_seed(seed: Any) -> int | None:
    """``seed`` as a Python int (NumPy integers and 0-d arrays accepted) or None; ValueError
    unless it is None or a non-negative integer."""
    if seed is None:
        return None
    s = as_int(seed)
    if s is None or s < 0:
        raise ValueError(f"seed must be None or a non-negative integer, got {seed!r}")
    return s


def check_options(options: Any) -> Mapping[str, Any]:
    """``options`` of ``reset``, ``{}`` for None; ValueError unless it is None or a mapping (a dict)."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise ValueError(f"options must be a dict or None, got {type(options).__name__}: {options!r}")
    return options
