"""Views of a position: text (``ansi``), SVG, and RGB images.

* :func:`to_text`: the board as text with coordinates and the group counts.
* :func:`to_svg`: an SVG drawing, written directly as text (no dependency).
* :func:`to_rgb`: the same drawing as an ``H x W x 3`` uint8 array (needs
  pillow, imported when first used).
* :class:`HumanViewer`: a window showing those images (matplotlib when it has
  an interactive backend, else pillow's image viewer).

Both pictures are painted from one list of shapes, so they show the same
thing: Xodd stones on the points of a square grid, Yodd stones on hexagonal
cells (row ``row`` shifted right by half a cell per row, docs/rules/xodd_yodd.md section 4),
coordinates on the edges (docs/rules/xodd_yodd.md section 8; a Yodd column runs down and to
the right, so its letter stands above its top end and row numbers stand at
the right ends of the rows), the stones of the current turn ringed in red, and
the group counts, parity and player to act below the board. Optional overlays:
a per-cell heatmap, the legal cells of the current step, and the groups.
:func:`board_layout` gives the pixel centre of every cell.

The SVG writer and the pillow painter of these shapes also paint the YINSH
pictures of :mod:`odd_env.games.yinsh.render`.

SVG elements carry classes and ``data-cell`` attributes so that programs can
find them: ``stone black`` / ``stone white`` (also ``data-name``, e.g.
``Bc4``), ``heat`` (``data-value``), ``legal black`` / ``legal white``,
``highlight``, ``group`` (``data-group``), ``group-label``, ``coord``,
``status``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from ...common.drawing import (  # noqa: F401 (the shared pieces; the public ones are re-exported here)
    BACKGROUND, BOARD_COLOUR, CELL_PX_RANGE, HIGHLIGHT_COLOUR, HumanViewer, LINE_COLOUR, STONE_COLOURS, STONE_OUTLINES, TEXT_COLOUR, _Shape, _check_cell_px, _check_heatmap, _check_range, _flat, _fmt, _heatmap_legend, _paint, _svg_document, has_display, heatmap_colours,
)
from ...common.geometry import Geometry
from .state import BLACK, COLOUR_NAMES, GameState
from .validation import as_int
from .notation import cell_name, column_letters, stone_name

SYMBOLS = {0: ".", 1: "X", 2: "O"}
"""Text symbol of each board value: empty, black, white."""

GROUP_PALETTE = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
    "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f",
)
"""Colours of the group outlines, cycled in the order groups are first met."""

_SQRT3 = math.sqrt(3.0)


# ====================================================================== text
def _check_state(state: object) -> None:
    if not isinstance(state, GameState):
        extra = " (YINSH positions are drawn by odd_env.games.yinsh.render)" if type(state).__name__ == "YinshState" else ""
        raise ValueError(f"expected an Xodd or Yodd GameState, got {type(state).__name__}{extra}")


def to_text(state: GameState, *, show_legal: bool = False) -> str:
    """The board as text with coordinates and the group counts.

    ``X`` is black, ``O`` white, ``.`` empty; the stone placed in step 1 of the
    current turn is shown in brackets. Yodd rows are shifted by half a cell
    per row, as docs/rules/xodd_yodd.md section 4 draws them, so a Yodd column runs along a
    diagonal: its letter stands above the top row or below the bottom row.
    ``show_legal``: the status line also says when pass / end turn is legal
    (as in :func:`to_svg`).
    """
    _check_state(state)
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
    lines.append("; ".join(_status_lines(state, state.legal_action_mask() if show_legal else None)))
    return "\n".join(lines)


def _status_lines(state: GameState, mask: np.ndarray | None = None) -> tuple[str, str]:
    """The group counts with the parity, and who acts (or who won)."""
    b, w = state.group_counts
    total = b + w
    first = f"groups: black {b}, white {w}, total {total} ({'odd' if total % 2 else 'even'})"
    if state.is_terminal:
        return first, f"game over: {COLOUR_NAMES[state.winner]} wins"
    second = f"{COLOUR_NAMES[state.to_move]} to play, step {state.turn_step}"
    if mask is not None and mask[-1]:
        second += ", end turn legal" if state.turn_step == 2 else ", pass legal"
    return first, second


# ==================================================================== layout
@dataclass(frozen=True, eq=False)
class BoardLayout:
    """Where a board is drawn: pixel positions of cells and coordinates (shared by SVG and RGB)."""

    geometry: Geometry
    cell_px: float
    """Distance between the centres of adjacent cells, in pixels."""
    width: int
    """Width of the picture in pixels."""
    board_height: int
    """Height of the board with its coordinates; the status lines go below it."""
    font_px: float
    """Size of the coordinate and status text."""
    _origin: tuple[float, float] = field(repr=False)

    @property
    def hexagonal(self) -> bool:
        """True for the Yodd board."""
        return self.geometry.kind == "hex"

    def point(self, row: float, col: float) -> tuple[float, float]:
        """Pixel position of (row, col) in array coordinates (fractional and off-board allowed)."""
        ux, uy = _unit(self.geometry, row, col)
        return self._origin[0] + ux * self.cell_px, self._origin[1] + uy * self.cell_px

    def centre(self, cell: int) -> tuple[float, float]:
        """Pixel centre (x, y) of array cell ``cell``."""
        row, col = self.geometry.row_col(cell)
        return self.point(row, col)

    def outline(self, cell: int) -> list[tuple[float, float]]:
        """Corners of the area of ``cell``: a pointy-top hexagon (Yodd) or a unit square (Xodd)."""
        x, y = self.centre(cell)
        if self.hexagonal:
            r = self.cell_px / _SQRT3
            return [(x + r * math.cos(math.radians(a)), y + r * math.sin(math.radians(a)))
                    for a in (-90, -30, 30, 90, 150, 210)]
        h = self.cell_px / 2
        return [(x - h, y - h), (x + h, y - h), (x + h, y + h), (x - h, y + h)]

    def coordinates(self) -> list[tuple[str, float, float]]:
        """The coordinate labels as (text, x, y) pixel centres."""
        return [(t, *self.point(r, c)) for t, r, c in _label_cells(self.geometry)]


def _unit(g: Geometry, row: float, col: float) -> tuple[float, float]:
    if g.kind == "hex":
        return col + row / 2.0, row * _SQRT3 / 2.0
    return float(col), float(row)


def _label_cells(g: Geometry) -> list[tuple[str, int, int]]:
    """Coordinate labels as (text, row, col) of the virtual cell just outside the board where they stand."""
    letters = column_letters(g)
    h, w = g.height, g.width
    on = g.onboard.reshape(h, w)
    out: list[tuple[str, int, int]] = []
    if g.kind != "hex":
        for c in range(w):
            out += [(letters[c], -1, c), (letters[c], h, c)]
        for r in range(h):
            out += [(str(h - r), r, -1), (str(h - r), r, w)]
        return out
    # A Yodd column runs from the top or upper-left edge down to the bottom or
    # lower-right edge; a row from the left edges to the right edges. Labels at
    # both ends would collide on the upper-left and lower-right edges, so
    # letters stand above the columns' top ends (and below those ending on the
    # bottom edge), numbers right of the rows (and left of those starting on
    # the lower-left edge).
    for c in range(w):
        rows = np.flatnonzero(on[:, c])
        out.append((letters[c], int(rows[0]) - 1, c))
        if rows[-1] == h - 1:
            out.append((letters[c], h, c))
    for r in range(h):
        cols = np.flatnonzero(on[r])
        out.append((str(h - r), r, int(cols[-1]) + 1))
        if cols[0] == 0:
            out.append((str(h - r), r, -1))
    return out


_STATUS_CHARS = 42  # the longest status line, in characters, that must fit





def board_layout(geometry: Geometry, cell_px: float = 32) -> BoardLayout:
    """The layout of ``geometry``'s board drawn with ``cell_px`` pixels (4 to 128) between adjacent cells."""
    if not isinstance(geometry, Geometry):
        raise ValueError(f"geometry must be an odd_env Geometry, got {type(geometry).__name__}")
    return _board_layout(geometry, _check_cell_px(cell_px))


