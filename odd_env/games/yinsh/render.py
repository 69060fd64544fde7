"""Views of a YINSH position: text (``ansi``), SVG, and RGB images.

* :func:`to_text`: the board as text with point names (the ``"ansi"`` render mode).
* :func:`to_svg`: an SVG drawing, written directly as text (no dependency).
* :func:`to_rgb`: the same drawing as an ``H x W x 3`` uint8 array (needs
  pillow, imported when first used; the ``"rgb_array"`` and ``"human"``
  render modes).
* :func:`yinsh_layout`: where the drawing puts each point, in pixels.

The board is drawn as it stands on the table (docs/rules/yinsh.md section 1):
columns A to K are vertical, row numbers grow upwards along a column, and a
line of one row number runs down to the right. The pictures show the 85
points where the lines of the three directions cross, rings as open circles
and markers as discs in their colours, the point names on the edges (each
letter below its column, each row number at the upper-left end of its line),
the chosen ring ringed in red and the latest move as a red line from the
marker it left to the ring's new point. Beside the board: the rings each
player has removed (out of the 3 that win, or 1 in blitz), the markers left
in the pool, and a frame round the player who decides, with the kind of
decision. The two pictures are painted from one list of shapes with the
painters of :mod:`odd_env.games.odd.render`, so they show the same thing.

SVG elements carry classes and data attributes so that programs can find
them: ``ring white`` / ``ring black`` and ``marker white`` / ``marker black``
(one element per piece, with ``data-point``, e.g. ``E5``, and ``data-cell``,
the array index), ``chosen``, ``last-move path`` / ``last-move from`` /
``last-move to``, ``legal`` (``data-point``, or ``data-row`` such as
``xE5-E9`` for a row), ``highlight``, ``heat`` (``data-point``,
``data-value``), ``grid``, ``board``, ``coord``, ``removed white`` /
``removed black`` (the removed rings beside the board), ``slot``, ``pool``
(``data-count``), ``player`` and ``to-move`` (``data-player``), ``decision``,
``status``, ``legend``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from . import kernels as K
from .state import PLAYER_NAMES, YinshState, _point, point_name, tables
from ...common.drawing import BACKGROUND, BOARD_COLOUR, HIGHLIGHT_COLOUR, LINE_COLOUR, STONE_COLOURS, STONE_OUTLINES, TEXT_COLOUR, _check_heatmap, _fmt, _heatmap_legend, _paint, _Shape, _svg_document, heatmap_colours

SYMBOLS = {K.EMPTY: ".", K.RING: "W", K.RING + 1: "B", K.MARKER: "w", K.MARKER + 1: "b"}
"""Text symbol of each point value: rings in capitals, markers in small letters."""

PIECE_COLOURS = (STONE_COLOURS[2], STONE_COLOURS[1])
"""Fill colour of the rings and markers of each player (0 white, 1 black): the Xodd/Yodd stone colours."""
PIECE_OUTLINES = (STONE_OUTLINES[2], STONE_OUTLINES[1])
LEGAL_COLOUR = "#1e8c45"
"""Colour of the marks of the legal actions (``show_legal``)."""
LEGAL_ROW_COLOUR = "#8fd694"
"""Colour of the band under a row of five that may be removed (``show_legal``)."""
PANEL_COLOUR = "#fbe9e4"
"""Fill of the frame round the player who decides."""
SLOT_COLOUR = "#d6d0c4"
"""Outline of an empty place for a removed ring beside the board."""

_COLUMN_WIDTH = 4  # characters between two columns of the text board
_S3 = math.sqrt(3.0) / 2.0
RING_RADIUS = 0.44
"""Outer radius of a ring, in units of the distance between adjacent points."""
RING_HOLE = 0.265
"""Radius of a ring's hole (the band between it and :data:`RING_RADIUS` is coloured)."""
MARKER_RADIUS = 0.27
"""Radius of a marker: a marker fits in a ring's hole, as on the table."""
_BOARD_MARGIN = 0.52  # from the outermost points to the edge of the board
_LABEL_STEP = 1.0  # from a line's end point to its label, along the line
_LABEL_GAP = 0.62  # the least distance between two labels' centres
_PANEL_GAP, _PANEL_WIDTH = 0.5, 3.9
_PANEL_HEIGHT = 8.4  # the panel's lowest text (the blitz line under the pool), in panel units
_FONT_SCALE, _MIN_FONT_PX = 0.36, 10.0  # text size: this share of a point spacing, at least this many pixels
_CELL_PX = (4, 128)  # allowed cell_px, as for the Xodd/Yodd pictures
_DECISION_TEXT = {
    "place": "place a ring", "move": "choose a ring to move", "destination": "move the chosen ring",
    "remove_row": "remove a row", "remove_ring": "remove a ring", "pass": "pass (no ring can move)",
}


