"""Board geometry: sizes, neighbour tables, and errors."""

import ast
import pickle
from pathlib import Path

import numpy as np
import pytest

from odd_env.common.geometry import HEX_SIZES, SQUARE_SIZES, yinsh_board

from odd_env import hexhex, square
from odd_env.common.geometry import geometry


@pytest.mark.parametrize("n", list(SQUARE_SIZES))
def test_square_board(n):
    g = square(n)
    assert (g.height, g.width, g.num_onboard, g.num_actions) == (n, n, n * n, 2 * n * n + 1)
    degree = (g.neighbours >= 0).sum(axis=1)
    assert degree.min() == 2 and degree.max() == (4 if n > 2 else 2)
    assert (degree == 2).sum() == 4  # the corners


@pytest.mark.parametrize("n", list(HEX_SIZES))
def test_hexhex_board(n):
    g = hexhex(n)
    assert g.height == g.width == 2 * n - 1
    assert g.num_onboard == 3 * n * (n - 1) + 1
    degree = (g.neighbours >= 0).sum(axis=1)
    assert degree[~g.onboard].max() == 0
    assert (degree[g.onboard] == 3).sum() == 6  # the six corners
    assert degree.max() == 6


@pytest.mark.parametrize("g", [square(2), square(7), square(19), hexhex(2), hexhex(5), hexhex(12)])
def test_adjacency_is_symmetric_and_onboard(g):
    for x in range(g.num_cells):
        for y in g.neighbours[x]:
            if y < 0:
                continue
            assert g.onboard[y] and g.onboard[x]
            assert x in g.neighbours[y]
            assert y != x


def test_hex_neighbours_follow_rules_md():
    g = hexhex(4)
    centre = g.cell(3, 3)
    expected = {g.cell(3, 2), g.cell(3, 4), g.cell(2, 3), g.cell(4, 3), g.cell(2, 4), g.cell(4, 2)}
    assert set(int(y) for y in g.neighbours[centre] if y >= 0) == expected
    # Off-board corner cells: |q + r| > n - 1.
    assert not g.onboard[g.cell(0, 0)] and not g.onboard[g.cell(6, 6)]
    assert g.onboard[g.cell(0, 3)] and g.onboard[g.cell(6, 3)]


def test_geometries_are_cached_and_independent():
    assert square(9) is square(9)
    assert square(9) is not square(11)
    assert hexhex(6).num_cells == 121 and square(11).num_cells == 121
    assert not np.array_equal(hexhex(6).onboard, square(11).onboard)
    with pytest.raises(ValueError):
        square(9).neighbours[0, 0] = 5  # read-only tables


@pytest.mark.parametrize("bad", [0, 1, 20, -3, "9", 9.0, None, True])
def test_bad_square_sizes(bad):
    with pytest.raises(ValueError, match="2 to 19|from 2 to 19"):
        square(bad)


@pytest.mark.parametrize("bad", [0, 1, 13, "6", 6.5])
def test_bad_hex_sizes(bad):
    with pytest.raises(ValueError, match="2 to 12|from 2 to 12"):
        hexhex(bad)


def test_core_imports_no_rl_frameworks():
    core = Path(__file__).parent.parent / "odd_env" / "core"
    banned = {"gymnasium", "pettingzoo", "torch", "gym"}
    for path in core.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            for name in names:
                assert name.split(".")[0] not in banned, f"{path.name} imports {name}"


@pytest.mark.parametrize("g", [square(5), hexhex(4), yinsh_board()], ids=lambda g: g.kind)
def test_rays_step_along_the_directions_to_the_edge(g):
    for x in np.flatnonzero(g.onboard):
        r, c = g.row_col(x)
        for k, (dr, dc) in enumerate(g.directions):
            ray = [int(y) for y in g.rays[x, k] if y >= 0]
            assert (g.rays[x, k, len(ray):] == -1).all()
            expected, i = [], 1
            while 0 <= r + i * dr < g.height and 0 <= c + i * dc < g.width and g.onboard[g.cell(r + i * dr, c + i * dc)]:
                expected.append(g.cell(r + i * dr, c + i * dc))
                i += 1
            assert ray == expected
            assert (ray[:1] == [] or ray[0] in g.neighbours[x])


def test_the_yinsh_board_is_interned_and_not_a_sized_game():
    g = yinsh_board()
    assert pickle.loads(pickle.dumps(g)) is g and g.game == "yinsh" and g.size == 6
    assert g.directions[:3] == ((-1, 0), (0, 1), (-1, 1))  # YINSH's row directions d = 0, 1, 2
    with pytest.raises(ValueError, match="yinsh_board"):
        geometry("yinsh", 6)
