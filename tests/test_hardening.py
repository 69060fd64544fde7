"""Garbage at the public boundary of odd_env: a clear ValueError, never a crash.

The compiled kernels trust their inputs, so a value that reaches them unchecked
can kill the interpreter (SIGSEGV) instead of raising. The cases below run in
a subprocess, several to a process, so that such a crash shows up as a signal
naming the case that caused it rather than as a dead test run. Each case
states the ValueError it expects (a pattern of its message), or that it must
simply complete (the fuzz cases, which accept or reject every mutation).

The rest of the module checks in-process what needs no subprocess: reachable
positions pass the state validator, the hot path never validates, and the
smaller argument checks of the environments, records and renderers.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest

from odd_env import OddBatch, xodd_v0, yodd_v0
from odd_env import GameState, hexhex, square
from odd_env.games.odd import kernels as K
from odd_env.common.geometry import Geometry

OK = None
"""Expected outcome of a case that must complete without raising."""


@dataclass
class Case:
    """One call with garbage: ``run()`` must raise ValueError matching ``expect`` (or complete, if OK)."""

    name: str
    run: Callable[[], Any]
    expect: str | None


# ================================================================= positions
def _play(g: Geometry, seed: int, until: Callable[[GameState], bool], max_games: int = 200) -> GameState:
    """The first position of random games (seeded) for which ``until`` holds."""
    rng = np.random.default_rng(seed)
    for _ in range(max_games):
        s = GameState(g)
        while not s.is_terminal:
            if until(s):
                return s
            s.apply(int(rng.choice(s.legal_actions())))
        if until(s):
            return s
    raise AssertionError("no such position in the random games")


def _groups(s: GameState) -> dict[int, list[int]]:
    """Members of every group, by root."""
    out: dict[int, list[int]] = {}
    for x in np.flatnonzero((s.board == 1) | (s.board == 2)):
        out.setdefault(s.group_of(int(x)), []).append(int(x))
    return out


def _rich(g: Geometry, seed: int) -> GameState:
    """A position at the start of a turn with a group of two or more stones and two groups of one colour."""
    def ok(s: GameState) -> bool:
        groups = _groups(s)
        black = [r for r in groups if s.board[r] == 1]
        return (s.turn_step == 1 and not s.first_turn and any(len(m) > 1 for m in groups.values())
                and len(black) >= 2 and (s.board == 0).any())
    return _play(g, seed, ok)


def _layout(g: Geometry) -> tuple[int, int, int]:
    """n, the offset of the bookkeeping fields, and the offset of the parity bits."""
    n = g.num_cells
    return n, 2 * n, 2 * n + K.META


def _corrupt(s: GameState, *edits: tuple[int, int]) -> np.ndarray:
    data = s.data.copy()
    for index, value in edits:
        data[index] = value
    return data


def corrupted_states(g: Geometry, seed: int) -> list[tuple[str, np.ndarray, str]]:
    """(name, data, message pattern) for states from real games with single fields corrupted."""
    n, m, kb = _layout(g)
    s = _rich(g, seed)
    board = s.board
    groups = _groups(s)
    member = next(x for r, ms in groups.items() for x in ms if x != r)  # a non-root stone
    root = s.group_of(member)
    other = next(r for r in groups if board[r] != board[member])  # a root of the other colour
    empty = int(np.flatnonzero(board == 0)[0])
    step2 = _play(g, seed, lambda t: t.turn_step == 2 and t.total_groups % 2 == 0)
    finished = _play(g, seed, lambda t: t.is_terminal)
    fresh = GameState(g)
    meta = lambda i: m + i  # noqa: E731
    cases = [
        ("uf pointer past the end", _corrupt(s, (n + member, n + 3)), "out of range"),
        ("uf pointer to int32 min", _corrupt(s, (n + member, -2**31)), "out of range"),
        ("uf pointer to int32 max", _corrupt(s, (n + member, 2**31 - 1)), "out of range"),
        ("uf root size beyond the board", _corrupt(s, (n + root, -n - 1)), "out of range"),
        ("uf pointer to an empty cell", _corrupt(s, (n + member, empty)), "holds no stone"),
        ("uf pointer to the other colour", _corrupt(s, (n + member, other)), "other colour"),
        ("uf pointer to itself", _corrupt(s, (n + member, member)), "not a root"),
        ("uf root size wrong", _corrupt(s, (n + root, s.data[n + root] + 1)), "records size"),
        ("uf entry on an empty cell", _corrupt(s, (n + empty, 0)), "holds no stone, is 0"),
        ("board value 7", _corrupt(s, (empty, 7)), "board values are"),
        ("board value -1", _corrupt(s, (member, -1)), "board values are"),
        ("on-board cell marked off-board", _corrupt(s, (empty, K.OFFBOARD)), "marked off-board"),
        ("stone count wrong", _corrupt(s, (meta(K.M_STONES), s.data[meta(K.M_STONES)] + 1)), "stone counter"),
        ("empty count wrong", _corrupt(s, (meta(K.M_EMPTY), 0)), "empty-cell counter"),
        ("black group counter wrong", _corrupt(s, (meta(K.M_GROUPS_BLACK), 99)), "black group counter"),
        ("white group counter negative", _corrupt(s, (meta(K.M_GROUPS_WHITE), -5)), "white group counter"),
        ("parity bit of an empty cell", _corrupt(s, (kb + empty, s.data[kb + empty] ^ 1)), "parity bits"),
        ("parity bits on a stone", _corrupt(s, (kb + member, 2)), "parity bits"),
        ("parity bits out of range", _corrupt(s, (kb + empty, 1 << 20)), "parity bits"),
        ("black flip count wrong", _corrupt(s, (meta(K.M_FLIPS_BLACK), -1)), "black parity-flipping"),
        ("white flip count wrong", _corrupt(s, (meta(K.M_FLIPS_WHITE), n + 1)), "white parity-flipping"),
        ("to_move 2", _corrupt(s, (meta(K.M_TO_MOVE), 2)), "player to move is 2"),
        ("to_move -1", _corrupt(s, (meta(K.M_TO_MOVE), -1)), "player to move is -1"),
        ("step 5", _corrupt(s, (meta(K.M_STEP), 5)), "turn step field is 5"),
        ("passes 3", _corrupt(s, (meta(K.M_PASSES), 3)), "consecutive passes is 3"),
        ("done 2", _corrupt(s, (meta(K.M_DONE), 2)), "game-over flag is 2"),
        ("winner 2", _corrupt(s, (meta(K.M_WINNER), 2)), "winner is 2"),
        ("first stone past the end", _corrupt(s, (meta(K.M_FIRST_STONE), n)), "first stone of the turn is"),
        ("first stone int32 min", _corrupt(s, (meta(K.M_FIRST_STONE), -2**31)), "first stone of the turn is"),
        ("ply negative", _corrupt(s, (meta(K.M_PLY), -1)), "ply counter"),
        ("turn negative", _corrupt(s, (meta(K.M_TURN), -3)), "turn counter"),
        ("first stone in step 1", _corrupt(s, (meta(K.M_FIRST_STONE), member)), "in step 1, must be -1"),
        ("step 2 without a first stone", _corrupt(step2, (meta(K.M_FIRST_STONE), -1)), "holding a stone"),
        ("first stone on an empty cell", _corrupt(step2, (meta(K.M_FIRST_STONE),
                                                          int(np.flatnonzero(step2.board == 0)[0]))),
         "holding a stone"),
        ("pass pending in step 2", _corrupt(step2, (meta(K.M_PASSES), 1)), "in step 2 of a turn, must be 0"),
        ("even total at the start of a turn", _corrupt(step2, (meta(K.M_STEP), 0), (meta(K.M_FIRST_STONE), -1)),
         "even total of groups"),
        ("game over without two passes", _corrupt(s, (meta(K.M_DONE), 1)), "game-over flag is 1"),
        ("winner while running", _corrupt(s, (meta(K.M_WINNER), 0)), "while the game runs"),
        ("wrong winner", _corrupt(finished, (meta(K.M_WINNER), 1 - finished.winner)), "fewer groups wins"),
        ("white opens", _corrupt(fresh, (meta(K.M_TO_MOVE), 1)), "Black's first turn"),
        ("pass on the empty board", _corrupt(fresh, (meta(K.M_PASSES), 1)), "Black's first turn"),
        ("step 2 on the empty board", _corrupt(fresh, (meta(K.M_STEP), 1), (meta(K.M_FIRST_STONE), 0)),
         "holding a stone"),
    ]
    # Two adjacent stones of a group split into two groups (sizes kept consistent).
    split = s.data.copy()
    split[n + member] = -1
    split[n + root] += 1
    cases.append(("adjacent stones in two groups", split, "in different groups"))
    # Two groups of one colour merged into one label: sizes right, not connected.
    r1, r2 = [r for r in groups if board[r] == 1][:2]
    merged = s.data.copy()
    for x in groups[r2]:
        merged[n + x] = r1
    merged[n + r1] = -(len(groups[r1]) + len(groups[r2]))
    cases.append(("one group in two pieces", merged, "not connected"))
    if not g.onboard.all():
        off = int(np.flatnonzero(~g.onboard)[0])
        cases.append(("stone off the board", _corrupt(s, (off, 1)), "off-board cells must hold 3"))
        cases.append(("uf pointer to an off-board cell", _corrupt(s, (n + member, off)), "holds no stone"))
        cases.append(("parity bits on an off-board cell", _corrupt(s, (kb + off, 1)), "parity bits"))
    return cases


STUCK = """
O X X
O X X
O O .
"""
"""Black to finish a turn whose first stone (a3) left an even total and no parity-flipping cell."""


# ================================================================== the groups
def group_state_data() -> list[Case]:
    """``GameState(geometry, data)`` with random and corrupted data; its methods after it."""
    cases = []
    for g, seed in ((square(9), 1), (hexhex(5), 2), (square(4), 3), (hexhex(2), 4)):
        cases += _state_data_cases(g, seed)
    g = square(5)
    size = K.state_size(g.num_cells)
    cases += [
        Case("wrong length", lambda: GameState(g, np.zeros(size + 1, np.int32)), "int32\\[%d\\]" % size),
        Case("wrong dtype", lambda: GameState(g, np.zeros(size, np.int64)), "int32"),
        Case("a list", lambda: GameState(g, [0] * size), "numpy int32"),
        Case("read-only data", lambda: GameState(g, _read_only(GameState(g).data)), "writeable"),
        Case("not a geometry", lambda: GameState("xodd", None), "Geometry"),
        Case("another board's state", lambda: GameState(square(6), GameState(g).data.copy()), "int32"),
    ]
    return cases


def _state_data_cases(g: Geometry, seed: int) -> list[Case]:
    cases = []
    size = K.state_size(g.num_cells)
    rng = np.random.default_rng(seed)
    real = _rich(g, seed)
    for i in range(25):
        data = rng.integers(-2**31, 2**31, size, dtype=np.int64).astype(np.int32)
        cases.append(Case(f"{g.game} {g.size} random int32 #{i}",
                          lambda d=data, g=g: GameState(g, d).observation(), "invalid"))
    for part, lo, hi in (("board", 0, g.num_cells), ("union-find", g.num_cells, 2 * g.num_cells),
                         ("bookkeeping", 2 * g.num_cells, 2 * g.num_cells + K.META),
                         ("parity bits", 2 * g.num_cells + K.META, size)):
        for i in range(5):
            data = real.data.copy()
            data[lo:hi] = rng.integers(-n_or(g, 4), n_or(g, 4), hi - lo)
            cases.append(Case(f"{g.game} {g.size} random {part} #{i}",
                              lambda d=data, g=g: GameState(g, d).observation(), "invalid"))
    for name, data, pattern in corrupted_states(g, seed):
        cases.append(Case(f"{g.game} {g.size} {name}", lambda d=data, g=g: GameState(g, d).observation(), pattern))
    return cases


def n_or(g: Geometry, k: int) -> int:
    """A value range that hits both valid and invalid entries of the state vector."""
    return max(k, g.num_cells + 2)


def _read_only(a: np.ndarray) -> np.ndarray:
    a = a.copy()
    a.setflags(write=False)
    return a


def group_set_states() -> list[Case]:
    """``OddBatch.set_states`` with the right shape and dtype and impossible contents."""
    return _set_states_cases("xodd", 7, 5) + _set_states_cases("yodd", 4, 6)


def _set_states_cases(game: str, size: int, seed: int) -> list[Case]:
    cases = []
    engine = OddBatch(game, size, 4)
    engine.reset()
    rng = np.random.default_rng(seed)
    for _ in range(30):
        engine.step(engine.random_actions(rng))
    good = engine.get_states()
    g = engine.geometry

    def attempt(states: np.ndarray) -> None:
        try:
            engine.set_states(states)
        finally:  # a rejected load changes nothing
            assert np.array_equal(engine.get_states(), good), "set_states changed the engine before failing"

    for i in range(10):
        garbage = rng.integers(-2**31, 2**31, good.shape, dtype=np.int64).astype(np.int32)
        cases.append(Case(f"{game} random int32 #{i}", lambda s=garbage: attempt(s), "game 0: invalid"))
    for name, data, pattern in corrupted_states(g, seed):
        states = good.copy()
        states[2] = data
        want = "game 2: invalid.*" + pattern
        cases.append(Case(f"{game} {name} in game 2", lambda s=states: attempt(s), want))
    finished = _play(g, seed, lambda t: t.is_terminal)
    states = good.copy()
    states[1] = finished.data
    cases.append(Case(f"{game} a finished game", lambda s=states: attempt(s), "game 1: .*game is over"))
    cases.append(Case(f"{game} wrong shape", lambda: attempt(good[:3]), "int32"))
    cases.append(Case(f"{game} wrong dtype", lambda: attempt(good.astype(np.int64)), "int32"))
    return cases


def group_observation() -> list[Case]:
    """``GameState.from_observation`` with planes no position gives."""
    return _observation_cases(square(6), 7) + _observation_cases(hexhex(3), 8)


def _observation_cases(g: Geometry, seed: int) -> list[Case]:
    cases = []
    n = g.num_cells
    rng = np.random.default_rng(seed)
    s = _rich(g, seed)
    planes = s.observation()
    flat = lambda p: p.reshape(p.shape[0], n)  # noqa: E731
    stone_plane = 0 if flat(planes)[0].any() else 1
    stone = int(np.flatnonzero(flat(planes)[stone_plane])[0])
    empty = int(np.flatnonzero(flat(planes)[2])[0])
    step2 = _play(g, seed, lambda t: t.turn_step == 2).observation()
    opening = _play(g, seed, lambda t: t.ply == 1).observation()  # White to act, one stone
    first = int(np.flatnonzero(flat(opening)[0] + flat(opening)[1])[0])
    # An empty cell where a stone of some colour flips the parity (k even): an even total.
    flip_cell, flip_colour = next((x, c) for x in np.flatnonzero(s.board == 0) for c in (0, 1)
                                  if s.adjacent_groups(int(x), c) % 2 == 0)
    flip_plane = 0 if flip_colour == s.to_move else 1

    def edit(base: np.ndarray, plane: int, cell: int | None, value: Any) -> np.ndarray:
        p = base.astype(np.float64 if isinstance(value, float) else base.dtype, copy=True)
        if cell is None:
            flat(p)[plane] = value
        else:
            flat(p)[plane, cell] = value
        return p

    def rebuild(p: np.ndarray) -> GameState:
        return GameState.from_observation(g, p)

    for i in range(10):
        garbage = rng.integers(0, 2, planes.shape).astype(np.int8)
        cases.append(Case(f"{g.game} random binary planes #{i}", lambda p=garbage: rebuild(p), "plane|position"))
    for i in range(3):
        garbage = rng.integers(-128, 128, planes.shape).astype(np.int8)
        cases.append(Case(f"{g.game} random int8 planes #{i}", lambda p=garbage: rebuild(p), "only 0 and 1"))
    cases += [
        Case(f"{g.game} value 2", lambda: rebuild(edit(planes, 0, empty, 2)), "plane 0 .*holds 2"),
        Case(f"{g.game} value 0.5", lambda: rebuild(edit(planes, 7, empty, 0.5)), "holds 0.5"),
        Case(f"{g.game} NaN", lambda: rebuild(edit(planes, 11, 0, float("nan"))), "holds nan"),
        Case(f"{g.game} text planes", lambda: rebuild(planes.astype(str)), "numbers"),
        Case(f"{g.game} wrong shape", lambda: rebuild(planes[:, :-1]), "shape"),
        Case(f"{g.game} own and opponent", lambda: rebuild(edit(planes, 1 - stone_plane, stone, 1)), "both an own stone"),
        Case(f"{g.game} stone without the empty plane", lambda: rebuild(edit(planes, 2, stone, 1)),
             "plane 2 .*is empty"),
        Case(f"{g.game} empty plane hole", lambda: rebuild(edit(planes, 2, empty, 0)), "plane 2 .*not empty"),
        Case(f"{g.game} on-board plane wrong", lambda: rebuild(edit(planes, 3, empty, 0)), "plane 3"),
        Case(f"{g.game} step plane not constant", lambda: rebuild(edit(planes, 5, empty, 1)),
             "plane 5 .*constant"),
        Case(f"{g.game} colour plane not constant", lambda: rebuild(edit(planes, 6, empty, 1 - planes[6].flat[0])),
             "plane 6 .*constant"),
        Case(f"{g.game} pass plane not constant", lambda: rebuild(edit(planes, 11, empty, 1)),
             "plane 11 .*constant"),
        Case(f"{g.game} parity plane flipped", lambda: rebuild(edit(planes, 7, empty, 1 - flat(planes)[7, empty])),
             "plane 7 .*disagrees"),
        Case(f"{g.game} legal plane flipped", lambda: rebuild(edit(planes, 9, empty, 1 - flat(planes)[9, empty])),
             "plane 9 .*disagrees"),
        Case(f"{g.game} the other player's planes", lambda: rebuild(s.observation(1 - s.to_move)),
             "player not to act|disagrees|even total"),
        Case(f"{g.game} even total at the start of a turn",
             lambda: rebuild(edit(edit(planes, flip_plane, int(flip_cell), 1), 2, int(flip_cell), 0)),
             "impossible position: .*turn starts with an even total of groups"),
        Case(f"{g.game} first stone in step 1", lambda: rebuild(edit(planes, 4, stone, 1)),
             "plane 4 .*step 1"),
        Case(f"{g.game} step 2 without a first stone", lambda: rebuild(edit(step2, 4, None, 0)),
             "plane 4 .*marks 0 cells"),
        Case(f"{g.game} first stone on an empty cell",
             lambda: rebuild(edit(edit(step2, 4, None, 0), 4, int(np.flatnonzero(flat(step2)[2])[0]), 1)),
             "plane 4 .*holds no stone"),
        Case(f"{g.game} pass pending in step 2", lambda: rebuild(edit(step2, 11, None, 1)), "plane 11"),
        Case(f"{g.game} white on the empty board",
             lambda: rebuild(edit(GameState(g).observation(), 6, None, 0)), "Black's first turn"),
        Case(f"{g.game} step 2 with one stone",
             lambda: rebuild(edit(edit(opening, 5, None, 1), 4, first, 1)), "at least 2 stones"),
    ]
    if not g.onboard.all():
        off = int(np.flatnonzero(~g.onboard)[0])
        cases.append(Case(f"{g.game} stone off the board", lambda: rebuild(edit(planes, 0, off, 1)),
                          "off-board cells are 0"))
    return cases


def group_cells() -> list[Case]:
    """Every method that takes a cell, an action, a colour or a viewer, with values out of range."""
    from odd_env.games.odd import notation
    from odd_env.games.odd.render import to_rgb, to_svg

    return _cell_cases(square(5)) + _cell_cases(hexhex(3)) + _batch_argument_cases()


def _cell_cases(g: Geometry) -> list[Case]:
    from odd_env.games.odd import notation
    from odd_env.games.odd.render import to_rgb, to_svg

    cases = []
    n = g.num_cells
    s = _rich(g, 9)
    huge = np.uint64(2**64 - 1)
    on = int(np.flatnonzero(g.onboard)[0])
    for off in np.flatnonzero(~g.onboard)[:1]:  # an array cell outside the hexagon (Yodd)
        cases.append(Case(f"{g.game} stone_action(off-board {off})", lambda off=off: notation.stone_action(s, off, 0),
                          "is not on the yodd"))
    bad_cells = [-1, n, 10**9, -2**63, 2**70, np.int64(n), huge, np.array(n), 2.0, "a1", None, True]
    for c in bad_cells:
        cases.append(Case(f"{g.game} adjacent_groups({c!r})", lambda c=c: s.adjacent_groups(c, 0), "cell"))
        cases.append(Case(f"{g.game} group_of({c!r})", lambda c=c: s.group_of(c), "cell"))
        cases.append(Case(f"{g.game} cell_name({c!r})", lambda c=c: notation.cell_name(g, c), "not on the"))
        cases.append(Case(f"{g.game} stone_action({c!r})", lambda c=c: notation.stone_action(s, c, 0),
                          "out of range"))
        cases.append(Case(f"{g.game} to_svg(highlight=[{c!r}])", lambda c=c: to_svg(s, highlight=[c]),
                          "highlight cell"))
    for colour in (2, -1, 0.5, "black", None, True):
        cases.append(Case(f"{g.game} adjacent_groups(0, {colour!r})", lambda c=colour: s.adjacent_groups(0, c),
                          "colour must be 0"))
        cases.append(Case(f"{g.game} stone_name(0, {colour!r})", lambda c=colour: notation.stone_name(g, 0, c),
                          "colour must be 0"))
    for viewer in (2, -1, 10**9, huge, "black", 0.0, True):
        cases.append(Case(f"{g.game} observation({viewer!r})", lambda v=viewer: s.observation(v),
                          "viewer must be"))
    shape = (12, g.height, g.width)
    for what, out in (("wrong shape", np.zeros((12, g.height, g.width + 1), np.int8)),
                      ("wrong dtype", np.zeros(shape, np.int64)),
                      ("not contiguous", np.zeros((12, g.height, 2 * g.width), np.int8)[:, :, ::2]),
                      ("read-only", _read_only(np.zeros(shape, np.int8))),
                      ("a list", [[0]])):
        cases.append(Case(f"{g.game} observation(out={what})", lambda o=out: s.observation(out=o),
                          "out must be"))
    for a in (-1, 2 * n + 1, 10**30, -2**63, huge, np.array(2 * n + 1)):
        real = str(int(a))
        cases.append(Case(f"{g.game} apply({a!r})", lambda a=a: s.copy().apply(a), f"illegal action .*{real}"))
        cases.append(Case(f"{g.game} action_name({a!r})", lambda a=a: notation.action_name(s, a),
                          f"{real}.* out of range"))
    cases += [
        Case(f"{g.game} turn_name of a cell off the board", lambda: notation.turn_name(g, [(n, 0)]), "not on"),
        Case(f"{g.game} turn_name of text", lambda: notation.turn_name(g, "Bc4"), "sequence"),
        Case(f"{g.game} turn_name of a 1-tuple", lambda: notation.turn_name(g, [(0,)]), "pair"),
        Case(f"{g.game} turn_name of three stones", lambda: notation.turn_name(g, [(0, 0)] * 3), "at most two"),
        Case(f"{g.game} turn_name of two stones on a cell", lambda: notation.turn_name(g, [(on, 0), (on, 1)]),
             "two stones on the same cell"),
        Case(f"{g.game} action_name(True)", lambda: notation.action_name(s, True), "an action is an integer .* bool"),
        Case(f"{g.game} action_name('3')", lambda: notation.action_name(s, "3"), "an action is an integer .* str"),
        Case(f"{g.game} highlight an int", lambda: to_svg(s, highlight=5), "list of cell"),
    ]
    for px in (0, -1, 10**9, float("inf"), float("nan"), "32", None, True, 2):
        cases.append(Case(f"{g.game} to_svg(cell_px={px!r})", lambda px=px: to_svg(s, cell_px=px), "cell_px"))
        cases.append(Case(f"{g.game} to_rgb(cell_px={px!r})", lambda px=px: to_rgb(s, cell_px=px), "cell_px"))
    for r in ((1, 0), (0, float("nan")), (0,), "ab", (0, 1, 2)):
        cases.append(Case(f"{g.game} heatmap_range={r!r}",
                          lambda r=r: to_svg(s, np.zeros(n), heatmap_range=r), "heatmap_range"))
    cases.append(Case(f"{g.game} heatmap of text", lambda: to_svg(s, ["x"] * n), "heatmap must be real"))
    return cases


def _batch_argument_cases() -> list[Case]:
    from odd_env import YinshBatch

    cases = []
    engine = OddBatch("xodd", 5, 3)
    engine.reset()
    yinsh = YinshBatch(3)
    yinsh.reset()
    for e in (engine, yinsh):  # the two engines check alike
        for i in (-1, 3, 2**70, np.uint64(2**64 - 1), 1.0, "0", None, True):
            cases.append(Case(f"{e!r}.game_state({i!r})", lambda e=e, i=i: e.game_state(i), "game index must be"))
        for seed in (-1, "x", 1.5):
            cases.append(Case(f"{e!r}.reset(seed={seed!r})", lambda e=e, seed=seed: e.reset(seed=seed),
                              "seed must be None or a non-negative integer"))
        cases.append(Case(f"{e!r}.random_actions(0)", lambda e=e: e.random_actions(0), "numpy Generator"))
    cases += [
        Case("YinshBatch(as_torch='yes')", lambda: YinshBatch(3, as_torch="yes"), "as_torch must be True or False"),
        Case("OddBatch('yinsh', ...)", lambda: OddBatch("yinsh", 6, 3), "odd_env.YinshBatch for batched play"),
        Case("step with uint64 max", lambda: engine.step(np.full(3, 2**64 - 1, dtype=np.uint64)),
             "illegal action 18446744073709551615 in game 0"),
        Case("step with -1", lambda: engine.step(np.array([0, -1, 0])), "illegal action -1 in game 1"),
        Case("step with floats", lambda: engine.step(np.zeros(3)), "integers"),
        Case("random_actions(5)", lambda: engine.random_actions(5), "Generator"),
        Case("OddBatch(as_torch='yes')", lambda: OddBatch("xodd", 5, 3, as_torch="yes"), "as_torch"),
        Case("OddBatch(num_games=0)", lambda: OddBatch("xodd", 5, 0), "num_games"),
        Case("OddBatch(num_games=2.0)", lambda: OddBatch("xodd", 5, 2.0), "num_games"),
        Case("OddBatch reset(seed=-1)", lambda: engine.reset(seed=-1), "seed"),
    ]
    return cases


def group_positions() -> list[Case]:
    """Drawn positions that the rules cannot reach."""
    from odd_env.games.odd.validation import check_states
    from odd_env.games.odd.positions import from_ascii

    g = square(3)
    return [
        Case("no legal action in step 2", lambda: from_ascii("xodd", STUCK, first_stone="a3"), "no legal action"),
        Case("cells not separated", lambda: from_ascii("xodd", "...\n.X.\n..."), "cells are separated by spaces"),
        Case("from_observation with extra planes",
             lambda: GameState.from_observation(square(5), np.zeros((20, 5, 5), np.int8)),
             r"planes must have shape \(12, 5, 5\) for xodd 5, got \(20, 5, 5\)"),
        Case("check_states(running_only='no')",
             lambda: check_states(square(5), np.zeros((1, 10), np.int32), running_only="no"),
             "running_only must be True or False"),
        Case("step 2 with one stone", lambda: from_ascii("xodd", ". X .\n. . .\n. . .", first_stone="b3"),
             "at least 2 stones"),
        Case("drawing not text", lambda: from_ascii("xodd", None), "text"),
        Case("to_move not text", lambda: from_ascii("xodd", ". . .\n. . .\n. . .", to_move=0), "to_move"),
        Case("the stuck position as data", lambda: GameState(g, _stuck_data()), "no legal action"),
    ]


def _stuck_data() -> np.ndarray:
    """STUCK built stone by stone with the kernels (from_ascii rejects it), in step 2."""
    g = square(3)
    s = GameState(g)
    n = g.num_cells
    for r, row in enumerate(STUCK.split()[i:i + 3] for i in range(0, 9, 3)):
        for c, tok in enumerate(row):
            if tok != ".":
                K.place(s.data, n, g.neighbours, r * 3 + c, 1 if tok == "X" else 2)
    s.data[2 * n + K.M_STEP] = 1
    s.data[2 * n + K.M_FIRST_STONE] = 0
    return s.data


def group_fuzz() -> list[Case]:
    """Single-entry mutations of real states: each is rejected, or is a state that plays on safely."""
    def run(g: Geometry, seed: int, count: int) -> None:
        rng = np.random.default_rng(seed)
        n = g.num_cells
        positions = []
        s = GameState(g)
        while not s.is_terminal:
            positions.append(s.copy())
            s.apply(int(rng.choice(s.legal_actions())))
        positions.append(s)
        engine = OddBatch(g.game, g.size, 2)
        engine.reset()
        rejected = 0
        for _ in range(count):
            base = positions[rng.integers(len(positions))]
            data = base.data.copy()
            i = int(rng.integers(len(data)))
            data[i] = rng.choice([int(rng.integers(-2**31, 2**31)), -2**31, 2**31 - 1, -n - 1, -n, -2, -1, 0,
                                  1, 2, 3, n - 1, n, int(data[i]) + 1, int(data[i]) - 1])
            states = np.stack([positions[0].data, data])
            try:
                t = GameState(g, data)
            except ValueError:
                rejected += 1
                try:
                    engine.set_states(states)
                except ValueError:
                    continue
                raise AssertionError("set_states accepted a state that GameState rejected") from None
            # Accepted: it must play on like any position, alone and in the engine.
            if not t.is_terminal:
                engine.set_states(states)
                for _ in range(10):
                    engine.step(engine.random_actions(rng))
            t.observation(0)
            t.observation(1)
            while not t.is_terminal:
                t.apply(int(rng.choice(t.legal_actions())))
        assert rejected > count // 2, f"only {rejected} of {count} mutations were rejected"

    return [Case(f"fuzz {g.game} {g.size}", lambda g=g, seed=seed: run(g, seed, 3000), OK)
            for g, seed in ((square(7), 10), (hexhex(4), 11), (square(2), 12), (hexhex(2), 13))]


def group_ppo_resume() -> list[Case]:
    """``--resume`` from a checkpoint whose saved engine states are corrupt."""
    import tempfile

    import torch

    from agents.train.ppo import Args, Trainer, train

    torch.set_num_threads(1)
    tmp = Path(tempfile.mkdtemp())
    args = Args(game="xodd", board_size=4, num_games=8, rollout_steps=8, channels=8, blocks=1,
                minibatch_size=64, update_epochs=1, eval_every=0, eval_games=2, snapshot_every=100,
                checkpoint_every=100, run_dir=str(tmp / "run"), tensorboard=False, progress=False,
                threads=1, total_steps=64, seed=0, resume=True)
    from agents.train import checkpoint as ckpt_io

    trainer = Trainer(args)
    metadata, data = trainer.checkpoint()
    data["engine_states"][3, 4 * 4 + 2] = 10**6  # a union-find pointer far past the end
    # Written by the checkpoint writer itself (a valid checksum): only the rules' validation can refuse it.
    ckpt_io.save(tmp / "run" / "last.pt", metadata, data)
    return [Case("resume from corrupt engine states", lambda: train(args), "game 3: invalid xodd 4 state")]


GROUPS = {
    "state_data": group_state_data,
    "set_states": group_set_states,
    "observation": group_observation,
    "cells": group_cells,
    "positions": group_positions,
    "fuzz": group_fuzz,
    "ppo_resume": group_ppo_resume,
}


# ================================================================== the runner
def run_group(name: str) -> None:
    """Child process: run every case of group ``name``, one JSON line per case on stdout."""
    for case in GROUPS[name]():
        print(json.dumps({"begin": case.name}), flush=True)
        try:
            case.run()
        except Exception as err:  # every outcome is reported, the parent judges it
            outcome = {"type": type(err).__name__, "message": str(err),
                       "traceback": traceback.format_exc(limit=-3)}
        else:
            outcome = {"type": None, "message": ""}
        print(json.dumps({"name": case.name, "expect": case.expect, **outcome}), flush=True)


def _run_in_subprocess(group: str) -> list[dict]:
    here = Path(__file__).resolve().parent
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(here), str(here.parent), env.get("PYTHONPATH", "")])
    proc = subprocess.run([sys.executable, "-c", f"import test_hardening as t; t.run_group({group!r})"],
                          capture_output=True, text=True, env=env, cwd=here.parent, timeout=600)
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0:
        begun = [r["begin"] for r in lines if "begin" in r]
        last = begun[-1] if begun else "(building the cases)"
        how = f"signal {-proc.returncode}" if proc.returncode < 0 else f"exit status {proc.returncode}"
        pytest.fail(f"the subprocess died with {how} in case {last!r}\nstderr:\n{proc.stderr[-3000:]}")
    return [r for r in lines if "name" in r]


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_garbage_gives_value_errors_not_crashes(group):
    if group == "ppo_resume":
        pytest.importorskip("torch")
    import re

    results = _run_in_subprocess(group)
    assert results, "no case ran"
    wrong = []
    for r in results:
        if r["expect"] is OK:
            if r["type"] is not None:
                wrong.append(f"{r['name']}: raised {r['type']}: {r['message']}\n{r.get('traceback', '')}")
        elif r["type"] != "ValueError":
            got = "no error" if r["type"] is None else f"{r['type']}: {r['message']}\n{r.get('traceback', '')}"
            wrong.append(f"{r['name']}: expected ValueError /{r['expect']}/, got {got}")
        elif not re.search(r["expect"], r["message"]):
            wrong.append(f"{r['name']}: ValueError {r['message']!r} does not match /{r['expect']}/")
    assert not wrong, f"{len(wrong)} of {len(results)} cases went wrong:\n" + "\n".join(wrong)


# ====================================================== in-process: what works
def _random_positions(g: Geometry, seed: int, games: int) -> list[GameState]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(games):
        s = GameState(g)
        out.append(s.copy())
        while not s.is_terminal:
            s.apply(int(rng.choice(s.legal_actions())))
            out.append(s.copy())
    return out


@pytest.mark.parametrize("g", [square(2), square(5), hexhex(2), hexhex(4)], ids=lambda g: f"{g.game}{g.size}")
def test_reachable_positions_pass_every_check(g):
    from odd_env.games.odd.validation import check_states

    positions = _random_positions(g, g.num_cells, 6)
    running = [s for s in positions if not s.is_terminal]
    assert any(s.turn_step == 2 for s in running) and any(s.consecutive_passes for s in running)
    check_states(g, np.stack([s.data for s in running]), running_only=True)
    for s in positions:
        assert GameState(g, s.data.copy()) == s
        if s.is_terminal:
            continue
        rebuilt = GameState.from_observation(g, s.observation())
        np.testing.assert_array_equal(rebuilt.observation(), s.observation())
        np.testing.assert_array_equal(rebuilt.legal_action_mask(), s.legal_action_mask())
        # The planes of a network's input are floats: the same position.
        assert GameState.from_observation(g, s.observation().astype(np.float32)) == rebuilt


def test_hot_path_never_validates(monkeypatch):
    import gymnasium

    from odd_env.games.odd import validation

    def forbidden(*args):
        raise AssertionError("a whole-state validation ran in the step path")

    rng = np.random.default_rng(0)
    g = square(5)
    s = GameState(g)
    engine = OddBatch("yodd", 3, 8)
    engine.reset()
    aec = xodd_v0.raw_env(board_size=5)
    aec.reset(seed=0)
    gym_env = gymnasium.make("odd_env/Xodd-v0", board_size=5, opponent="random", play_as="black")
    obs, info = gym_env.reset(seed=0)
    monkeypatch.setattr(validation, "first_invalid", forbidden)
    for _ in range(40):
        if s.is_terminal:
            s = GameState(g)
        a = int(rng.choice(s.legal_actions()))
        assert s.child(a) == s.copy().apply(a)
        s.apply(a)
        s.observation()
        engine.step(engine.random_actions(rng))
        engine.game_state(3)
        if aec.agents and not any(aec.terminations.values()):
            aec.step(int(rng.choice(np.flatnonzero(aec.observe(aec.agent_selection)["action_mask"]))))
        obs, reward, terminated, truncated, info = gym_env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        if terminated:
            obs, info = gym_env.reset()


@pytest.mark.parametrize("make", [xodd_v0.env, xodd_v0.raw_env, yodd_v0.env, yodd_v0.raw_env],
                         ids=["xodd env", "xodd raw_env", "yodd env", "yodd raw_env"])
def test_aec_env_takes_numpy_scalars_and_0d_arrays(make):
    plain, numpy_ = make(board_size=4), make(board_size=4)
    plain.reset(seed=3)
    numpy_.reset(seed=np.int64(3))
    assert plain.unwrapped.np_random.random() == numpy_.unwrapped.np_random.random()
    rng = np.random.default_rng(1)
    kinds = (lambda a: np.array(a), lambda a: np.array(a, dtype=np.int32), np.int16, np.uint32)
    steps = 0
    for agent in plain.agent_iter():
        obs, reward, term, trunc, info = plain.last()
        other = numpy_.last()
        np.testing.assert_array_equal(obs["observation"], other[0]["observation"])
        assert (reward, term) == other[1:3]
        if term or trunc:
            plain.step(None)
            numpy_.step(None)
            continue
        a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        plain.step(a)
        numpy_.step(kinds[steps % len(kinds)](a))
        steps += 1
    assert steps > 4 and not numpy_.agents


def test_illegal_0d_actions_like_integers():
    raw = xodd_v0.raw_env(board_size=4)
    raw.reset()
    with pytest.raises(ValueError, match="illegal action array\\(32\\): Black may not pass"):
        raw.step(np.array(32))
    with pytest.raises(ValueError, match="18446744073709551615 is out of range"):
        raw.step(np.array(2**64 - 1, dtype=np.uint64))
    with pytest.raises(ValueError, match="must be an integer"):
        raw.step(np.array([3]))
    assert raw.game_state.ply == 0
    wrapped = xodd_v0.env(board_size=4)
    wrapped.reset()
    wrapped.step(np.array(32))  # PettingZoo's env(): an illegal action ends the game, as for 32
    assert wrapped.rewards["black_0"] == -1 and all(wrapped.terminations.values())


def test_gym_env_takes_numpy_scalars_and_0d_arrays():
    import gymnasium

    def play(kind) -> list:
        env = gymnasium.make("odd_env/Yodd-v0", board_size=3, opponent="random", play_as="random")
        obs, info = env.reset(seed=kind(7))
        rng = np.random.default_rng(0)
        trace = [obs.copy()]
        terminated = False
        while not terminated:
            a = int(rng.choice(np.flatnonzero(info["action_mask"])))
            obs, reward, terminated, truncated, info = env.step(kind(a))
            trace.append((obs.copy(), reward))
        return trace

    expected = play(int)
    for kind in (np.int64, np.uint8, np.array, lambda a: np.array(a, dtype=np.uint16)):
        got = play(kind)
        assert len(got) == len(expected)
        for x, y in zip(got, expected):
            np.testing.assert_equal(x, y)
    env = gymnasium.make("odd_env/Xodd-v0", board_size=4, play_as="black", illegal_action="raise")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="18446744073709551615 is out of range"):
        env.step(np.uint64(2**64 - 1))


@pytest.mark.parametrize("kind", ["raw", "env", "gym"])
def test_bad_seeds_and_options(kind):
    import gymnasium

    if kind == "gym":
        env = gymnasium.make("odd_env/Xodd-v0", board_size=4).unwrapped
    else:
        env = xodd_v0.raw_env(board_size=4) if kind == "raw" else xodd_v0.env(board_size=4)
    for seed in (-1, "3", 3.0, True, np.array([3]), np.float64(3)):
        with pytest.raises(ValueError, match="seed must be None or a non-negative integer"):
            env.reset(seed=seed)
    for options in ([("record", "xodd 4")], "record", 5):
        with pytest.raises(ValueError, match="options must be a dict or None"):
            env.reset(seed=0, options=options)
    env.reset(seed=np.uint8(0), options={})


def test_observe_unknown_agents_and_step_after_everyone_left():
    for env in (xodd_v0.raw_env(board_size=3), xodd_v0.env(board_size=3)):
        env.reset()
        for agent in ("nobody", 0, None, "BLACK_0"):
            with pytest.raises(ValueError, match="unknown agent .*'black_0' and 'white_0'"):
                env.observe(agent)
    env = yodd_v0.raw_env(board_size=2)
    env.reset()
    rng = np.random.default_rng(0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert not env.agents
    final = env.game_state.copy()
    for action in (0, None, np.array(3)):
        with pytest.raises(ValueError, match="every agent has left.*reset"):
            env.step(action)
    assert env.game_state == final and env.observe("black_0")["action_mask"].sum() == 0
    env.reset()
    assert env.agents == ["black_0", "white_0"]


def test_record_files_and_headers(tmp_path):
    from odd_env.games.odd.records import GameRecord

    bad = tmp_path / "latin1.txt"
    bad.write_bytes("xodd 5\nBc3 # d\xe9j\xe0 vu\n".encode("latin-1"))
    with pytest.raises(ValueError, match=r"latin1\.txt: .*not UTF-8"):
        GameRecord.load(bad)
    for size in ("٩", "²", "９", "-9", "9.0"):
        with pytest.raises(ValueError, match="board size in the header must be a number"):
            GameRecord.from_text(f"xodd {size}\n")
    assert GameRecord.from_text("xodd 9\n").size == 9


def test_render_cell_px_range():
    from odd_env.games.odd.render import CELL_PX_RANGE, board_layout, to_rgb, to_svg

    s = GameState(hexhex(3))
    lo, hi = CELL_PX_RANGE
    for px in (lo, hi, 24.5, np.int32(20), np.float32(30)):
        assert to_svg(s, cell_px=px).startswith("<svg")
    assert to_rgb(s, cell_px=lo).ndim == 3
    assert board_layout(s.geometry, 32) is board_layout(s.geometry, 32.0)
    with pytest.raises(ValueError, match=f"from {lo} to {hi}"):
        board_layout(s.geometry, hi + 1)


def test_gym_opponent_must_be_callable_or_have_a_callable_act():
    from odd_env import OddGymEnv

    class NotAnAgent:
        act = "random"

    with pytest.raises(ValueError, match="opponent must be"):
        OddGymEnv("xodd", 4, opponent=NotAnAgent())
    env = OddGymEnv("xodd", 4, opponent=lambda obs, mask: np.array(np.flatnonzero(mask)[0]), play_as="white")
    obs, info = env.reset(seed=0)  # the opponent's 0-d array action is played like an integer
    assert env.state.ply == 1 and info["action_mask"].any()
