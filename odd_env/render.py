"""Views of a position: text (``ansi``)."""

from __future__ import annotations

from .core.state import COLOUR_NAMES, GameState
from .notation import column_letters

SYMBOLS = {0: ".", 1: "X", 2: "O"}
"""Text symbol of each board value: empty, black, white."""


def to_text(state: GameState) -> str:
    """The board as text with coordinates and the group counts.

    ``X`` is black, ``O`` white, ``.`` empty; the stone placed in step 1 of the
    current turn is shown in brackets. Yodd rows are shifted by half a cell
    per row, as RULES.md section 4 draws them, so a Yodd column runs along a
    diagonal: its letter stands above the top row or below the bottom row.
    """
    g = state.geometry
    h, w = g.height, g.width
    board = state.board
    first = state.first_stone
    letters = column_letters(g)
    hexagonal = g.kind == "hex"
    # Horizontal position of a cell's symbol: 3 characters per column on the
    # square grid; 2 per column plus 1 per row on the hexhex board.
    if hexagonal:
        def xpos(row: int, col: int) -> int:
            return 2 * col + row - (g.size - 1) + 1
    else:
        def xpos(row: int, col: int) -> int:
            return 3 * col + 1
    span = max(xpos(r, c) for r in range(h) for c in range(w) if g.onboard[r * w + c]) + 2
    margin = " " * (len(str(h)) + 1)

    def letter_line(row: int) -> str:
        buf = [" "] * span
        for c in range(w):
            if g.onboard[row * w + c]:
                buf[xpos(row, c)] = letters[c]
        return margin + "".join(buf).rstrip()

    lines = [letter_line(0)]
    for r in range(h):
        buf = [" "] * span
        for c in range(w):
            cell = r * w + c
            if not g.onboard[cell]:
                continue
            x = xpos(r, c)
            buf[x] = SYMBOLS[int(board[cell])]
            if cell == first:
                buf[x - 1], buf[x + 1] = "[", "]"
        lines.append(f"{h - r:>{len(str(h))}} {''.join(buf).rstrip()}  {h - r}")
    lines.append(letter_line(h - 1))
    b, wh = state.group_counts
    total = b + wh
    if state.is_terminal:
        status = f"game over: {COLOUR_NAMES[state.winner]} wins"
    else:
        status = f"{COLOUR_NAMES[state.to_move]} to play, step {state.turn_step}"
    lines.append(f"groups: black {b}, white {wh}, total {total} ({'odd' if total % 2 else 'even'}); {status}")
    return "\n".join(lines)