@lru_cache(maxsize=64)
def _board_layout(geometry: Geometry, cell_px: float) -> BoardLayout:
    g = geometry
    pts = [_unit(g, *g.row_col(c)) for c in range(g.num_cells) if g.onboard[c]]
    labels = [_unit(g, r, c) for _, r, c in _label_cells(g)]
    reach = 1 / _SQRT3 if g.kind == "hex" else 0.6
    xs = [p[0] - reach for p in pts] + [p[0] + reach for p in pts]
    ys = [p[1] - reach for p in pts] + [p[1] + reach for p in pts]
    xs += [p[0] - 0.4 for p in labels] + [p[0] + 0.4 for p in labels]
    ys += [p[1] - 0.4 for p in labels] + [p[1] + 0.4 for p in labels]
    pad = 0.15 * cell_px
    font_px = max(10.0, 0.36 * cell_px)
    board_w = (max(xs) - min(xs)) * cell_px + 2 * pad
    width = math.ceil(max(board_w, 0.56 * font_px * _STATUS_CHARS + 2 * pad))
    height = math.ceil((max(ys) - min(ys)) * cell_px + 2 * pad)
    ox = (width - board_w) / 2 + pad - min(xs) * cell_px
    oy = pad - min(ys) * cell_px
    return BoardLayout(g, float(cell_px), width, height, font_px, (ox, oy))