# ====================================================================== text
def to_text(state: YinshState) -> str:
    """The board as text: ``W``/``B`` rings, ``w``/``b`` markers, ``.`` empty points.

    Column letters stand above and below the board, each row number at both
    ends of its line (a line of points with one row number runs down to the
    right, one text line per column step), so that a point is read off
    its column's letter and the number at either end of its line; the chosen
    ring is in brackets and the
    destination of the latest move in parentheses. The last line says who
    decides what, the rings removed and the markers left in the pool.
    """
    _check_state(state)
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
    labels: dict[tuple[int, int], tuple[str, bool]] = {}  # (line, character) -> (text, after the line)
    for r, cols in rows.items():
        for j, after in ((min(cols) - 1, False), (max(cols) + 1, True)):  # the free points beyond the ends
            labels[(2 * r - j, _COLUMN_WIDTH * (j + 1) + 1)] = (str(r), after)
    # Brackets around the chosen ring, parentheses around the latest destination.
    for point, (left, right) in _marks(state).items():
        i, j = g.row_col(point)
        x = _COLUMN_WIDTH * (j + 1) + 1
        y = 2 * (g.height - i) - j
        cells[(y, x - 1)], cells[(y, x + 1)] = left, right
    width = _COLUMN_WIDTH * (g.width + 2) + 2  # room for the numbers after column K
    top = max(y for y, _ in [*cells, *labels])
    bottom = min(y for y, _ in [*cells, *labels])
    letters = [" "] * width
    for j in range(g.width):
        letters[_COLUMN_WIDTH * (j + 1) + 1] = chr(ord("A") + j)
    lines = ["".join(letters).rstrip()]
    for y in range(top, bottom - 1, -1):
        buf = [" "] * width
        for (yy, x), (text, after) in labels.items():
            if yy == y:  # a number before its line ends at the free point's place, one after it starts there
                start = x if after else x - len(text) + 1
                buf[start : start + len(text)] = list(text)
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


def _status_head(state: YinshState) -> str:
    """Who decides what, or the result."""
    if state.is_terminal:
        return "game over: draw" if state.is_draw else f"game over: {PLAYER_NAMES[state.winner]} wins"
    name = state.decision_name
    what = _DECISION_TEXT[name]
    if name == "destination":
        what = f"move the ring on {point_name(state.chosen_ring)}"
    return f"{PLAYER_NAMES[state.to_move]} to {what}"


def status_line(state: YinshState) -> str:
    """Who decides what (or the result), the rings removed and the pool."""
    _check_state(state)
    w, b = state.rings_removed
    variant = ", blitz" if state.blitz else ""
    return f"{_status_head(state)}; rings removed: white {w}, black {b}; pool {state.pool}{variant}"


def _check_state(state: object) -> None:
    if not isinstance(state, YinshState):
        raise ValueError(
            f"expected a YinshState, got {type(state).__name__} (Xodd and Yodd positions are drawn by odd_env.games.odd.render)"
        )


# ==================================================================== layout
def _unit(col: float, number: float) -> tuple[float, float]:
    """Position of (column index, row number), fractions allowed, in point spacings; y grows downwards."""
    return col * _S3, col / 2.0 - number


