"""Argument types shared by the benchmark scripts: a bad count or duration is one argparse error (exit 2)."""

from __future__ import annotations

import argparse
import math


def _integer(text: str, low: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer >= {low}, got {text!r}") from None
    if value < low:
        raise argparse.ArgumentTypeError(f"must be an integer >= {low}, got {value}")
    return value


def positive_int(text: str) -> int:
    """An integer >= 1 (a count of games, rounds, a batch size)."""
    return _integer(text, 1)


def nonneg_int(text: str) -> int:
    """An integer >= 0 (a seed, a number of opening moves)."""
    return _integer(text, 0)


def positive_float(text: str) -> float:
    """A finite number > 0 (seconds, minutes)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, got {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, got {text}")
    return value
