"""Checks of values handed to the rules core from outside.

The compiled kernels of :mod:`odd_env.games.odd.kernels` trust their inputs: an
index out of range there reads or writes outside an array, and the process
dies. Everything that comes from a user (a cell, an action, a whole state
vector) is checked here first, once, at the boundary; the step path itself
never validates.

* :func:`as_int`: an integer scalar (``int``, NumPy integer or 0-d integer
  array, never ``bool``) as a Python ``int``, exactly (no wrapping).
* :func:`check_state` / :func:`check_states`: the structural check of one
  state vector / a batch of them (layout of :mod:`odd_env.games.odd.kernels`): the
  board values, the union-find, the counters, the parity bits and the turn
  bookkeeping must be those of a position the rules can reach. Raise
  ``ValueError`` naming the first thing wrong.

The state check is a Numba kernel compiled with ``boundscheck=True`` whose
every index is range-checked before use, so garbage makes it fail, never
crash.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from ..._compiling import njit

from . import kernels as K
from ...common.geometry import Geometry
from ...common.validation import as_int


def check_cell(geometry: Geometry, cell: Any, what: str = "cell") -> int:
    """``cell`` as an int in ``0..H*W-1`` (any array cell, on the board or not); ValueError otherwise."""
    x = as_int(cell)
    n = geometry.num_cells
    if x is None:
        raise ValueError(f"{what} must be an integer array index 0..{n - 1}, got {cell!r} of type {type(cell).__name__}")
    if not 0 <= x < n:
        raise ValueError(
            f"{what} {x} is out of range: the {geometry.game} {geometry.size} board has array cells 0..{n - 1}"
        )
    return x


def check_colour(colour: Any) -> int:
    """``colour`` as 0 (black) or 1 (white); ValueError otherwise."""
    c = as_int(colour)
    if c not in (0, 1):
        raise ValueError(f"colour must be 0 (black) or 1 (white), got {colour!r}")
    return c


# Error codes of the state kernel; _describe turns them into sentences.
(OK, E_TO_MOVE, E_STEP, E_PASSES, E_DONE, E_WINNER, E_FIRST_RANGE, E_PLY, E_TURN,
 E_BOARD_VALUE, E_ONBOARD_MARKED, E_OFFBOARD_NOT_MARKED, E_PARENT_NONSTONE, E_PARENT_RANGE,
 E_PARENT_EMPTY, E_PARENT_COLOUR, E_PARENT_NOT_ROOT, E_SIZE, E_SPLIT, E_DISCONNECTED,
 E_GROUPS_BLACK, E_GROUPS_WHITE, E_EMPTY, E_STONES, E_BITS, E_FLIPS_BLACK, E_FLIPS_WHITE,
 E_FIRST_IN_STEP1, E_FIRST_IN_STEP2, E_PASSES_IN_STEP2, E_STEP2_STONES, E_OPENING, E_EVEN_TOTAL,
 E_DONE_PASSES, E_WINNER_RUNNING, E_WINNER_WRONG, E_FINISHED, E_NO_LEGAL) = range(38)


@njit(cache=True, inline="always")
def _fail(out, code, a, b, c):
    out[0] = code
    out[1] = a
    out[2] = b
    out[3] = c
    return code


@njit(cache=True, boundscheck=True)
def _check_one(s, n, nbr, onboard, running_only, root, count, queue, seen, local, mask, keep, out):
    """Error code of state ``s`` (details in ``out[1:4]``), or 0 if it is a reachable position."""
    m = 2 * n
    kb = m + K.META
    to_move = np.int64(s[m + K.M_TO_MOVE])
    step = np.int64(s[m + K.M_STEP])
    passes = np.int64(s[m + K.M_PASSES])
    first = np.int64(s[m + K.M_FIRST_STONE])
    done = np.int64(s[m + K.M_DONE])
    winner = np.int64(s[m + K.M_WINNER])
    if to_move != 0 and to_move != 1:
        return _fail(out, E_TO_MOVE, to_move, 0, 0)
    if step != 0 and step != 1:
        return _fail(out, E_STEP, step, 0, 0)
    if passes < 0 or passes > 2:
        return _fail(out, E_PASSES, passes, 0, 0)
    if done != 0 and done != 1:
        return _fail(out, E_DONE, done, 0, 0)
    if winner < -1 or winner > 1:
        return _fail(out, E_WINNER, winner, 0, 0)
    if first < -1 or first >= n:
        return _fail(out, E_FIRST_RANGE, first, 0, 0)
    if s[m + K.M_PLY] < 0:
        return _fail(out, E_PLY, s[m + K.M_PLY], 0, 0)
    if s[m + K.M_TURN] < 0:
        return _fail(out, E_TURN, s[m + K.M_TURN], 0, 0)

    # Board values and the ranges of the union-find entries.
    empties = 0
    stones = 0
    for x in range(n):
        v = np.int64(s[x])
        p = np.int64(s[n + x])
        if v < 0 or v > 3:
            return _fail(out, E_BOARD_VALUE, x, v, 0)
        if onboard[x]:
            if v == K.OFFBOARD:
                return _fail(out, E_ONBOARD_MARKED, x, 0, 0)
        elif v != K.OFFBOARD:
            return _fail(out, E_OFFBOARD_NOT_MARKED, x, v, 0)
        if v == K.BLACK or v == K.WHITE:
            stones += 1
            if p < -n or p >= n:
                return _fail(out, E_PARENT_RANGE, x, p, 0)
        else:
            if v == K.EMPTY:
                empties += 1
            if p != -1:
                return _fail(out, E_PARENT_NONSTONE, x, p, 0)

    # Every stone is a root (entry -size) or points straight at the root of
    # its group: a stone of its colour whose entry is negative.
    for x in range(n):
        v = s[x]
        if v != K.BLACK and v != K.WHITE:
            continue
        p = np.int64(s[n + x])
        if p < 0:
            root[x] = x
            continue
        t = s[p]
        if t != K.BLACK and t != K.WHITE:
            return _fail(out, E_PARENT_EMPTY, x, p, 0)
        if t != v:
            return _fail(out, E_PARENT_COLOUR, x, p, 0)
        if s[n + p] >= 0:
            return _fail(out, E_PARENT_NOT_ROOT, x, p, s[n + p])
        root[x] = p
    for x in range(n):
        count[x] = 0
    for x in range(n):
        if s[x] == K.BLACK or s[x] == K.WHITE:
            count[root[x]] += 1
    groups_black = 0
    groups_white = 0
    for x in range(n):
        v = s[x]
        if (v == K.BLACK or v == K.WHITE) and s[n + x] < 0:
            if count[x] != -np.int64(s[n + x]):
                return _fail(out, E_SIZE, x, -np.int64(s[n + x]), count[x])
            if v == K.BLACK:
                groups_black += 1
            else:
                groups_white += 1

    # The groups are the connected components: adjacent stones of a colour
    # share a root, and each root reaches all of its group's stones.
    for x in range(n):
        v = s[x]
        if v != K.BLACK and v != K.WHITE:
            continue
        for j in range(nbr.shape[1]):
            y = nbr[x, j]
            if y < 0:
                break
            if s[y] == v and root[y] != root[x]:
                return _fail(out, E_SPLIT, x, y, 0)
    for x in range(n):
        seen[x] = 0
    for r in range(n):
        v = s[r]
        if (v != K.BLACK and v != K.WHITE) or s[n + r] >= 0:
            continue
        seen[r] = 1
        queue[0] = r
        head = 0
        tail = 1
        while head < tail:
            y = queue[head]
            head += 1
            for j in range(nbr.shape[1]):
                z = nbr[y, j]
                if z < 0:
                    break
                if s[z] == v and seen[z] == 0:
                    seen[z] = 1
                    queue[tail] = z
                    tail += 1
        if tail != count[r]:
            return _fail(out, E_DISCONNECTED, r, count[r], tail)

    if s[m + K.M_GROUPS_BLACK] != groups_black:
        return _fail(out, E_GROUPS_BLACK, s[m + K.M_GROUPS_BLACK], groups_black, 0)
    if s[m + K.M_GROUPS_WHITE] != groups_white:
        return _fail(out, E_GROUPS_WHITE, s[m + K.M_GROUPS_WHITE], groups_white, 0)
    if s[m + K.M_EMPTY] != empties:
        return _fail(out, E_EMPTY, s[m + K.M_EMPTY], empties, 0)
    if s[m + K.M_STONES] != stones:
        return _fail(out, E_STONES, s[m + K.M_STONES], stones, 0)

    # Parity bits: per empty cell, bit c-1 is the parity of the number of
    # distinct groups of colour c around it (docs/rules/xodd_yodd.md section 3).
    flips_black = 0
    flips_white = 0
    for x in range(n):
        bits = np.int64(s[kb + x])
        if s[x] != K.EMPTY:
            if bits != 0:
                return _fail(out, E_BITS, x, bits, 0)
            continue
        expect = 0
        for colour in range(1, 3):
            k = 0
            for j in range(nbr.shape[1]):
                y = nbr[x, j]
                if y < 0:
                    break
                if s[y] == colour:
                    r = root[y]
                    new = True
                    for i in range(k):
                        if local[i] == r:
                            new = False
                            break
                    if new:
                        local[k] = r
                        k += 1
            expect |= (k & 1) << (colour - 1)
        if bits != expect:
            return _fail(out, E_BITS, x, bits, expect)
        flips_black += 1 - (expect & 1)
        flips_white += 1 - (expect >> 1)
    if s[m + K.M_FLIPS_BLACK] != flips_black:
        return _fail(out, E_FLIPS_BLACK, s[m + K.M_FLIPS_BLACK], flips_black, 0)
    if s[m + K.M_FLIPS_WHITE] != flips_white:
        return _fail(out, E_FLIPS_WHITE, s[m + K.M_FLIPS_WHITE], flips_white, 0)

    # The turn bookkeeping must be one the rules can reach.
    if step == 0:
        if first != -1:
            return _fail(out, E_FIRST_IN_STEP1, first, 0, 0)
    else:
        if first < 0 or (s[first] != K.BLACK and s[first] != K.WHITE):
            return _fail(out, E_FIRST_IN_STEP2, first, s[first] if first >= 0 else -1, 0)
        if passes != 0:
            return _fail(out, E_PASSES_IN_STEP2, passes, 0, 0)
        if stones < 2:
            return _fail(out, E_STEP2_STONES, stones, 0, 0)
    if stones == 0 and (to_move != 0 or passes != 0 or done != 0):
        return _fail(out, E_OPENING, to_move, passes, done)
    total = groups_black + groups_white
    if step == 0 and stones > 0 and total % 2 == 0:
        return _fail(out, E_EVEN_TOTAL, total, groups_black, groups_white)
    if (done == 1) != (passes == 2):
        return _fail(out, E_DONE_PASSES, done, passes, 0)
    if done == 0:
        if winner != -1:
            return _fail(out, E_WINNER_RUNNING, winner, 0, 0)
    else:
        if winner != (0 if groups_black < groups_white else 1):
            return _fail(out, E_WINNER_WRONG, winner, groups_black, groups_white)
        if running_only:
            return _fail(out, E_FINISHED, winner, 0, 0)
    # Structurally sound, so the rules kernel is safe to run: a reachable
    # position that is not over always has a legal action.
    if done == 0 and K.legal_mask_into(s, n, nbr, mask, keep) == 0:
        return _fail(out, E_NO_LEGAL, 0, 0, 0)
    return OK


@njit(cache=True, boundscheck=True)
def first_invalid(states, n, nbr, onboard, running_only, out):
    """Index of the first row of ``states`` (int32[B, state_size(n)]) that is not a
    reachable position, or -1; ``out`` (int64[4]) receives its error code and details."""
    root = np.empty(n, dtype=np.int64)
    count = np.empty(n, dtype=np.int64)
    queue = np.empty(n, dtype=np.int64)
    seen = np.empty(n, dtype=np.uint8)
    local = np.empty(nbr.shape[1], dtype=np.int64)
    mask = np.empty(2 * n + 1, dtype=np.int8)
    keep = np.empty((2, n), dtype=np.int8)
    out[0] = OK
    for b in range(states.shape[0]):
        if _check_one(states[b], n, nbr, onboard, running_only, root, count, queue, seen, local, mask, keep, out):
            return b
    return -1


def describe_cell(geometry: Geometry, cell: int) -> str:
    """``"cell e6"`` (its name, not the internal index), or the index and (row, col) of an off-board
    cell, for messages."""
    return f"cell {geometry.label(cell)}"


def _describe(g: Geometry, code: int, a: int, b: int, c: int) -> str:
    """The sentence for error ``code`` with details ``a, b, c`` from the kernel."""
    n = g.num_cells

    def cell(x: int) -> str:
        return describe_cell(g, x)

    colour = {1: "black", 2: "white"}
    messages = {
        E_TO_MOVE: lambda: f"player to move is {a}, must be 0 (black) or 1 (white)",
        E_STEP: lambda: f"turn step field is {a}, must be 0 (step 1) or 1 (step 2)",
        E_PASSES: lambda: f"consecutive passes is {a}, must be 0, 1 or 2",
        E_DONE: lambda: f"game-over flag is {a}, must be 0 or 1",
        E_WINNER: lambda: f"winner is {a}, must be -1 (game running), 0 (black) or 1 (white)",
        E_FIRST_RANGE: lambda: f"first stone of the turn is {a}, must be -1 or a cell 0..{n - 1}",
        E_PLY: lambda: f"ply counter is {a}, must be >= 0",
        E_TURN: lambda: f"turn counter is {a}, must be >= 0",
        E_BOARD_VALUE: lambda: (f"{cell(a)} holds {b}; board values are 0 (empty), 1 (black), "
                                "2 (white), 3 (off-board)"),
        E_ONBOARD_MARKED: lambda: f"{cell(a)} is on the board but marked off-board (3)",
        E_OFFBOARD_NOT_MARKED: lambda: f"{cell(a)} holds {b}, but off-board cells must hold 3",
        E_PARENT_NONSTONE: lambda: (f"union-find entry of {cell(a)}, which holds no stone, is {b}; "
                                    "it must be -1"),
        E_PARENT_RANGE: lambda: (f"union-find entry of the stone on {cell(a)} is {b}, out of range: a group "
                                 f"root holds -size (-1..-{n}), any other stone its root's cell (0..{n - 1})"),
        E_PARENT_EMPTY: lambda: f"the stone on {cell(a)} points to {cell(b)} as its group root, which holds no stone",
        E_PARENT_COLOUR: lambda: (f"the stone on {cell(a)} points to {cell(b)} as its group root, "
                                  "which holds a stone of the other colour"),
        E_PARENT_NOT_ROOT: lambda: (f"the stone on {cell(a)} points to {cell(b)} as its group root, "
                                    f"which is not a root (its entry is {c}, not -size)"),
        E_SIZE: lambda: f"the group rooted at {cell(a)} records size {b}, but {c} stones point to it",
        E_SPLIT: lambda: f"adjacent stones of one colour on {cell(a)} and {cell(b)} are in different groups",
        E_DISCONNECTED: lambda: (f"the group rooted at {cell(a)} is not connected: {c} of its {b} stones "
                                 "can be reached from its root"),
        E_GROUPS_BLACK: lambda: f"black group counter is {a}, but the board has {b} black groups",
        E_GROUPS_WHITE: lambda: f"white group counter is {a}, but the board has {b} white groups",
        E_EMPTY: lambda: f"empty-cell counter is {a}, but the board has {b} empty cells",
        E_STONES: lambda: f"stone counter is {a}, but the board has {b} stones",
        E_BITS: lambda: (f"parity bits of {cell(a)} are {b}, expected {c} (bit 0: a black stone there "
                         "keeps parity, bit 1: a white one; 0 on cells that are not empty)"),
        E_FLIPS_BLACK: lambda: f"count of black parity-flipping cells is {a}, but the board has {b}",
        E_FLIPS_WHITE: lambda: f"count of white parity-flipping cells is {a}, but the board has {b}",
        E_FIRST_IN_STEP1: lambda: f"first stone of the turn is {a} in step 1, must be -1",
        E_FIRST_IN_STEP2: lambda: (f"in step 2 the first stone of the turn must be a cell holding a stone, got {a}"
                                   + (f" ({cell(a)} holds {b})" if a >= 0 else "")),
        E_PASSES_IN_STEP2: lambda: f"consecutive passes is {a} in step 2 of a turn, must be 0 (a stone was just placed)",
        E_STEP2_STONES: lambda: (f"step 2 of a turn with {a} stone(s) on the board: Black's first turn places "
                                 "one stone and ends, so step 2 needs at least 2 stones"),
        E_OPENING: lambda: (f"on an empty board it is Black's first turn (black to move, no passes, game "
                            f"running), got player {a}, passes {b}, game-over flag {c}"),
        E_EVEN_TOTAL: lambda: (f"a turn starts with an even total of groups ({a}: black {b}, white {c}); "
                               "every turn ends with an odd total"),
        E_DONE_PASSES: lambda: (f"game-over flag is {a} with {b} consecutive passes: a game ends exactly "
                                "when the second pass in a row is played"),
        E_WINNER_RUNNING: lambda: f"winner is {a} while the game runs, must be -1",
        E_WINNER_WRONG: lambda: (f"winner is {a}, but black has {b} groups and white {c}: the player "
                                 "with fewer groups wins"),
        E_FINISHED: lambda: "the game is over; only running games can be loaded (finished games are reset at once)",
        E_NO_LEGAL: lambda: ("the player to act has no legal action (the first stone of this turn left no "
                             "way to end it with an odd total)"),
    }
    return messages[code]()


def check_geometry(geometry: Any) -> Geometry:
    """``geometry`` if it is a :class:`Geometry`; ValueError otherwise."""
    if not isinstance(geometry, Geometry):
        raise ValueError(
            f"geometry must be an odd_env Geometry (odd_env.common.geometry('xodd', 9)), got {type(geometry).__name__}"
        )
    if geometry.kind not in ("square", "hex"):
        raise ValueError(f"this is the {geometry.game} board: Xodd and Yodd positions need an Xodd or Yodd board "
                         "(odd_env.common.geometry('xodd', 9)); YINSH positions are odd_env.games.yinsh.state.YinshState")
    return geometry


def check_states(geometry: Geometry, states: np.ndarray, running_only: bool = False) -> None:
    """Raise ValueError naming the first row of ``states`` (int32[B, state_size]) that is
    not a position the rules can reach (with ``running_only``, also a finished game)."""
    g = check_geometry(geometry)
    if not isinstance(running_only, (bool, np.bool_)):
        raise ValueError(f"running_only must be True or False, got {running_only!r}")
    size = K.state_size(g.num_cells)
    if not isinstance(states, np.ndarray) or states.ndim != 2 or states.shape[1] != size or states.dtype != np.int32:
        got = f"{states.dtype}{list(states.shape)}" if isinstance(states, np.ndarray) else type(states).__name__
        raise ValueError(f"states must be int32[B, {size}] for {g.game} {g.size}, got {got}")
    out = np.zeros(4, dtype=np.int64)
    bad = first_invalid(np.ascontiguousarray(states), g.num_cells, g.neighbours, g.onboard, running_only, out)
    if bad >= 0:
        what = _describe(g, *(int(v) for v in out))
        raise ValueError(f"game {bad}: invalid {g.game} {g.size} state: {what}")


def check_state(geometry: Geometry, data: np.ndarray) -> None:
    """Raise ValueError saying what is wrong if ``data`` (int32[state_size]) is not a
    position the rules can reach."""
    g = check_geometry(geometry)
    size = K.state_size(g.num_cells)
    if not isinstance(data, np.ndarray) or data.shape != (size,) or data.dtype != np.int32:
        got = f"{data.dtype}{list(data.shape)}" if isinstance(data, np.ndarray) else type(data).__name__
        raise ValueError(f"state data must be a numpy int32[{size}] array for {g.game} {g.size}, got {got}")
    out = np.zeros(4, dtype=np.int64)
    if first_invalid(np.ascontiguousarray(data).reshape(1, size), g.num_cells, g.neighbours, g.onboard,
                     False, out) >= 0:
        raise ValueError(f"invalid {g.game} {g.size} state: {_describe(g, *(int(v) for v in out))}")
