"""Pictures of a position: SVG, RGB arrays, overlays, and the envs' render modes."""

import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from odd_env.games.odd import render
from odd_env import xodd_v0, yodd_v0
from odd_env import GameState, hexhex, square
from odd_env.games.odd.notation import cell_name, column_letters
from odd_env.games.odd.records import GameRecord
from odd_env.games.odd.render import BOARD_COLOUR, STONE_COLOURS, board_layout, heatmap_colours, to_rgb, to_svg

BOARDS = [square(2), square(5), square(9), hexhex(2), hexhex(4), hexhex(6)]
SVG = "{http://www.w3.org/2000/svg}"


def _id(g):
    return f"{g.game}{g.size}"


def random_state(g, seed, actions=12, step2=False):
    """A position after random legal play (ending in step 2 of a turn if ``step2`` and possible)."""
    rng = np.random.default_rng(seed)
    s = GameState(g)
    for _ in range(actions):
        if s.is_terminal:
            break
        s.apply(int(rng.choice(s.legal_actions())))
    for _ in range(50):
        if not step2 or s.turn_step == 2 or s.is_terminal:
            break
        s.apply(int(rng.choice(s.legal_actions())))
    return s


def elements(svg, cls):
    """The SVG elements whose class list holds ``cls``."""
    root = ET.fromstring(svg)
    return [e for e in root.iter() if cls in e.get("class", "").split()]


def rgb(colour):
    return tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))


def pixel(img, xy):
    x, y = xy
    return tuple(int(v) for v in img[int(round(y)), int(round(x))])


# ----------------------------------------------------------------------- SVG
@pytest.mark.parametrize("g", BOARDS, ids=_id)
def test_svg_has_one_element_per_stone_with_its_colour(g):
    s = random_state(g, seed=g.size, actions=3 * g.size)
    svg = to_svg(s)
    root = ET.fromstring(svg)
    assert root.tag == SVG + "svg" and root.get("data-game") == g.game
    board = s.board
    for value, colour in ((1, "black"), (2, "white")):
        stones = elements(svg, "stone")
        mine = [e for e in stones if colour in e.get("class").split()]
        assert sorted(int(e.get("data-cell")) for e in mine) == list(np.flatnonzero(board == value))
        assert all(e.get("fill") == STONE_COLOURS[value] for e in mine)
        assert all(e.get("data-name") == ("B" if value == 1 else "W") + cell_name(g, int(e.get("data-cell")))
                   for e in mine)
    assert len(elements(svg, "stone")) == int(np.isin(board, (1, 2)).sum())


@pytest.mark.parametrize("g", [square(5), hexhex(4)], ids=_id)
def test_svg_rings_the_stone_of_the_current_turn(g):
    s = random_state(g, seed=2, actions=5, step2=True)
    assert s.turn_step == 2
    rings = elements(to_svg(s), "highlight")
    assert [int(e.get("data-cell")) for e in rings] == [s.first_stone]
    s.apply(int(s.legal_actions()[-1]))  # end the turn (or a second stone)
    assert elements(to_svg(s), "highlight") == []
    cells = list(np.flatnonzero(g.onboard)[:3])
    assert [int(e.get("data-cell")) for e in elements(to_svg(s, highlight=cells), "highlight")] == cells
    with pytest.raises(ValueError, match="highlight cell"):
        to_svg(s, highlight=[g.num_cells])


@pytest.mark.parametrize("g", BOARDS, ids=_id)
def test_svg_shows_coordinates_counts_and_parity(g):
    s = random_state(g, seed=4, actions=7)
    svg = to_svg(s)
    coords = {e.text for e in elements(svg, "coord")}
    assert coords == set(column_letters(g)) | {str(i) for i in range(1, g.height + 1)}
    status = " ".join(e.text for e in elements(svg, "status"))
    b, w = s.group_counts
    assert f"black {b}, white {w}, total {b + w} ({'odd' if (b + w) % 2 else 'even'})" in status
    assert (f"game over: {'black' if s.winner == 0 else 'white'} wins" if s.is_terminal
            else f"to play, step {s.turn_step}") in status
    assert elements(to_svg(s, show_coordinates=False, show_status=False), "coord") == []


