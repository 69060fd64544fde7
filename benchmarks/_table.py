"""The steps-per-second table both speed benchmarks print."""

from __future__ import annotations

import statistics


def print_rate_table(what: str, results: dict[str, list[float]], baseline: str | None) -> None:
    """A markdown table of median/min/max rates, with the ratio to ``baseline``'s median."""
    base = statistics.median(results[baseline]) if baseline in results else None
    print(f"| {what} | steps/s (median) | min | max | vs {baseline or 'n/a'} |")
    print("|---|---:|---:|---:|---:|")
    for name, values in results.items():
        med = statistics.median(values)
        ratio = f"{med / base:.2f}x" if base else "n/a"
        print(f"| {name} | {med:,.0f} | {min(values):,.0f} | {max(values):,.0f} | {ratio} |")
