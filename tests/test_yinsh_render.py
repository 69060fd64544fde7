"""Pictures of a YINSH position: SVG elements, RGB pixels, overlays, the panel, the env's render modes."""

import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from odd_env.games.odd import render
from odd_env import yinsh_v0
from odd_env import GameState, square
from odd_env.games.yinsh.state import YinshState, parse_point, point_name
from odd_env.games.yinsh.records import YinshRecord
from odd_env.games.odd.render import heatmap_colours
from odd_env.games.yinsh.render import MARKER_RADIUS, PIECE_COLOURS, RING_HOLE, RING_RADIUS, status_line, to_rgb, to_svg, yinsh_layout

SVG = "{http://www.w3.org/2000/svg}"
COLOURS = ("white", "black")

# A game like docs/rules/yinsh.md example 2.4: White's last move C5-C7 makes a white row
# A5-E5 and, flipping C6, a black row B6-F6.
BOTH_ROWS = """yinsh
A5
B6
B5
D6
D5
E6
E5
F6
C6
K10
A5-A3
B6-B7
B5-B2
D6-D8
D5-D3
E6-E8
E5-E3
F6-F8
C6-C5
K10-K9
"""


def random_state(seed: int, decisions: int, blitz: bool = False, until: str | None = None) -> YinshState:
    """A position after random legal decisions (then on to a decision of kind ``until``, if given)."""
    rng = np.random.default_rng(seed)
    s = YinshState(blitz=blitz)
    for k in range(10_000):
        if s.is_terminal or (k >= decisions and (until is None or s.decision_name == until)):
            break
        s.apply(int(rng.choice(s.legal_actions())))
    return s


def positions() -> list[YinshState]:
    """Positions of every decision kind, a finished game and blitz."""
    rows = YinshRecord.from_text(BOTH_ROWS + "C5-C7\n").state
    ring = YinshRecord.from_text(BOTH_ROWS + "C5-C7 xA5-E5\n").state
    opponent = YinshRecord.from_text(BOTH_ROWS + "C5-C7 xA5-E5 rA3\n").state
    return [
        YinshState(),
        random_state(1, 5),
        random_state(2, 40, until="move"),
        random_state(3, 60, until="destination"),
        rows, ring, opponent,
        random_state(4, 10_000),
        random_state(5, 10_000, blitz=True),
    ]


POSITIONS = positions()
IDS = [f"{i}-{s.decision_name}" for i, s in enumerate(POSITIONS)]


def elements(svg: str, *classes: str) -> list[ET.Element]:
    """The SVG elements whose class list holds all of ``classes``."""
    root = ET.fromstring(svg)
    return [e for e in root.iter() if set(classes) <= set(e.get("class", "").split())]


def points_of(elems) -> list[str]:
    return sorted(e.get("data-point") for e in elems)


def names(points) -> list[str]:
    return sorted(point_name(int(x)) for x in points)


def rgb(colour: str) -> tuple[int, int, int]:
    return tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))


def pixel(img, xy) -> tuple[int, int, int]:
    x, y = xy
    return tuple(int(v) for v in img[int(round(y)), int(round(x))])


# ----------------------------------------------------------------------- SVG
@pytest.mark.parametrize("s", POSITIONS, ids=IDS)
def test_svg_has_one_element_per_ring_and_marker_in_its_colour(s):
    svg = to_svg(s)
    root = ET.fromstring(svg)
    assert root.tag == SVG + "svg" and root.get("data-game") == "yinsh"
    assert root.get("data-blitz") == str(s.blitz).lower()
    for p, colour in enumerate(COLOURS):
        rings = elements(svg, "ring", colour)
        markers = elements(svg, "marker", colour)
        assert points_of(rings) == names(s.rings(p))
        assert points_of(markers) == names(s.markers(p))
        for e in rings + markers:
            assert e.get("fill") == PIECE_COLOURS[p]
            assert int(e.get("data-cell")) == parse_point(e.get("data-point"))
        assert all(e.tag == SVG + "path" and e.get("fill-rule") == "evenodd" for e in rings)  # open circles
        assert all(e.tag == SVG + "circle" for e in markers)  # discs
    assert len(elements(svg, "ring")) == int(np.isin(s.board, (1, 2)).sum())
    assert len(elements(svg, "marker")) == int(np.isin(s.board, (3, 4)).sum())