@lru_cache(maxsize=None)
def _lattice() -> tuple[tuple[tuple[int, int, int], ...], tuple[tuple[str, float, float], ...]]:
    """The points as (point, column, row number), and the labels as (text, x, y) in units."""
    g = YinshState.geometry
    points = []
    for x in np.flatnonzero(g.onboard):
        i, j = g.row_col(x)
        points.append((int(x), j, g.height - i))
    columns: dict[int, list[int]] = {}
    numbers: dict[int, list[int]] = {}
    for _, j, r in points:
        columns.setdefault(j, []).append(r)
        numbers.setdefault(r, []).append(j)
    # A letter one step below its column's lowest point, a number one step up and left of its
    # line's first point: (text, end point, direction away from the board), in units.
    labels = [(chr(ord("A") + j), _unit(j, min(rs)), (0.0, 1.0)) for j, rs in sorted(columns.items())]
    labels += [(str(r), _unit(min(js), r), (-_S3, -0.5)) for r, js in sorted(numbers.items())]
    steps = [_LABEL_STEP] * len(labels)

    def at(k: int) -> tuple[float, float]:
        (x, y), (dx, dy) = labels[k][1], labels[k][2]
        return x + steps[k] * dx, y + steps[k] * dy

    # At the six missing corners a label falls near the board's edge: slide it out along its
    # line until it is as far from the edge as the others. At A1 column A's letter and row 1's
    # number fall on the same place: slide both out until they stand apart.
    hull = _hull([_unit(j, r) for _, j, r in points])
    clear = _LABEL_STEP * _S3  # a line meets the edge at 60 degrees
    for k in range(len(labels)):
        while _outside(hull, at(k)) < clear - 1e-9:
            steps[k] += 0.02
    for a in range(len(labels)):
        for b in range(a):
            while math.dist(at(a), at(b)) < _LABEL_GAP:
                steps[a] += 0.02
                steps[b] += 0.02
    return tuple(points), tuple((labels[k][0], *at(k)) for k in range(len(labels)))