# ===================================================================== scene
















def _scene(
    state: GameState,
    heatmap: object | None,
    heatmap_range: tuple[float, float] | None,
    show_legal: bool,
    show_groups: bool,
    highlight: Iterable[int] | None,
    show_coordinates: bool,
    show_status: bool,
    cell_px: float,
) -> tuple[list[_Shape], int, int]:
    """The shapes of the picture, with its width and height in pixels."""
    _check_state(state)
    g = state.geometry
    lay = board_layout(g, cell_px)
    px = lay.cell_px
    if heatmap_range is not None:
        heatmap_range = _check_range(heatmap_range)
    n = g.num_cells
    board = state.board
    cells = [c for c in range(n) if g.onboard[c]]
    stones = [c for c in cells if board[c] in (1, 2)]
    line_w = max(1.0, 0.035 * px)
    shapes: list[_Shape] = []

    heat: list[str | None] = [None] * n
    hm = None
    if heatmap is not None:
        hm = _check_heatmap(g, heatmap)
        heat = heatmap_colours(hm, heatmap_range)

    # The board.
    if lay.hexagonal:
        for c in cells:
            data = (("cell", str(c)),) + ((("value", _fmt(hm[c])),) if heat[c] else ())
            shapes.append(_Shape("polygon", _flat(lay.outline(c)), fill=heat[c] or BOARD_COLOUR,
                                 stroke=LINE_COLOUR, width=line_w, cls="heat" if heat[c] else "cell", data=data))
    else:
        x0, y0 = lay.point(-0.55, -0.55)
        x1, y1 = lay.point(g.height - 0.45, g.width - 0.45)
        shapes.append(_Shape("rect", (x0, y0, x1, y1), fill=BOARD_COLOUR, stroke=LINE_COLOUR, width=line_w, cls="board"))
        for c in cells:
            if heat[c]:
                (ax, ay), _, (bx, by), _ = lay.outline(c)
                shapes.append(_Shape("rect", (ax, ay, bx, by), fill=heat[c], cls="heat",
                                     data=(("cell", str(c)), ("value", _fmt(hm[c])))))
        for r in range(g.height):
            shapes.append(_Shape("line", (*lay.point(r, 0), *lay.point(r, g.width - 1)), stroke=LINE_COLOUR, width=line_w, cls="grid"))
        for c in range(g.width):
            shapes.append(_Shape("line", (*lay.point(0, c), *lay.point(g.height - 1, c)), stroke=LINE_COLOUR, width=line_w, cls="grid"))

    # Groups: a coloured halo round every stone, joined along adjacency.
    labels: dict[int, str] = {}
    if show_groups and stones:
        order: dict[int, int] = {}
        per_colour = [0, 0]
        for c in stones:
            root = state.group_of(c)
            if root not in order:
                order[root] = len(order)
                per_colour[board[c] - 1] += 1
                labels[root] = str(per_colour[board[c] - 1])
        nbr = g.neighbours
        for c in stones:
            root = state.group_of(c)
            colour = GROUP_PALETTE[order[root] % len(GROUP_PALETTE)]
            for d in nbr[c]:
                if d > c and board[d] == board[c]:
                    shapes.append(_Shape("line", (*lay.centre(c), *lay.centre(int(d))), stroke=colour,
                                         width=0.34 * px, cls="group", data=(("group", str(root)),)))
            shapes.append(_Shape("circle", lay.centre(c), r=0.52 * px, fill=colour, cls="group",
                                 data=(("cell", str(c)), ("group", str(root)))))

    # Legal cells of the current step.
    mask = state.legal_action_mask()
    if show_legal and not state.is_terminal:
        own = state.to_move
        for c in cells:
            for colour, legal in ((own, mask[c]), (1 - own, mask[n + c])):
                if legal:
                    x, y = lay.centre(c)
                    dx = (-0.14 if colour == BLACK else 0.14) * px
                    shapes.append(_Shape("circle", (x + dx, y), r=0.1 * px, fill=STONE_COLOURS[colour + 1],
                                         stroke=STONE_OUTLINES[colour + 1], width=max(1.0, 0.02 * px),
                                         cls=f"legal {COLOUR_NAMES[colour]}", data=(("cell", str(c)),)))

    # Stones.
    for c in stones:
        v = int(board[c])
        shapes.append(_Shape("circle", lay.centre(c), r=0.44 * px, fill=STONE_COLOURS[v], stroke=STONE_OUTLINES[v],
                             width=max(1.0, 0.03 * px), cls=f"stone {COLOUR_NAMES[v - 1]}",
                             data=(("cell", str(c)), ("name", stone_name(g, c, v - 1)))))

    # The stones of the current turn.
    if highlight is None:
        highlight = [state.first_stone] if state.first_stone >= 0 else []
    elif isinstance(highlight, (str, bytes)) or not isinstance(highlight, Iterable):
        raise ValueError(f"highlight must be a list of cell indices, got {highlight!r}")
    for cell in highlight:
        c = as_int(cell)
        if c is None or not (0 <= c < n and g.onboard[c]):
            raise ValueError(f"highlight cell {cell!r} is not on the {g.game} {g.size} board "
                             "(highlight takes integer array indices of on-board cells)")
        shapes.append(_Shape("circle", lay.centre(c), r=0.27 * px, stroke=HIGHLIGHT_COLOUR, width=0.075 * px,
                             cls="highlight", data=(("cell", str(c)), ("name", cell_name(g, c)))))

    if labels:
        for c in stones:
            shapes.append(_Shape("text", lay.centre(c), text=labels[state.group_of(c)], size=0.34 * px,
                                 fill=STONE_COLOURS[3 - board[c]], cls="group-label", data=(("cell", str(c)),)))

    if show_coordinates:
        for text, x, y in lay.coordinates():
            shapes.append(_Shape("text", (x, y), text=text, size=lay.font_px, fill=TEXT_COLOUR, cls="coord"))

    # Below the board: group counts, parity, player to act; the heatmap's legend.
    height = lay.board_height
    fs = lay.font_px
    if show_status:
        for line in _status_lines(state, mask if show_legal else None):
            shapes.append(_Shape("text", (lay.width / 2, height + 0.7 * fs), text=line, size=fs, fill=TEXT_COLOUR, cls="status"))
            height += 1.4 * fs
    if hm is not None:
        shapes += _heatmap_legend(hm, heatmap_range, lay.width / 2, height, min(lay.width * 0.5, 10 * px), fs)
        height += 1.4 * fs
    return shapes, lay.width, math.ceil(height + 0.2 * fs)