@pytest.mark.parametrize("g", [square(5), hexhex(4)], ids=_id)
def test_heatmap_values_reach_the_picture(g):
    s = random_state(g, seed=1, actions=4)
    values = np.full(g.num_cells, np.nan)
    empty = [int(c) for c in np.flatnonzero(s.board == 0)]
    values[empty[0]], values[empty[1]], values[empty[2]] = 0.0, 1.0, 1.0
    svg = to_svg(s, heatmap=values)
    heat = {int(e.get("data-cell")): e.get("fill") for e in elements(svg, "heat")}
    assert set(heat) == set(empty[:3])  # NaN cells carry no colour
    assert heat[empty[0]] != heat[empty[1]] == heat[empty[2]]
    assert heat[empty[1]] == heatmap_colours([1.0], (0.0, 1.0))[0] == "#fde725"  # the top of viridis
    # A fixed range and a 2-D map work too; values are clipped to the range.
    svg2 = to_svg(s, heatmap=values.reshape(g.height, g.width) * 10, heatmap_range=(0, 5))
    heat2 = {int(e.get("data-cell")): e.get("fill") for e in elements(svg2, "heat")}
    assert heat2 == heat
    with pytest.raises(ValueError, match="one value per array cell"):
        to_svg(s, heatmap=np.zeros(g.num_cells + 1))


@pytest.mark.parametrize("g", [square(5), hexhex(3)], ids=_id)
def test_legal_overlay_matches_the_mask(g):
    for step2 in (False, True):
        s = random_state(g, seed=6, actions=3, step2=step2)
        mask = s.legal_action_mask()
        n = g.num_cells
        own, other = ("black", "white") if s.to_move == 0 else ("white", "black")
        svg = to_svg(s, show_legal=True)
        for colour, part in ((own, mask[:n]), (other, mask[n : 2 * n])):
            cells = sorted(int(e.get("data-cell")) for e in elements(svg, "legal") if colour in e.get("class"))
            assert cells == list(np.flatnonzero(part))
        assert elements(to_svg(s), "legal") == []


@pytest.mark.parametrize("g", [square(6), hexhex(4)], ids=_id)
def test_group_overlay_outlines_every_group(g):
    s = random_state(g, seed=9, actions=20)
    svg = to_svg(s, show_groups=True)
    outlined = {e.get("data-group") for e in elements(svg, "group")}
    assert len(outlined) == s.total_groups
    labels = {int(e.get("data-cell")): e.text for e in elements(svg, "group-label")}
    for c in np.flatnonzero(np.isin(s.board, (1, 2))):
        for d in g.neighbours[c]:
            if d >= 0 and s.board[d] == s.board[c]:
                assert labels[int(c)] == labels[int(d)]
    b, w = s.group_counts
    for value, count in ((1, b), (2, w)):
        assert {labels[int(c)] for c in np.flatnonzero(s.board == value)} == {str(i) for i in range(1, count + 1)}


def test_repr_svg_of_state_env_and_record():
    s = random_state(hexhex(3), seed=0, actions=5)
    assert s._repr_svg_() == to_svg(s)
    e = yodd_v0.raw_env(board_size=3)
    e.reset(options={"state": s})
    assert e._repr_svg_() == to_svg(s)
    rec = GameRecord.from_text("xodd 5\nBc3\nWb3,Be1\n")
    ET.fromstring(rec._repr_svg_())
    rings = {int(x.get("data-cell")) for x in elements(rec._repr_svg_(), "highlight")}
    assert rings == {c for c, _ in rec.turns[-1]}