def _hull(pts: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The convex hull, counter-clockwise in a y-up frame, without collinear points."""
    pts = sorted(set(pts))

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list[tuple[float, float]] = []
    upper: list[tuple[float, float]] = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 1e-9:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 1e-9:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def _outside(hull: list[tuple[float, float]], p: tuple[float, float]) -> float:
    """How far ``p`` lies outside the convex polygon ``hull`` (negative inside), along the edges' normals."""
    out = -math.inf
    for k in range(len(hull)):
        (x0, y0), (x1, y1) = hull[k - 1], hull[k]
        nx, ny = y1 - y0, x0 - x1
        norm = math.hypot(nx, ny)
        out = max(out, ((p[0] - x0) * nx + (p[1] - y0) * ny) / norm)
    return out


def _rounded_outline(hull: list[tuple[float, float]], margin: float, steps: int = 4) -> list[tuple[float, float]]:
    """The outline at ``margin`` round a convex polygon, with round corners (arcs of ``steps`` segments)."""
    out = []
    n = len(hull)
    for k in range(n):
        prev, here, nxt = hull[k - 1], hull[k], hull[(k + 1) % n]
        a0 = math.atan2(here[1] - prev[1], here[0] - prev[0]) - math.pi / 2
        a1 = math.atan2(nxt[1] - here[1], nxt[0] - here[0]) - math.pi / 2
        if a1 < a0:
            a1 += 2 * math.pi
        for s in range(steps + 1):
            a = a0 + (a1 - a0) * s / steps
            out.append((here[0] + margin * math.cos(a), here[1] + margin * math.sin(a)))
    return out


@dataclass(frozen=True, eq=False)
class YinshLayout:
    """Where a YINSH picture puts things, in pixels (shared by the SVG and the RGB image)."""

    cell_px: float
    """Distance between adjacent points, in pixels."""
    width: int
    """Width of the picture: the board and the panel beside it."""
    board_height: int
    """Height of the board with its labels; the status lines go below it."""
    font_px: float
    """Size of the point names and the status text."""
    panel_x: float
    """Left edge of the panel beside the board (removed rings, pool, who decides)."""
    panel_px: float
    """The panel's unit: ``cell_px``, or more on small pictures, where the smallest text
    (``font_px``) would not fit beside rings of ``cell_px`` (the panel then grows with its text)."""
    _origin: tuple[float, float] = field(repr=False)

    def at(self, ux: float, uy: float) -> tuple[float, float]:
        """Pixel position of a position in point spacings (the frame of the lattice)."""
        return self._origin[0] + ux * self.cell_px, self._origin[1] + uy * self.cell_px

    def centre(self, point: int) -> tuple[float, float]:
        """Pixel centre (x, y) of array point ``point``."""
        g = YinshState.geometry
        i, j = g.row_col(point)
        return self.at(*_unit(j, g.height - i))

    def coordinates(self) -> list[tuple[str, float, float]]:
        """The point names on the edges as (text, x, y) pixel centres."""
        return [(t, *self.at(x, y)) for t, x, y in _lattice()[1]]

    def board_outline(self) -> list[tuple[float, float]]:
        """Corners of the board's outline (round the outermost points, with rounded corners)."""
        points = [_unit(j, r) for _, j, r in _lattice()[0]]
        return [self.at(x, y) for x, y in _rounded_outline(_hull(points), _BOARD_MARGIN)]


def _check_cell_px(cell_px: object) -> float:
    lo, hi = _CELL_PX
    if isinstance(cell_px, (bool, np.bool_)) or not isinstance(cell_px, (int, float, np.integer, np.floating)) \
            or not lo <= cell_px <= hi:
        raise ValueError(f"cell_px must be a number of pixels from {lo} to {hi}, got {cell_px!r}")
    return float(cell_px)


def yinsh_layout(cell_px: float = 36) -> YinshLayout:
    """The layout of the YINSH picture with ``cell_px`` pixels (4 to 128) between adjacent points."""
    return _layout(_check_cell_px(cell_px))


@lru_cache(maxsize=32)
def _layout(cell_px: float) -> YinshLayout:
    points, labels = _lattice()
    units = [_unit(j, r) for _, j, r in points]
    reach = _BOARD_MARGIN
    xs = [x - reach for x, _ in units] + [x + reach for x, _ in units]
    ys = [y - reach for _, y in units] + [y + reach for _, y in units]
    xs += [x - 0.35 for _, x, _ in labels] + [x + 0.35 for _, x, _ in labels]
    ys += [y - 0.35 for _, _, y in labels] + [y + 0.35 for _, _, y in labels]
    pad = 0.2
    font_px = max(_MIN_FONT_PX, _FONT_SCALE * cell_px)
    panel_px = font_px / _FONT_SCALE
    ox, oy = (pad - min(xs)) * cell_px, (pad - min(ys)) * cell_px
    panel_x = (max(xs) - min(xs) + pad + _PANEL_GAP) * cell_px
    width = math.ceil(panel_x + (_PANEL_WIDTH + pad) * panel_px)
    height = math.ceil(max((max(ys) - min(ys) + 2 * pad) * cell_px, (_PANEL_HEIGHT + 2 * pad) * panel_px))
    return YinshLayout(float(cell_px), width, height, font_px, panel_x, panel_px, (ox, oy))


# ===================================================================== scene
def _piece(kind: str, player: int, xy: tuple[float, float], px: float, cls: str, data) -> _Shape:
    """A ring (open circle) or a marker (disc) of ``player``."""
    outline = max(1.0, 0.035 * px)
    if kind == "ring":
        return _Shape("ring", xy, r=RING_RADIUS * px, r2=RING_HOLE * px, fill=PIECE_COLOURS[player],
                      stroke=PIECE_OUTLINES[player], width=outline, cls=cls, data=data)
    return _Shape("circle", xy, r=MARKER_RADIUS * px, fill=PIECE_COLOURS[player], stroke=PIECE_OUTLINES[player],
                  width=outline, cls=cls, data=data)


def _point_data(x: int) -> tuple[tuple[str, str], ...]:
    return (("point", point_name(x)), ("cell", str(x)))


def _scene(
    state: YinshState,
    heatmap: object | None,
    heatmap_range: tuple[float, float] | None,
    show_legal: bool,
    highlight: Iterable[int | str] | None,
    show_last_move: bool,
    show_coordinates: bool,
    show_status: bool,
    cell_px: float,
) -> tuple[list[_Shape], int, int]:
    """The shapes of the picture, with its width and height in pixels."""
    _check_state(state)
    lay = yinsh_layout(cell_px)
    px = lay.cell_px
    t = tables()
    g = state.geometry
    board = state.board
    points = [int(x) for x in t.points]
    line_w = max(1.0, 0.035 * px)
    mark_w = max(1.5, 0.075 * px)
    shapes: list[_Shape] = [_Shape("polygon", tuple(v for p in lay.board_outline() for v in p), fill=BOARD_COLOUR,
                                   stroke=LINE_COLOUR, width=line_w, cls="board")]
    highlight_points = [] if highlight is None else _check_points(highlight, "highlight")

    # A heatmap colours the hexagon of the points nearest to each point.
    hm = None
    if heatmap is not None:
        hm = _check_heatmap(g, heatmap)
        colours = heatmap_colours(hm, heatmap_range)
        rad = px / math.sqrt(3.0)
        for x in points:
            if colours[x] is None:
                continue
            cx, cy = lay.centre(x)
            corners = [(cx + rad * math.cos(math.radians(a)), cy + rad * math.sin(math.radians(a)))
                       for a in range(0, 360, 60)]
            shapes.append(_Shape("polygon", tuple(v for p in corners for v in p), fill=colours[x], cls="heat",
                                 data=(*_point_data(x), ("value", _fmt(hm[x])))))

    # The lines: from every point that starts a line in a direction to that line's last point.
    for x in points:
        for d in range(3):
            if t.rays[x, d + 3, 0] < 0 and t.rays[x, d, 0] >= 0:
                end = int(t.rays[x, d][t.rays[x, d] >= 0][-1])
                shapes.append(_Shape("line", (*lay.centre(x), *lay.centre(end)), stroke=LINE_COLOUR,
                                     width=line_w, cls="grid"))

    running = not state.is_terminal
    mask = state.legal_action_mask() if show_legal and running else None
    n = t.n
    if mask is not None and state.decision == K.KIND_ROW:
        for a in np.flatnonzero(mask[n : 4 * n]) + n:
            d, s = divmod(int(a) - n, n)
            shapes.append(_Shape("line", (*lay.centre(s), *lay.centre(int(t.row_ends[d, s]))), stroke=LEGAL_ROW_COLOUR,
                                 width=0.62 * px, cls="legal row", data=(("row", state.action_to_string(int(a))),)))

    last = state.last_move if show_last_move else None
    if last is not None:
        shapes.append(_Shape("line", (*lay.centre(last[0]), *lay.centre(last[1])), stroke=HIGHLIGHT_COLOUR,
                             width=max(1.5, 0.08 * px), cls="last-move path",
                             data=(("from", point_name(last[0])), ("to", point_name(last[1])))))

    for x in points:
        v = int(board[x])
        if v in (K.MARKER, K.MARKER + 1):
            p = v - K.MARKER
            shapes.append(_piece("marker", p, lay.centre(x), px, f"marker {PLAYER_NAMES[p]}", _point_data(x)))
    for x in points:
        v = int(board[x])
        if v in (K.RING, K.RING + 1):
            p = v - K.RING
            shapes.append(_piece("ring", p, lay.centre(x), px, f"ring {PLAYER_NAMES[p]}", _point_data(x)))

    if last is not None:
        for x, cls in zip(last, ("last-move from", "last-move to")):
            shapes.append(_Shape("circle", lay.centre(x), r=0.1 * px, fill=HIGHLIGHT_COLOUR, cls=cls,
                                 data=_point_data(x)))
    if state.chosen_ring >= 0:
        shapes.append(_Shape("circle", lay.centre(state.chosen_ring), r=0.53 * px, stroke=HIGHLIGHT_COLOUR,
                             width=mark_w, cls="chosen", data=_point_data(state.chosen_ring)))
    if mask is not None:
        for x in np.flatnonzero(mask[:n]):
            x = int(x)
            if board[x] == K.EMPTY:  # a ring may be placed or moved here
                shapes.append(_Shape("circle", lay.centre(x), r=0.13 * px, fill=LEGAL_COLOUR, stroke=BACKGROUND,
                                     width=max(1.0, 0.03 * px), cls="legal", data=_point_data(x)))
            else:  # this ring may be chosen or removed
                shapes.append(_Shape("circle", lay.centre(x), r=0.5 * px, stroke=LEGAL_COLOUR, width=mark_w,
                                     cls="legal", data=_point_data(x)))
    for x in highlight_points:
        shapes.append(_Shape("circle", lay.centre(x), r=0.53 * px, stroke=HIGHLIGHT_COLOUR,
                             width=max(1.0, 0.045 * px), cls="highlight", data=_point_data(x)))

    fs = lay.font_px
    if show_coordinates:
        for text, x, y in lay.coordinates():
            shapes.append(_Shape("text", (x, y), text=text, size=fs, fill=TEXT_COLOUR, cls="coord"))
    shapes += _panel(state, lay)

    height = lay.board_height
    if show_status:
        lines = [_status_head(state)]
        if state.last_move is not None:
            lines.append("last move " + "-".join(point_name(x) for x in state.last_move))
        for line in lines:
            shapes.append(_Shape("text", (lay.width / 2, height + 0.7 * fs), text=line, size=fs, fill=TEXT_COLOUR,
                                 cls="status"))
            height += 1.4 * fs
    if hm is not None:
        shapes += _heatmap_legend(hm, heatmap_range, lay.width / 2, height, min(lay.width * 0.5, 10 * px), fs)
        height += 1.4 * fs
    return shapes, lay.width, math.ceil(height + 0.2 * fs)


def _panel(state: YinshState, lay: YinshLayout) -> list[_Shape]:
    """Beside the board: each player's removed rings (the one who decides framed), then the pool."""
    px, fs = lay.panel_px, lay.font_px
    x0 = lay.panel_x
    y = 0.3 * px
    shapes: list[_Shape] = []
    removed = state.rings_removed
    line_w = max(1.0, 0.035 * px)
    for p in (0, 1):
        name = PLAYER_NAMES[p]
        deciding = not state.is_terminal and state.to_move == p
        winner = state.is_terminal and state.winner == p
        notes = []  # what the framed player does, under the rings
        if deciding:
            notes.append(_DECISION_TEXT[state.decision_name])
            if state.resolving_opponent_rows:
                notes.append(f"(rows of {PLAYER_NAMES[1 - p]}'s move)")
        elif winner:
            notes.append("wins")
        block = (2.0 + 0.45 * len(notes)) * px
        if notes:
            shapes.append(_Shape("rect", (x0, y, x0 + _PANEL_WIDTH * px, y + block), fill=PANEL_COLOUR,
                                 stroke=HIGHLIGHT_COLOUR, width=max(1.0, 0.05 * px),
                                 cls="to-move" if deciding else "winner", data=(("player", name),)))
        shapes.append(_Shape("text", (x0 + 0.25 * px, y + 0.45 * px), text=name.capitalize(), size=fs,
                             fill=TEXT_COLOUR, cls="player", anchor="start", data=(("player", name),)))
        for k in range(state.rings_to_win):
            c = (x0 + (0.7 + 1.0 * k) * px, y + 1.25 * px)
            if k < removed[p]:
                shapes.append(_piece("ring", p, c, px, f"removed {name}", (("player", name),)))
            else:
                shapes.append(_Shape("circle", c, r=(RING_RADIUS + RING_HOLE) / 2 * px, stroke=SLOT_COLOUR,
                                     width=(RING_RADIUS - RING_HOLE) * px, cls="slot", data=(("player", name),)))
        for k, text in enumerate(notes):
            shapes.append(_Shape("text", (x0 + 0.25 * px, y + (2.05 + 0.45 * k) * px), text=text, size=0.85 * fs,
                                 fill=TEXT_COLOUR, cls="decision", anchor="start", data=(("player", name),)))
        y += max(block, 2.45 * px) + 0.3 * px
    # The pool: a marker showing both sides, and the count.
    c = (x0 + 0.7 * px, y + 0.5 * px)
    r = MARKER_RADIUS * px
    shapes.append(_Shape("circle", c, r=r, fill=PIECE_COLOURS[0], stroke=PIECE_OUTLINES[1], width=line_w, cls="pool"))
    half = [(c[0] + r * math.cos(a), c[1] + r * math.sin(a)) for a in np.linspace(-math.pi / 2, math.pi / 2, 13)]
    shapes.append(_Shape("polygon", tuple(v for p in half for v in p), fill=PIECE_COLOURS[1], cls="pool"))
    shapes.append(_Shape("text", (x0 + 1.2 * px, c[1]), text=f"pool {state.pool}", size=fs, fill=TEXT_COLOUR,
                         cls="pool", anchor="start", data=(("count", str(state.pool)),)))
    if state.blitz:
        shapes.append(_Shape("text", (x0 + 0.25 * px, c[1] + 1.0 * px), text="blitz: 1 ring wins", size=0.85 * fs,
                             fill=TEXT_COLOUR, cls="variant", anchor="start"))
    return shapes


def _check_points(points: Iterable[int | str], what: str) -> list[int]:
    if isinstance(points, (str, bytes)) or not isinstance(points, Iterable):
        raise ValueError(f"{what} must be a list of points (names like 'E5' or array indices), got {points!r}")
    out = []
    for x in points:
        try:
            out.append(_point(x))
        except ValueError as e:
            raise ValueError(f"{what}: {e}") from None
    return out


# ======================================================================= SVG
def to_svg(
    state: YinshState,
    heatmap: object | None = None,
    *,
    heatmap_range: tuple[float, float] | None = None,
    show_legal: bool = False,
    highlight: Iterable[int | str] | None = None,
    show_last_move: bool = True,
    show_coordinates: bool = True,
    show_status: bool = True,
    cell_px: float = 36,
) -> str:
    """The position as an SVG document (text).

    ``heatmap``: one float per array point (shape ``(121,)`` or ``(11, 11)``),
    NaN for none, coloured with viridis over ``heatmap_range`` (default: the
    values' min..max) on the hexagon round each point, e.g. a policy or value
    map. ``show_legal``: the legal actions of the current decision, green:
    a dot on each point where a ring may be placed or moved to, in each ring
    that may be chosen or removed, and a band under each row of five that
    may be removed. ``highlight``: points (names such as ``"E5"`` or array
    indices) to ring in red. ``show_last_move``: the latest ring move as a
    red line from start to destination. ``cell_px``: pixels between adjacent
    points (4 to 128).
    """
    shapes, width, height = _scene(state, heatmap, heatmap_range, show_legal, highlight, show_last_move,
                                   show_coordinates, show_status, cell_px)
    variant = "yinsh blitz" if state.blitz else "yinsh"
    return _svg_document(shapes, width, height, {"data-game": "yinsh", "data-blitz": str(state.blitz).lower()},
                         f"{variant}: {status_line(state)}")


# ======================================================================= RGB
def to_rgb(
    state: YinshState,
    heatmap: object | None = None,
    *,
    heatmap_range: tuple[float, float] | None = None,
    show_legal: bool = False,
    highlight: Iterable[int | str] | None = None,
    show_last_move: bool = True,
    show_coordinates: bool = True,
    show_status: bool = True,
    cell_px: float = 36,
) -> np.ndarray:
    """The picture of :func:`to_svg` (same arguments) as an ``H x W x 3`` uint8 array; needs pillow."""
    shapes, width, height = _scene(state, heatmap, heatmap_range, show_legal, highlight, show_last_move,
                                   show_coordinates, show_status, cell_px)
    return _paint(shapes, width, height)


__all__ = [
    "MARKER_RADIUS",
    "PIECE_COLOURS",
    "RING_HOLE",
    "RING_RADIUS",
    "SYMBOLS",
    "YinshLayout",
    "status_line",
    "to_rgb",
    "to_svg",
    "to_text",
    "yinsh_layout",
]