@pytest.mark.parametrize("s", POSITIONS, ids=IDS)
def test_svg_marks_the_chosen_ring_and_the_last_move(s):
    svg = to_svg(s)
    chosen = elements(svg, "chosen")
    assert points_of(chosen) == ([point_name(s.chosen_ring)] if s.chosen_ring >= 0 else [])
    path = elements(svg, "last-move", "path")
    if s.last_move is None:
        assert elements(svg, "last-move") == []
    else:
        start, end = (point_name(x) for x in s.last_move)
        assert [(e.get("data-from"), e.get("data-to")) for e in path] == [(start, end)]
        assert points_of(elements(svg, "last-move", "from")) == [start]
        assert points_of(elements(svg, "last-move", "to")) == [end]
        assert f"last move {start}-{end}" in " ".join(e.text for e in elements(svg, "status"))
    assert elements(to_svg(s, show_last_move=False), "last-move") == []


def test_the_chosen_ring_is_marked_while_its_destination_is_decided():
    s = YinshRecord.from_text(BOTH_ROWS + "C5-\n").state
    assert s.decision_name == "destination"
    assert points_of(elements(to_svg(s), "chosen")) == ["C5"]
    assert "white to move the ring on C5" in " ".join(e.text for e in elements(to_svg(s), "status"))


@pytest.mark.parametrize("s", POSITIONS, ids=IDS)
def test_legal_overlay_matches_the_mask(s):
    svg = to_svg(s, show_legal=True)
    mask = s.legal_action_mask()
    n = 121
    dots = elements(svg, "legal")
    assert points_of(e for e in dots if e.get("data-point")) == names(np.flatnonzero(mask[:n]))
    rows = sorted(e.get("data-row") for e in dots if e.get("data-row"))
    assert rows == sorted(s.action_to_string(int(a)) for a in np.flatnonzero(mask[n : 4 * n]) + n)
    assert all(r.startswith("x") for r in rows)
    assert elements(to_svg(s), "legal") == []


def test_legal_rows_are_shown_for_the_mover_then_the_opponent():
    white = YinshRecord.from_text(BOTH_ROWS + "C5-C7\n").state
    black = YinshRecord.from_text(BOTH_ROWS + "C5-C7 xA5-E5 rA3\n").state
    assert [e.get("data-row") for e in elements(to_svg(white, show_legal=True), "legal", "row")] == ["xA5-E5"]
    assert [e.get("data-row") for e in elements(to_svg(black, show_legal=True), "legal", "row")] == ["xB6-F6"]


@pytest.mark.parametrize("s", POSITIONS, ids=IDS)
def test_panel_shows_removed_rings_pool_and_who_decides(s):
    svg = to_svg(s)
    for p, colour in enumerate(COLOURS):
        removed = elements(svg, "removed", colour)
        assert len(removed) == s.rings_removed[p]
        assert all(e.get("fill") == PIECE_COLOURS[p] for e in removed)
    assert len(elements(svg, "slot")) == 2 * s.rings_to_win - sum(s.rings_removed)
    assert [e.get("data-count") for e in elements(svg, "pool") if e.get("data-count")] == [str(s.pool)]
    framed = [e.get("data-player") for e in elements(svg, "to-move")]
    decision = " ".join(e.text for e in elements(svg, "decision"))
    status = " ".join(e.text for e in elements(svg, "status"))
    if s.is_terminal:
        assert framed == []
        assert status.startswith("game over")
        winner = [e.get("data-player") for e in elements(svg, "winner")]
        assert winner == ([] if s.winner is None else [COLOURS[s.winner]])
    else:
        assert framed == [COLOURS[s.to_move]]
        words = {"place": "place", "move": "choose a ring", "destination": "move the chosen ring",
                 "remove_row": "remove a row", "remove_ring": "remove a ring", "pass": "pass"}
        assert words[s.decision_name] in decision
        assert status.startswith(COLOURS[s.to_move])
        assert (f"(rows of {COLOURS[1 - s.to_move]}'s move)" in decision) == s.resolving_opponent_rows


def test_point_names_stand_on_the_edges_clear_of_the_points_and_of_each_other():
    s = POSITIONS[2]
    svg = to_svg(s)
    coords = elements(svg, "coord")
    assert sorted(e.text for e in coords) == sorted([*"ABCDEFGHIJK", *map(str, range(1, 12))])
    lay = yinsh_layout()
    centres = [lay.centre(int(x)) for x in np.flatnonzero(s.geometry.onboard)]
    spots = [(float(e.get("x")), float(e.get("y"))) for e in coords]
    for spot in spots:
        assert min(math.dist(spot, c) for c in centres) > 0.75 * lay.cell_px
    assert min(math.dist(a, b) for i, a in enumerate(spots) for b in spots[:i]) > 0.55 * lay.cell_px
    # A letter stands below its column, a number up and to the left of its line's first point.
    label = {e.text: (float(e.get("x")), float(e.get("y"))) for e in coords}
    e1, e10 = lay.centre(parse_point("E1")), lay.centre(parse_point("E10"))
    assert label["E"][0] == pytest.approx(e1[0], abs=0.01) and label["E"][1] > e1[1]
    assert label["10"][0] < e10[0] and label["10"][1] < e10[1]
    assert elements(to_svg(s, show_coordinates=False, show_status=False), "coord") == []
    assert elements(to_svg(s, show_status=False), "status") == []