# ----------------------------------------------------------------------- RGB
@pytest.mark.parametrize("g", BOARDS, ids=_id)
def test_rgb_has_the_stone_colours_at_stone_centres(g):
    pytest.importorskip("PIL")
    s = random_state(g, seed=g.size + 1, actions=3 * g.size, step2=True)
    img = to_rgb(s, cell_px=24)
    lay = board_layout(g, 24)
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
    assert img.shape[1] == lay.width and img.shape[0] > lay.board_height
    for c in np.flatnonzero(g.onboard):
        value = int(s.board[c])
        x, y = lay.centre(int(c))
        if value:
            assert pixel(img, (x, y)) == rgb(STONE_COLOURS[value])
        else:  # off the Xodd grid lines
            assert pixel(img, (x + 6, y + 6)) == rgb(BOARD_COLOUR)


@pytest.mark.parametrize("g", [square(5), hexhex(4)], ids=_id)
def test_rgb_heatmap_colours_differ_where_values_differ(g):
    pytest.importorskip("PIL")
    s = GameState(g)
    values = np.where(g.onboard, 0.0, np.nan)
    cells = np.flatnonzero(g.onboard)
    lo, hi, also_hi = int(cells[0]), int(cells[-1]), int(cells[len(cells) // 2])
    values[hi] = values[also_hi] = 1.0
    img = to_rgb(s, heatmap=values, cell_px=24)
    plain = to_rgb(s, cell_px=24)
    lay = board_layout(g, 24)

    def at(im, c):
        x, y = lay.centre(c)
        return pixel(im, (x + 6, y + 6))

    assert at(img, hi) == at(img, also_hi) == rgb("#fde725")
    assert at(img, lo) != at(img, hi)
    assert at(img, lo) != at(plain, lo)


def test_env_render_modes():
    pytest.importorskip("PIL")
    assert set(xodd_v0.raw_env.metadata["render_modes"]) == {"ansi", "rgb_array", "human"}
    e = xodd_v0.env(board_size=5, render_mode="rgb_array")
    e.reset()
    e.step(int(np.flatnonzero(e.observe("black_0")["action_mask"])[0]))
    np.testing.assert_array_equal(e.render(), to_rgb(e.unwrapped.game_state))
    e = yodd_v0.env(board_size=3, render_mode="ansi")
    e.reset()
    assert isinstance(e.render(), str)


def test_human_mode_without_a_display_warns_once(monkeypatch):
    pytest.importorskip("PIL")
    monkeypatch.setattr(render, "has_display", lambda: False)
    e = yodd_v0.raw_env(board_size=3, render_mode="human")
    with pytest.warns(RuntimeWarning, match="needs a display"):
        e.reset()
    e.step(int(np.flatnonzero(e.observe("black_0")["action_mask"])[0]))  # no second warning, no window
    assert e.render() is None
    e.close()


def test_importing_odd_env_loads_no_image_or_window_library():
    code = "import sys, odd_env; bad = {'PIL', 'matplotlib', 'tkinter'} & set(sys.modules); assert not bad, bad"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_text_status_says_when_pass_or_end_turn_is_legal():
    g = square(4)
    rec = GameRecord.from_turns(g, ["Bb2"])
    state = rec.state
    plain = render.to_text(state)
    assert plain.splitlines()[-1] == "groups: black 1, white 0, total 1 (odd); white to play, step 1"
    assert render.to_text(state, show_legal=True) == plain + ", pass legal"
    state.apply(int(np.flatnonzero(state.legal_action_mask()[: g.num_cells])[0]))  # a white stone: parity flips
    assert state.turn_step == 2 and not state.legal_action_mask()[-1]
    assert render.to_text(state, show_legal=True) == render.to_text(state)  # end turn illegal: nothing added
    first = GameRecord.from_turns(g, []).state
    assert render.to_text(first, show_legal=True) == render.to_text(first)  # no pass on the first turn
