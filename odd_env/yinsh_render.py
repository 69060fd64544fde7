"""Views of a YINSH position.

* :func:`to_text`: the board as text with point names (the ``"ansi"`` render mode).

The board is drawn as it stands on the table (YINSH.md section 1): columns A
to K are vertical, row numbers grow upwards along a column, and a line of
one row number runs down to the right; each text line is half a point high.
"""

from __future__ import annotations

import numpy as np

from .core import yinsh_kernels as K
from .core.yinsh import PLAYER_NAMES, YinshState

SYMBOLS = {K.EMPTY: ".", K.RING: "W", K.RING + 1: "B", K.MARKER: "w", K.MARKER + 1: "b"}
"""Text symbol of each point value: rings in capitals, markers in small letters."""

_COLUMN_WIDTH = 4  # characters between two columns


def to_text(state: YinshState) -> str:
    """The board as text: ``W``/``B`` rings, ``w``/``b`` markers, ``.`` empty points.

    Column letters stand above and below the board, each row number at the
    upper-left end of its line; the chosen ring is in brackets and the
    destination of the latest move in parentheses. The last line says who
    decides what, the rings removed and the markers left in the pool.
    """
    g = state.geometry
    board = state.board
    # Point (column j, row number r) sits at text line 2r - j (half a point per
    # line, counted upwards) and character 4 (j + 1) + 1.
    cells: dict[tuple[int, int], str] = {}
    rows: dict[int, list[int]] = {}
    for x in np.flatnonzero(g.onboard):
        i, j = g.row_col(x)
        r = g.height - i
        cells[(2 * r - j, _COLUMN_WIDTH * (j + 1) + 1)] = SYMBOLS[int(board[x])]
        rows.setdefault(r, []).append(j)
    labels: dict[tuple[int, int], str] = {}
    for r, cols in rows.items():
        j = min(cols) - 1  # the free point just before the row's first point
        labels[(2 * r - j, _COLUMN_WIDTH * (j + 1) + 1)] = str(r)
    # Brackets around the chosen ring, parentheses around the latest destination.
    for point, (left, right) in _marks(state).items():
        i, j = g.row_col(point)
        x = _COLUMN_WIDTH * (j + 1) + 1
        y = 2 * (g.height - i) - j
        cells[(y, x - 1)], cells[(y, x + 1)] = left, right
    width = _COLUMN_WIDTH * (g.width + 1) + 2
    top = max(y for y, _ in [*cells, *labels])
    bottom = min(y for y, _ in [*cells, *labels])
    letters = [" "] * width
    for j in range(g.width):
        letters[_COLUMN_WIDTH * (j + 1) + 1] = chr(ord("A") + j)
    lines = ["".join(letters).rstrip()]
    for y in range(top, bottom - 1, -1):
        buf = [" "] * width
        for (yy, x), text in labels.items():
            if yy == y:
                buf[x - len(text) + 1 : x + 1] = list(text)
        for (yy, x), symbol in cells.items():
            if yy == y:
                buf[x] = symbol
        lines.append("".join(buf).rstrip())
    lines.append(lines[0])
    lines.append(status_line(state))
    return "\n".join(lines)


def _marks(state: YinshState) -> dict[int, str]:
    marks = {}
    if state.last_move is not None:
        marks[state.last_move[1]] = "()"
    if state.chosen_ring >= 0:
        marks[state.chosen_ring] = "[]"
    return marks


def status_line(state: YinshState) -> str:
    """Who decides what (or the result), the rings removed and the pool."""
    w, b = state.rings_removed
    if state.is_terminal:
        head = "game over: draw" if state.is_draw else f"game over: {PLAYER_NAMES[state.winner]} wins"
    else:
        what = {
            "place": "place a ring", "move": "choose a ring to move",
            "destination": f"move the ring on {state.point_name(state.chosen_ring)}"
            if state.chosen_ring >= 0 else "move the chosen ring",
            "remove_row": "remove a row", "remove_ring": "remove a ring", "pass": "pass (no ring can move)",
        }[state.decision_name]
        head = f"{PLAYER_NAMES[state.to_move]} to {what}"
    variant = ", blitz" if state.blitz else ""
    return f"{head}; rings removed: white {w}, black {b}; pool {state.pool}{variant}"
