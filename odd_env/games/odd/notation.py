"""Notation of docs/rules/xodd_yodd.md section 8: cells, stones, turns and actions as text.

* A **cell** is a column letter and a row number: column ``col`` is the letter
  ``'a' + col``; row ``row`` of the array is numbered ``H - row`` (row 0 is
  drawn at the top, so numbers count from 1 at the bottom): ``c4``. The same
  scheme names every on-board Yodd cell uniquely.
* A **stone** is its colour (``B`` or ``W``) and its cell: ``Bc4``, ``Wd5``.
  In code a stone is the pair ``(cell, colour)`` with colour 0 black, 1 white.
* A **turn** is its stones joined by ``,`` (``Bc4,Wd5``), or ``pass``. In code
  a turn is a tuple of stones; the empty tuple is a pass.

Colours in the notation are absolute (B is always black), while environment
actions are relative to the player to act (docs/rules/xodd_yodd.md section 5):
:func:`action_name` and :func:`parse_action` translate between the two.
Parsing raises ``ValueError`` saying what was wrong with the text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ...common.geometry import Geometry
from .state import GameState
from .validation import as_int, check_colour

Stone = tuple[int, int]
"""A stone as ``(cell, colour)``, colour 0 black or 1 white."""
Turn = tuple[Stone, ...]
"""The stones of one turn in the order played; ``()`` is a pass."""

PASS = "pass"
"""The notation of a pass."""
END_TURN = "end"
"""The name :func:`action_name` gives to ending a turn after one stone."""
COLOUR_LETTERS = "BW"
"""Notation letter of each colour (index 0 black, 1 white)."""

_CELL = re.compile(r"([a-z])([0-9]{1,2})")


def cell_name(geometry: Geometry, cell: int) -> str:
    """The name of array cell ``cell``, e.g. ``"c4"``."""
    x = as_int(cell)
    if x is None or not 0 <= x < geometry.num_cells or not geometry.onboard[x]:
        raise ValueError(f"cell {cell!r} is not on the {geometry.game} {geometry.size} board")
    return geometry.label(x)


def parse_cell(geometry: Geometry, name: str) -> int:
    """The array index of a cell name such as ``"c4"``; ValueError if malformed or off the board."""
    if not isinstance(name, str):
        raise ValueError(f"a cell name must be a string like 'c4', got {name!r}")
    m = _CELL.fullmatch(name.strip().lower())
    if m is None:
        raise ValueError(f"malformed cell {name!r}: expected a column letter and a row number, like 'c4'")
    col = ord(m.group(1)) - ord("a")
    row = geometry.height - int(m.group(2))
    if not (0 <= col < geometry.width and 0 <= row < geometry.height) or not geometry.onboard[
        row * geometry.width + col
    ]:
        raise ValueError(f"cell {name!r} is not on the {geometry.game} {geometry.size} board")
    return row * geometry.width + col


def column_letters(geometry: Geometry) -> str:
    """The column letters of the board, in order."""
    return "".join(chr(ord("a") + c) for c in range(geometry.width))


def stone_name(geometry: Geometry, cell: int, colour: int) -> str:
    """The name of a stone of ``colour`` (0 black, 1 white) on ``cell``, e.g. ``"Bc4"``."""
    return COLOUR_LETTERS[check_colour(colour)] + cell_name(geometry, cell)


def parse_stone(geometry: Geometry, text: str) -> Stone:
    """``(cell, colour)`` of a stone such as ``"Bc4"``; ValueError if malformed or off the board."""
    if not isinstance(text, str):
        raise ValueError(f"a stone must be a string like 'Bc4', got {text!r}")
    t = text.strip()
    if not t:
        raise ValueError("empty stone: expected a colour letter B or W and a cell, like 'Bc4'")
    colour = COLOUR_LETTERS.find(t[0].upper())
    if colour < 0:
        raise ValueError(
            f"malformed stone {text!r}: it must start with the colour, B or W, then the cell, like 'Bc4'"
        )
    try:
        cell = parse_cell(geometry, t[1:])
    except ValueError as e:
        raise ValueError(f"malformed stone {text!r}: {e}") from None
    return cell, colour


def check_stones(geometry: Geometry, turn: Sequence[Stone]) -> Turn:
    """``turn`` (a sequence of at most two ``(cell, colour)`` pairs of integers, on-board
    cells, colours 0 or 1) as a :data:`Turn`; ValueError saying what is wrong otherwise."""
    if isinstance(turn, str) or not isinstance(turn, Sequence):
        raise ValueError(f"a turn must be a sequence of (cell, colour) stones, got {turn!r}")
    if len(turn) > 2:
        raise ValueError(f"a turn has at most two stones, got {len(turn)}")
    stones = []
    for stone in turn:
        if isinstance(stone, str) or not isinstance(stone, Sequence) or len(stone) != 2:
            raise ValueError(f"a stone must be a (cell, colour) pair of integers, got {stone!r}")
        cell, colour = as_int(stone[0]), check_colour(stone[1])
        cell_name(geometry, stone[0])  # an integer cell on the board, or ValueError
        stones.append((cell, colour))
    if len(stones) == 2 and stones[0][0] == stones[1][0]:  # as parse_turn refuses it
        raise ValueError(f"turn {turn!r} places two stones on the same cell {cell_name(geometry, stones[0][0])}")
    return tuple(stones)


def turn_name(geometry: Geometry, turn: Sequence[Stone]) -> str:
    """The notation of a turn: ``"Bc4,Wd5"``, ``"Bc4"``, or ``"pass"`` for no stones."""
    stones = check_stones(geometry, turn)
    if not stones:
        return PASS
    return ",".join(stone_name(geometry, cell, colour) for cell, colour in stones)


def parse_turn(geometry: Geometry, text: str) -> Turn:
    """The stones of a turn such as ``"Bc4,Wd5"`` (``()`` for ``"pass"``).

    Checks the form only (one or two stones on distinct on-board cells, or
    pass); whether the turn is legal depends on the position.
    """
    if not isinstance(text, str):
        raise ValueError(f"a turn must be a string like 'Bc4,Wd5' or 'pass', got {text!r}")
    t = text.strip()
    if t.lower() == PASS:
        return ()
    if not t:
        raise ValueError("empty turn: expected one or two stones like 'Bc4,Wd5', or 'pass'")
    parts = t.split(",")
    for p in parts:
        if not p.strip():
            raise ValueError(f"turn {text!r} has an empty stone: stones are joined by a single ','")
        if p.strip().lower() == PASS:
            raise ValueError(f"turn {text!r} mixes 'pass' with stones: a pass is a turn on its own")
    if len(parts) > 2:
        raise ValueError(f"turn {text!r} has {len(parts)} stones: a turn places one or two stones")
    stones = tuple(parse_stone(geometry, p) for p in parts)
    if len(stones) == 2 and stones[0][0] == stones[1][0]:
        raise ValueError(
            f"turn {text!r} places two stones on the same cell {cell_name(geometry, stones[0][0])}"
        )
    return stones


def stone_action(state: GameState, cell: int, colour: int) -> int:
    """The relative action placing a stone of ``colour`` (0 black, 1 white) on ``cell`` for the player to act."""
    n = state.geometry.num_cells
    x = as_int(cell)
    if x is None or not 0 <= x < n:
        raise ValueError(f"cell {cell!r} is out of range: cells are integers 0..{n - 1}")
    cell_name(state.geometry, x)  # on the board (array cells outside the hexagon are not), or ValueError
    return x if check_colour(colour) == state.to_move else n + x


def action_name(state: GameState, action: int) -> str:
    """The notation of a relative ``action`` for the player to act: ``"Bc4"``, ``"pass"`` or ``"end"``."""
    g = state.geometry
    n = g.num_cells
    a = as_int(action)
    if a is None:
        raise ValueError(f"an action is an integer 0..{2 * n}, got {type(action).__name__}: {action!r}")
    if not 0 <= a <= 2 * n:
        raise ValueError(f"action {action!r} is out of range: actions are 0..{2 * n}")
    if a == 2 * n:
        return END_TURN if state.turn_step == 2 else PASS
    colour = state.to_move if a < n else 1 - state.to_move
    return stone_name(g, a % n, colour)


def parse_action(state: GameState, text: str) -> int:
    """The relative action for the player to act named by ``text``: a stone (``"Bc4"``), ``"pass"`` or ``"end"``.

    ``"pass"`` and ``"end"`` both name action ``2N``; legality is not checked.
    """
    n = state.geometry.num_cells
    if isinstance(text, str) and text.strip().lower() in (PASS, END_TURN):
        return 2 * n
    cell, colour = parse_stone(state.geometry, text)
    return stone_action(state, cell, colour)
