"""Positions drawn as text: readable scripted positions for tests and notebooks.

A drawing lists the rows of the board from top to bottom, one line each, with
one token per on-board cell: ``X`` (or ``B``) black, ``O`` (or ``W``) white,
``.`` empty. Yodd rows list only their on-board cells, so they may be indented
as the board is drawn::

    from_ascii("yodd", '''
          . . .
         . X . .
        . . O . .
         . . . .
          . . .
    ''', to_move="white", first_stone="c3")   # White's step 2: c3 was its first stone
"""

from __future__ import annotations

import numpy as np

from . import kernels as K
from ...common.geometry import Geometry, geometry as make_geometry
from .state import COLOUR_NAMES, GameState
from .validation import check_state
from .notation import parse_cell

_TOKENS = {".": 0, "X": 1, "B": 1, "O": 2, "W": 2}


def from_ascii(
    game: str | Geometry,
    drawing: str,
    to_move: str = "black",
    first_stone: str | None = None,
) -> GameState:
    """The position of ``drawing`` with ``to_move`` ("black"/"white") to act.

    With ``first_stone`` (a cell name holding a stone), the position is in
    step 2 of ``to_move``'s turn, that stone having been placed in step 1.
    Without it, the position is at the start of a turn, so the total number of
    groups must be odd (or the board empty, with Black to move). A position the
    rules cannot reach raises ValueError saying why.
    """
    if not isinstance(drawing, str):
        raise ValueError(f"drawing must be text, one line per board row, got {type(drawing).__name__}")
    lines = [ln.split() for ln in drawing.strip("\n").splitlines() if ln.strip()]
    if isinstance(game, Geometry):
        g = game
    else:
        if not lines:
            raise ValueError("empty drawing")
        glued = next((tok for ln in lines for tok in ln if len(tok) > 1), None)
        if glued is not None:  # the size is read from the tokens: "..." would be one cell
            raise ValueError(f"cells are separated by spaces (like '. X .'), got {glued!r}")
        size = len(lines[0]) if game == "xodd" else (len(lines) + 1) // 2
        g = make_geometry(game, size)
    if len(lines) != g.height:
        raise ValueError(f"a {g.game} {g.size} drawing needs {g.height} rows, got {len(lines)}")
    if not isinstance(to_move, str) or to_move not in COLOUR_NAMES:
        raise ValueError(f"to_move must be 'black' or 'white', got {to_move!r}")
    state = GameState(g)
    n = g.num_cells
    data = state.data
    for r, tokens in enumerate(lines):
        cols = [c for c in range(g.width) if g.onboard[r * g.width + c]]
        if len(tokens) != len(cols):
            raise ValueError(
                f"row {r + 1} of the drawing has {len(tokens)} cells, the {g.game} {g.size} board has {len(cols)}"
            )
        for c, tok in zip(cols, tokens):
            colour = _TOKENS.get(tok.upper())
            if colour is None:
                raise ValueError(f"row {r + 1}: unknown cell {tok!r}; use X/B for black, O/W for white, . for empty")
            if colour:
                K.place(data, n, g.neighbours, r * g.width + c, colour)
    m = 2 * n
    data[m + K.M_TO_MOVE] = COLOUR_NAMES.index(to_move)
    total = state.total_groups
    if first_stone is not None:
        cell = parse_cell(g, first_stone)
        if state.board[cell] not in (1, 2):
            raise ValueError(f"first_stone {first_stone!r} is an empty cell")
        data[m + K.M_STEP] = 1
        data[m + K.M_FIRST_STONE] = cell
    elif total % 2 == 0 and np.any(state.board[g.onboard] != 0):
        raise ValueError(
            f"a turn cannot start with an even total of groups ({total}); add or remove a stone"
        )
    elif total == 0 and to_move != "black":
        raise ValueError("on the empty board Black is to move")
    try:
        check_state(g, data)
    except ValueError as err:
        raise ValueError(f"the drawing is not a position the rules can reach: {err}") from None
    return state


def to_ascii(state: GameState) -> str:
    """The board of ``state`` in the format :func:`from_ascii` reads (Yodd rows indented)."""
    if not isinstance(state, GameState):
        raise ValueError(f"to_ascii draws Xodd and Yodd positions (a GameState), got {type(state).__name__}"
                         + (": draw YINSH with odd_env.games.yinsh.render.to_text" if type(state).__name__ == "YinshState"
                            else ""))
    g = state.geometry
    sym = {0: ".", 1: "X", 2: "O"}
    out = []
    for r in range(g.height):
        cols = [c for c in range(g.width) if g.onboard[r * g.width + c]]
        indent = abs(r - (g.size - 1)) if g.kind == "hex" else 0
        out.append(" " * indent + " ".join(sym[int(state.board[r * g.width + c])] for c in cols))
    return "\n".join(out)
