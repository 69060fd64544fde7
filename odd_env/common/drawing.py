"""Drawing pieces every game's pictures share: colours, SVG and RGB output of shapes, heat maps, a window.

A game's renderer (:mod:`odd_env.games.odd.render`,
:mod:`odd_env.games.yinsh.render`) lays its board out as a list of
:class:`_Shape` values; :func:`_svg_document` writes them as SVG and
:func:`_paint` as an RGB array (Pillow), so that the two pictures always
agree. :class:`HumanViewer` shows RGB frames in a window when there is a
display (the ``"human"`` render mode).
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from xml.sax.saxutils import escape, quoteattr

import numpy as np

from .geometry import Geometry

_TEXT_ANCHORS = {"start": "lm", "middle": "mm", "end": "rm"}

_SUPERSAMPLE = 2  # draw at twice the size and reduce: smooth edges without a dependency on antialiasing


STONE_COLOURS = {1: "#141414", 2: "#f4f4f0"}
"""Fill colour of the stones of each board value (1 black, 2 white)."""


STONE_OUTLINES = {1: "#000000", 2: "#3c3c3c"}


BACKGROUND = "#f8f5ee"


BOARD_COLOUR = "#dcb35c"
"""Colour of the empty board (the wood of the Xodd grid, the Yodd cells)."""


LINE_COLOUR = "#5b4320"


HIGHLIGHT_COLOUR = "#e0301e"


TEXT_COLOUR = "#2b2b2b"


_VIRIDIS = np.array(
    [[0x44, 0x01, 0x54], [0x3B, 0x52, 0x8B], [0x21, 0x91, 0x8C], [0x5E, 0xC9, 0x62], [0xFD, 0xE7, 0x25]],
    dtype=float,
)


CELL_PX_RANGE = (4, 128)
"""Allowed ``cell_px`` (pixels between adjacent cells): below 4 nothing is legible, above
128 a 19 x 19 RGB picture takes hundreds of megabytes."""


def _check_cell_px(cell_px: object) -> float:
    lo, hi = CELL_PX_RANGE
    if isinstance(cell_px, (bool, np.bool_)) or not isinstance(cell_px, (int, float, np.integer, np.floating)) \
            or not lo <= cell_px <= hi:
        raise ValueError(f"cell_px must be a number of pixels from {lo} to {hi}, got {cell_px!r}")
    return float(cell_px)


@dataclass(frozen=True)
class _Shape:
    """One drawing primitive, in pixels; painted by both the SVG writer and the pillow painter."""

    # "rect" (x0, y0, x1, y1), "polygon" (x0, y0, x1, y1, ...), "circle" (cx, cy),
    # "line" (x0, y0, x1, y1), "text" (x, y), "ring" (cx, cy)
    kind: str
    xy: tuple[float, ...]
    r: float = 0.0
    fill: str | None = None
    stroke: str | None = None
    width: float = 0.0
    text: str = ""
    size: float = 0.0
    cls: str = ""
    data: tuple[tuple[str, str], ...] = ()
    r2: float = 0.0  # "ring": the band between radii r2 and r is filled, the hole left open
    anchor: str = "middle"  # "text": "start", "middle" or "end" of the text at x


def heatmap_colours(values: np.ndarray, value_range: tuple[float, float] | None = None) -> list[str | None]:
    """The colour (``"#rrggbb"``, viridis) of each value, None where it is not finite;
    ``value_range`` (two finite numbers, low <= high) defaults to min..max."""
    v = _as_floats(values, "heatmap values").reshape(-1)
    finite = v[np.isfinite(v)]
    if value_range is None:
        lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    else:
        lo, hi = _check_range(value_range)
    span = hi - lo
    out: list[str | None] = []
    for x in v:
        if not np.isfinite(x):
            out.append(None)
            continue
        t = 0.5 if span <= 0 else min(1.0, max(0.0, (x - lo) / span))
        out.append(_hex(_viridis(t)))
    return out


def _viridis(t: float) -> np.ndarray:
    pos = t * (len(_VIRIDIS) - 1)
    i = min(int(pos), len(_VIRIDIS) - 2)
    f = pos - i
    return _VIRIDIS[i] * (1 - f) + _VIRIDIS[i + 1] * f


def _hex(rgb: Iterable[float]) -> str:
    return "#" + "".join(f"{int(round(c)):02x}" for c in rgb)


def _fmt(x: float) -> str:
    return f"{x:.4g}"


def _as_floats(values: object, what: str) -> np.ndarray:
    """``values`` as a float array; ValueError if they are not real numbers."""
    arr = np.asarray(values)
    if arr.dtype.kind not in "biuf":
        raise ValueError(f"{what} must be real numbers, got an array of dtype {arr.dtype}")
    return arr.astype(float)


def _check_range(value_range: object) -> tuple[float, float]:
    """``(low, high)``: two finite numbers with low <= high; ValueError otherwise."""
    r = _as_floats(value_range, "heatmap_range") if value_range is not None else None
    if r is None or r.shape != (2,) or not np.all(np.isfinite(r)) or r[0] > r[1]:
        raise ValueError(f"heatmap_range must be (low, high), two finite numbers with low <= high, got {value_range!r}")
    return float(r[0]), float(r[1])


def _check_heatmap(g: Geometry, heatmap: object) -> np.ndarray:
    hm = _as_floats(heatmap, "heatmap")
    if hm.shape not in ((g.num_cells,), (g.height, g.width)):
        raise ValueError(
            f"heatmap must hold one value per array cell, shape ({g.num_cells},) or "
            f"({g.height}, {g.width}) for {g.game if g.game == 'yinsh' else f'{g.game} {g.size}'}, got shape {hm.shape}"
        )
    hm = hm.reshape(-1).copy()
    hm[~g.onboard] = np.nan
    return hm


def _heatmap_legend(
    values: np.ndarray, value_range: tuple[float, float] | None, centre_x: float, top: float, bar_w: float, fs: float
) -> list[_Shape]:
    """The colour bar of a heatmap with its two end values, centred on ``centre_x``, 1.4 ``fs`` high from ``top``."""
    finite = values[np.isfinite(values)]
    lo, hi = value_range if value_range is not None else (
        (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0))
    x = centre_x - bar_w / 2
    y0, y1 = top + 0.25 * fs, top + 1.05 * fs
    steps = 24
    shapes = [_Shape("rect", (x + bar_w * i / steps, y0, x + bar_w * (i + 1) / steps + 0.5, y1),
                     fill=_hex(_viridis(i / (steps - 1))), cls="legend") for i in range(steps)]
    shapes.append(_Shape("text", (x - 0.3 * fs - 0.28 * fs * len(_fmt(lo)), (y0 + y1) / 2), text=_fmt(lo),
                         size=fs, fill=TEXT_COLOUR, cls="legend"))
    shapes.append(_Shape("text", (x + bar_w + 0.3 * fs + 0.28 * fs * len(_fmt(hi)), (y0 + y1) / 2), text=_fmt(hi),
                         size=fs, fill=TEXT_COLOUR, cls="legend"))
    return shapes


def _flat(points: Sequence[tuple[float, float]]) -> tuple[float, ...]:
    return tuple(v for p in points for v in p)


def _svg_document(shapes: Sequence[_Shape], width: int, height: int, attrs: dict[str, str], title: str) -> str:
    """An SVG document of ``shapes`` on the background, its root of class ``odd-board`` with ``attrs``."""
    extra = "".join(f" {k}={quoteattr(v)}" for k, v in attrs.items())
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" class="odd-board"{extra}>',
        f"<title>{escape(title)}</title>",
        f'<rect class="background" x="0" y="0" width="{width}" height="{height}" fill="{BACKGROUND}"/>',
    ]
    out += [_svg_element(s) for s in shapes]
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _svg_element(s: _Shape) -> str:
    attrs = []
    if s.cls:
        attrs.append(f'class="{s.cls}"')
    attrs += [f"data-{k}={quoteattr(v)}" for k, v in s.data]
    paint = f'fill="{s.fill or "none"}"'
    if s.stroke:
        paint += f' stroke="{s.stroke}" stroke-width="{_fmt(s.width)}"'
    a = " ".join(attrs)
    if s.kind == "rect":
        x0, y0, x1, y1 = s.xy
        return f'<rect {a} x="{x0:.2f}" y="{y0:.2f}" width="{x1 - x0:.2f}" height="{y1 - y0:.2f}" {paint}/>'
    if s.kind == "polygon":
        pts = " ".join(f"{s.xy[i]:.2f},{s.xy[i + 1]:.2f}" for i in range(0, len(s.xy), 2))
        return f'<polygon {a} points="{pts}" {paint}/>'
    if s.kind == "circle":
        return f'<circle {a} cx="{s.xy[0]:.2f}" cy="{s.xy[1]:.2f}" r="{s.r:.2f}" {paint}/>'
    if s.kind == "line":
        x0, y0, x1, y1 = s.xy
        return (f'<line {a} x1="{x0:.2f}" y1="{y0:.2f}" x2="{x1:.2f}" y2="{y1:.2f}" '
                f'stroke="{s.stroke}" stroke-width="{_fmt(s.width)}"/>')
    if s.kind == "text":
        return (f'<text {a} x="{s.xy[0]:.2f}" y="{s.xy[1]:.2f}" font-size="{_fmt(s.size)}" '
                f'font-family="Helvetica, Arial, sans-serif" text-anchor="{s.anchor}" dominant-baseline="central" '
                f'fill="{s.fill}">{escape(s.text)}</text>')
    if s.kind == "ring":
        # One element: two circles, the inner one cut out (even-odd), the outline drawn inside r and outside r2.
        cx, cy = s.xy
        half = s.width / 2 if s.stroke else 0.0
        d = " ".join(_svg_circle_path(cx, cy, rr) for rr in (s.r - half, s.r2 + half))
        return f'<path {a} d="{d}" fill-rule="evenodd" {paint}/>'
    raise AssertionError(s.kind)


def _svg_circle_path(cx: float, cy: float, r: float) -> str:
    return (f"M{cx - r:.2f},{cy:.2f} A{r:.2f},{r:.2f} 0 1,0 {cx + r:.2f},{cy:.2f} "
            f"A{r:.2f},{r:.2f} 0 1,0 {cx - r:.2f},{cy:.2f} Z")


def _paint(shapes: Sequence[_Shape], width: int, height: int) -> np.ndarray:
    """``shapes`` painted with pillow on the background, as an ``height x width x 3`` uint8 array."""
    try:
        from PIL import Image, ImageDraw
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("to_rgb and render_mode='rgb_array' need pillow: pip install pillow") from e
    k = _SUPERSAMPLE
    img = Image.new("RGB", (width * k, height * k), BACKGROUND)
    draw = ImageDraw.Draw(img)
    for s in shapes:
        xy = [v * k for v in s.xy]
        w = max(1, round(s.width * k)) if s.stroke else 0
        if s.kind == "rect":
            draw.rectangle(xy, fill=s.fill, outline=s.stroke, width=w)
        elif s.kind == "polygon":
            draw.polygon(xy, fill=s.fill, outline=s.stroke, width=w)
        elif s.kind == "circle":
            cx, cy = xy
            r = s.r * k
            draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=s.fill, outline=s.stroke, width=w)
        elif s.kind == "line":
            draw.line(xy, fill=s.stroke, width=w)
        elif s.kind == "text":
            draw.text(xy, s.text, fill=s.fill, font=_font(round(s.size * k)), anchor=_TEXT_ANCHORS[s.anchor])
        elif s.kind == "ring":
            # Pillow draws an ellipse's outline inside its box and leaves the inside alone: the
            # outline colour over the whole band, then the fill colour over the band less the outline.
            cx, cy = xy
            r, r2 = s.r * k, s.r2 * k
            draw.ellipse([cx - r, cy - r, cx + r, cy + r], outline=s.stroke or s.fill, width=round(r - r2))
            if s.stroke:
                inset = r - w
                draw.ellipse([cx - inset, cy - inset, cx + inset, cy + inset], outline=s.fill,
                             width=max(1, round(r - r2) - 2 * w))
    img = img.reduce(k)
    return np.asarray(img, dtype=np.uint8).copy()


@lru_cache(maxsize=16)
def _font(size: int):
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # pragma: no cover - pillow < 10.1 has only the fixed bitmap font
        return ImageFont.load_default()


def has_display() -> bool:
    """Whether a window can be opened (always on Windows and macOS; on Linux when DISPLAY or WAYLAND_DISPLAY is set)."""
    if sys.platform in ("win32", "darwin"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


class HumanViewer:
    """A window showing RGB images, opened on first use: matplotlib if it has an interactive backend, else pillow's viewer."""

    def __init__(self, title: str = "odd_env"):
        """A viewer whose window will be titled ``title``."""
        self.title = title
        self._fig = None
        self._artist = None
        self._warned = False

    def can_show(self) -> bool:
        """Whether a display exists; warns once when it does not."""
        if has_display():
            return True
        if not self._warned:
            warnings.warn("render_mode='human' needs a display; none was found, so nothing is shown",
                          RuntimeWarning, stacklevel=4)
            self._warned = True
        return False

    def show(self, image: np.ndarray, pause: float = 0.001) -> None:
        """Show ``image`` (H x W x 3 uint8), replacing the previous one; warn once and do nothing without a display."""
        if not self.can_show():
            return
        try:
            import matplotlib
            import matplotlib.pyplot as plt
        except ImportError:
            plt = None
        if plt is not None and matplotlib.get_backend().lower() not in ("agg", "pdf", "ps", "svg", "cairo", "template"):
            if self._fig is None or not plt.fignum_exists(self._fig.number):
                plt.ion()
                self._fig = plt.figure(self.title)
                ax = self._fig.add_axes((0, 0, 1, 1))
                ax.set_axis_off()
                self._artist = ax.imshow(image)
            else:
                self._artist.set_data(image)
            self._fig.canvas.draw_idle()
            plt.pause(pause)
            return
        from PIL import Image

        Image.fromarray(image).show(title=self.title)

    def close(self) -> None:
        """Close the window if one is open."""
        if self._fig is not None:
            import matplotlib.pyplot as plt

            plt.close(self._fig)
            self._fig = None
            self._artist = None