# ======================================================================= SVG
def to_svg(
    state: GameState,
    heatmap: object | None = None,
    *,
    heatmap_range: tuple[float, float] | None = None,
    show_legal: bool = False,
    show_groups: bool = False,
    highlight: Iterable[int] | None = None,
    show_coordinates: bool = True,
    show_status: bool = True,
    cell_px: float = 32,
) -> str:
    """The position as an SVG document (text).

    ``heatmap``: one float per array cell (shape ``(H*W,)`` or ``(H, W)``),
    NaN for none, coloured with viridis over ``heatmap_range`` (default: the
    values' min..max), e.g. a policy or value map. ``show_legal``: small
    black/white dots where a stone of that colour is legal in this step.
    ``show_groups``: a coloured outline round every group and its number (per
    colour) on each stone. ``highlight``: cells to ring in red (default: the
    stone placed in step 1 of the current turn). ``cell_px``: pixels between
    adjacent cells.
    """
    shapes, width, height = _scene(state, heatmap, heatmap_range, show_legal, show_groups, highlight,
                                   show_coordinates, show_status, cell_px)
    g = state.geometry
    return _svg_document(shapes, width, height, {"data-game": g.game, "data-size": str(g.size)},
                         f"{g.game} {g.size}: {' / '.join(_status_lines(state))}")








# ======================================================================= RGB


def to_rgb(
    state: GameState,
    heatmap: object | None = None,
    *,
    heatmap_range: tuple[float, float] | None = None,
    show_legal: bool = False,
    show_groups: bool = False,
    highlight: Iterable[int] | None = None,
    show_coordinates: bool = True,
    show_status: bool = True,
    cell_px: float = 32,
) -> np.ndarray:
    """The picture of :func:`to_svg` (same arguments) as an ``H x W x 3`` uint8 array; needs pillow."""
    shapes, width, height = _scene(state, heatmap, heatmap_range, show_legal, show_groups, highlight,
                                   show_coordinates, show_status, cell_px)
    return _paint(shapes, width, height)








# ===================================================================== human




__all__ = [
    "BOARD_COLOUR",
    "STONE_COLOURS",
    "BoardLayout",
    "HumanViewer",
    "board_layout",
    "has_display",
    "heatmap_colours",
    "to_rgb",
    "to_svg",
    "to_text",
]