def test_lines_join_the_points_in_the_three_directions():
    svg = to_svg(YinshState())
    lay = yinsh_layout()
    g = YinshState.geometry
    grid = elements(svg, "grid")
    ends = {(round(float(e.get("x1"))), round(float(e.get("y1"))), round(float(e.get("x2"))), round(float(e.get("y2"))))
            for e in grid}
    # Every pair of neighbouring points lies on one drawn line.
    def on_segment(p, seg):
        a, b = (seg[0], seg[1]), (seg[2], seg[3])
        return abs(math.dist(a, p) + math.dist(p, b) - math.dist(a, b)) < 1.0

    for x in np.flatnonzero(g.onboard):
        for y in g.neighbours[x]:
            if y >= 0:
                mid = tuple((u + v) / 2 for u, v in zip(lay.centre(int(x)), lay.centre(int(y))))
                assert any(on_segment(mid, seg) for seg in ends)
    assert len(grid) == 3 * 11  # 11 lines in each direction


def test_heatmap_values_colour_the_points():
    s = POSITIONS[2]
    values = np.full(121, np.nan)
    empty = [int(x) for x in np.flatnonzero(s.board == 0)]
    values[empty[0]], values[empty[1]], values[empty[2]] = 0.0, 1.0, 1.0
    svg = to_svg(s, heatmap=values)
    heat = {e.get("data-point"): e.get("fill") for e in elements(svg, "heat")}
    assert set(heat) == {point_name(x) for x in empty[:3]}
    assert heat[point_name(empty[1])] == heat[point_name(empty[2])] == heatmap_colours([1.0], (0.0, 1.0))[0]
    assert heat[point_name(empty[0])] != heat[point_name(empty[1])]
    assert elements(svg, "legend")
    again = to_svg(s, heatmap=values.reshape(11, 11) * 10, heatmap_range=(0, 5))
    assert {e.get("data-point"): e.get("fill") for e in elements(again, "heat")} == heat
    with pytest.raises(ValueError, match=r"one value per array cell, shape \(121,\) or \(11, 11\) for yinsh, got"):
        to_svg(s, heatmap=np.zeros(85))


def test_highlight_takes_point_names_or_indices():
    s = POSITIONS[1]
    svg = to_svg(s, highlight=["E5", parse_point("k10"), "a2"])
    assert points_of(elements(svg, "highlight")) == ["A2", "E5", "K10"]
    assert elements(to_svg(s), "highlight") == []
    with pytest.raises(ValueError, match="highlight: 'A1' is not a point of the YINSH board"):
        to_svg(s, highlight=["A1"])
    with pytest.raises(ValueError, match="highlight must be a list of points"):
        to_svg(s, highlight="E5")


def test_bad_arguments_say_what_is_wrong():
    with pytest.raises(ValueError, match="expected a YinshState, got GameState"):
        to_svg(GameState(square(5)))
    with pytest.raises(ValueError, match="expected a YinshState, got GameState"):
        status_line(GameState(square(5)))
    # and the other way round: the Xodd/Yodd pictures and drawings name the YINSH module
    from odd_env.games.odd import positions, render

    for draw in (render.to_text, render.to_svg, render.to_rgb):
        with pytest.raises(ValueError, match="got YinshState \\(YINSH positions are drawn by odd_env.games.yinsh.render\\)"):
            draw(YinshState())
        with pytest.raises(ValueError, match="expected an Xodd or Yodd GameState, got NoneType"):
            draw(None)
    with pytest.raises(ValueError, match="to_ascii draws Xodd and Yodd positions .* got YinshState"):
        positions.to_ascii(YinshState())
    for bad in (0, 2, 500, "36", True):
        with pytest.raises(ValueError, match="cell_px must be a number of pixels from 4 to 128"):
            to_svg(YinshState(), cell_px=bad)


def test_repr_svg_of_state_env_and_record():
    rec = YinshRecord.from_text(BOTH_ROWS + "C5-C7 xA5-E5\n")
    s = rec.state
    assert s._repr_svg_() == to_svg(s) == rec._repr_svg_()
    e = yinsh_v0.raw_env()
    e.reset(options={"record": rec})
    assert e._repr_svg_() == to_svg(s)


@pytest.mark.parametrize("px", [4, 12, 20, 27, 36])
def test_the_panel_text_stays_clear_of_its_rings_and_inside_the_picture(px):
    """Text has a smallest size (10 px); on small pictures the panel grows with it."""
    ns = "{http://www.w3.org/2000/svg}"
    lay = yinsh_layout(px)
    assert lay.panel_px == max(px, lay.font_px / 0.36)
    for s in POSITIONS:
        root = ET.fromstring(to_svg(s, cell_px=px))
        width, height = float(root.get("width")), float(root.get("height"))
        boxes = []  # (x0, y0, x1, y1, what) of the panel's text and ring slots
        for t in root.iter(ns + "text"):
            x, y, size = float(t.get("x")), float(t.get("y")), float(t.get("font-size"))
            if x < lay.panel_x or t.get("class") in ("status", "legend"):
                continue
            boxes.append((x, y - 0.5 * size, x + 0.55 * size * len(t.text), y + 0.5 * size, t.text))
        texts = len(boxes)
        for c in root.iter(ns + "circle"):
            x, y, r = float(c.get("cx")), float(c.get("cy")), float(c.get("r"))
            if x >= lay.panel_x and c.get("class") != "pool":
                boxes.append((x - r, y - r, x + r, y + r, c.get("class")))
        assert texts and len(boxes) > texts
        for i, (x0, y0, x1, y1, what) in enumerate(boxes):
            assert 0 <= x0 and x1 <= width and 0 <= y0 and y1 <= lay.board_height <= height, (px, what)
            for a0, b0, a1, b1, other in boxes[:min(i, texts)]:  # text against text and rings
                overlap = min(x1, a1) - max(x0, a0) > 0.5 and min(y1, b1) - max(y0, b0) > 0.5
                assert not overlap, (px, s.decision_name, what, other)


# ----------------------------------------------------------------------- RGB
@pytest.mark.parametrize("s", POSITIONS[1:], ids=IDS[1:])
def test_rgb_has_rings_and_markers_of_the_right_colour_at_their_points(s):
    pytest.importorskip("PIL")
    px = 40
    img = to_rgb(s, cell_px=px)
    lay = yinsh_layout(px)
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
    assert img.shape[1] == lay.width and img.shape[0] > lay.board_height
    band = (RING_RADIUS + RING_HOLE) / 2 * px
    for x in np.flatnonzero(s.geometry.onboard):
        v = int(s.board[x])
        cx, cy = lay.centre(int(x))
        if v in (1, 2):  # a ring: its colour on the band, something else in the hole
            colour = rgb(PIECE_COLOURS[v - 1])
            for dx, dy in ((band, 0), (-band, 0), (0, band), (0, -band)):
                assert pixel(img, (cx + dx, cy + dy)) == colour
            assert pixel(img, (cx, cy)) != colour
            assert pixel(img, (cx + 0.5 * RING_HOLE * px, cy)) != colour
        elif v in (3, 4):  # a marker: a disc of its colour (with a red dot at the last move's start)
            colour = rgb(PIECE_COLOURS[v - 3])
            assert pixel(img, (cx + 0.6 * MARKER_RADIUS * px, cy)) == colour
            if s.last_move is None or x != s.last_move[0]:
                assert pixel(img, (cx, cy)) == colour
        else:
            assert pixel(img, (cx, cy)) not in (rgb(PIECE_COLOURS[0]), rgb(PIECE_COLOURS[1]))


def test_rgb_and_svg_share_their_size():
    pytest.importorskip("PIL")
    s = POSITIONS[4]
    for px in (12, 36, 50):
        root = ET.fromstring(to_svg(s, cell_px=px))
        assert to_rgb(s, cell_px=px).shape == (int(root.get("height")), int(root.get("width")), 3)


# ------------------------------------------------------------------- the env
def test_env_render_modes():
    pytest.importorskip("PIL")
    assert set(yinsh_v0.raw_env.metadata["render_modes"]) == {"ansi", "rgb_array", "human"}
    e = yinsh_v0.env(render_mode="rgb_array")
    e.reset()
    for _ in range(12):
        e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    np.testing.assert_array_equal(e.render(), to_rgb(e.unwrapped.game_state))
    e = yinsh_v0.env(render_mode="ansi", blitz=True)
    e.reset()
    assert "white to place a ring" in e.render()


def test_human_mode_without_a_display_warns_once(monkeypatch):
    pytest.importorskip("PIL")
    monkeypatch.setattr(render, "has_display", lambda: False)
    e = yinsh_v0.raw_env(render_mode="human")
    with pytest.warns(RuntimeWarning, match="needs a display"):
        e.reset()
    e.step(int(e.game_state.legal_actions()[0]))  # no second warning, no window
    assert e.render() is None
    e.close()
