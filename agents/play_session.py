"""One game between a person and an agent: the logic under both play front ends.

:class:`PlaySession` holds the game: the position, every action played (for
undo and the record), which colour the person plays and the agent that
replies. The terminal (:mod:`agents.play`) and the Jupyter widget
(:mod:`agents.widget`) only read it and call its methods::

    session = PlaySession("yodd", 4, opponent="mcts:simulations=200", human="black", seed=1)
    session.play_text("Bc4")          # a step of the person; the agent replies when the turn passes
    session.play_text("Wd5")
    session.undo()                    # back to the person's previous decision
    session.hint()                    # what the hint agent (greedy) would play here
    session.save("game.txt")          # the record, which GameRecord.load reads back

What differs between games (reading a move, naming an action, the status
line, the pictures, the record) is behind a :class:`GameAdapter`;
:class:`OddAdapter` serves Xodd and Yodd. The session itself only uses the
position interface (``to_move``, ``is_terminal``, ``legal_action_mask()``,
``apply()``, ``copy()``) and :mod:`agents`; :class:`YinshAdapter` serves YINSH
(standard and blitz), one decision an action (docs/rules/yinsh.md sections 3
and 4). Another game needs an adapter and an entry in :data:`ADAPTERS`, and
nothing else here.
"""

from __future__ import annotations

import os
import re
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from odd_env._files import check_path, write_atomic
from odd_env.core import yinsh_kernels as YK
from odd_env.core.geometry import geometry as make_geometry
from odd_env.core.state import COLOUR_NAMES, GameState
from odd_env.core.yinsh import NUM_POINTS, PASS_ACTION, ROW_PREFIX, YinshState, parse_point, point_name
from odd_env.core.yinsh import PLAYER_NAMES as YINSH_PLAYERS
from odd_env.core.yinsh import tables as yinsh_tables
from odd_env.game import make as make_game
from odd_env.notation import END_TURN, PASS, action_name, parse_action, parse_cell, stone_action, stone_name
from odd_env.records import GameRecord, YinshRecord, illegal_reason
from odd_env.render import board_layout, to_svg, to_text
from odd_env.yinsh_render import to_svg as yinsh_svg
from odd_env.yinsh_render import to_text as yinsh_text
from odd_env.yinsh_render import yinsh_layout

from . import load
from .base import Agent, check_float, check_int


# ---------------------------------------------------------------- the game adapter
class GameAdapter(ABC):
    """What the play front ends need to know about one game at one size.

    A game implements every method; the session and the front ends never
    look inside a position beyond ``to_move``, ``is_terminal``,
    ``legal_action_mask()``, ``apply()`` and ``copy()``.
    """

    game: str
    """The game's name, as ``--game`` spells it."""
    size: int
    """The board size."""
    player_names: tuple[str, str] = ("black", "white")
    """Names of player 0 and player 1."""
    move_help: str = ""
    """What a move looks like, for the terminal's help."""
    default_agent: str = "greedy"
    """The agent spec of the opponent and of hints when none is given."""

    @property
    def label(self) -> str:
        """The game and its board as one name: ``"xodd 7"``, ``"yinsh blitz"``."""
        return f"{self.game} {self.size}"

    @abstractmethod
    def new_state(self) -> Any:
        """The position at the start of a game."""

    @abstractmethod
    def fits(self, agent: Agent) -> str | None:
        """None if ``agent`` can play this game at this size, else why not."""

    # reading and naming moves
    @abstractmethod
    def parse(self, state: Any, text: str) -> list[int]:
        """The actions that ``text`` names for the player to act, checked legal in order.

        A line may hold several decisions of the same player (a two-stone
        turn). ValueError, with the rules' reason, if it is malformed or any
        of them is illegal.
        """

    @abstractmethod
    def action_name(self, state: Any, action: int) -> str:
        """``action`` in the game's notation, for the player to act in ``state``."""

    @abstractmethod
    def illegal(self, state: Any, action: int) -> str | None:
        """None if ``action`` is legal in ``state``, else one sentence naming it and the rules' reason."""

    @abstractmethod
    def decision(self, state: Any) -> str:
        """What the player to act decides now, e.g. ``"step 2: a second stone, or end"``."""

    @abstractmethod
    def result(self, state: Any) -> str:
        """The result of a finished game, one line."""

    # clicks on the board
    @abstractmethod
    def click_action(self, state: Any, point: int, alternative: bool = False) -> int:
        """The action of a click on ``point``; ``alternative``: the other kind of piece (the opponent's colour)."""

    @abstractmethod
    def click_alternatives(self, state: Any) -> tuple[str, str] | None:
        """Labels of a click and an alternative click (``("black", "white")``), or None if a click has one meaning."""

    @abstractmethod
    def button_action(self, state: Any) -> tuple[str, int] | None:
        """The label and action of the move that has a button (pass / end turn), or None where it is illegal."""

    def choices(self, state: Any) -> list[tuple[str, int]]:
        """Moves offered as a list of buttons (label, action), e.g. YINSH's rows to remove; [] by default."""
        return []

    # pictures
    @abstractmethod
    def text(self, state: Any, colour: bool = False) -> str:
        """The board as text with coordinates and a status line; ``colour``: ANSI colours."""

    @abstractmethod
    def svg(self, state: Any, actions: Sequence[int], cell_px: float) -> str:
        """The board as SVG with the legal moves and the last moves marked."""

    @abstractmethod
    def click_points(self, cell_px: float) -> tuple[list[tuple[int, float, float]], float]:
        """The points a click can hit in :meth:`svg` as ``(point, x, y)`` pixels, and the hit radius."""

    # records
    @abstractmethod
    def record_text(self, actions: Sequence[int], comment: str = "") -> str:
        """The record of the game that ``actions`` play from the start, ``comment`` as its first line."""


_ANSI_RESET = "\x1b[0m"
_ANSI = {
    "X": "\x1b[1;97;40m",  # a black stone: bright white on black, readable on dark and light terminals
    "O": "\x1b[1;30;107m",  # a white stone: black on bright white
    "[": "\x1b[1;31m",
    "]": "\x1b[1;31m",
    ".": "\x1b[2m",
}


class OddAdapter(GameAdapter):
    """Xodd and Yodd: moves in the notation of docs/rules/xodd_yodd.md section 8, board from :mod:`odd_env.render`."""

    move_help = (
        "a stone of either colour (Bc4, Wd5; a bare cell c4 is your colour), a two-stone turn "
        "(Bc4,Wd5), pass, or end (after one stone)"
    )

    def __init__(self, game: str, size: int, variant: str = ""):
        """The adapter of ``game`` ("xodd" or "yodd") at ``size``; ValueError for a board that does not exist."""
        if variant:
            raise ValueError(f"{game} has no variants, got variant {variant!r} (blitz is a variant of YINSH)")
        self.geometry = make_geometry(game, size)
        self.game = game
        self.size = int(size)

    def new_state(self) -> GameState:
        """The empty board, Black to play."""
        return GameState(self.geometry)

    def fits(self, agent: Agent) -> str | None:
        """Agents built for one game and board (a network, or a search guided by one) must be built for this one."""
        own = getattr(agent, "game", None)
        if own is not None and (own.name, own.size) != (self.game, self.size):
            return f"{agent.label} plays {own.label}, not {self.game} {self.size}"
        g = getattr(agent, "geometry", None)
        if g is None or g is self.geometry:
            return None
        return f"{agent.label} plays {g.game} {g.size}, not {self.game} {self.size}"

    def parse(self, state: GameState, text: str) -> list[int]:
        """``Bc4`` / ``c4`` (your colour) / ``Bc4,Wd5`` / ``pass`` / ``end`` as actions, each checked legal."""
        if not isinstance(text, str):
            raise ValueError(f"a move is text, got {type(text).__name__} {text!r}: expected {self.move_help}")
        if not text.strip():
            raise ValueError(f"empty move: expected {self.move_help}")
        words = [w.strip() for w in text.split(",")]
        if len(words) > 2:
            raise ValueError(f"{text.strip()!r} has {len(words)} parts: a turn is at most two stones")
        trial = state.copy()
        actions: list[int] = []
        for word in words:
            if actions and (trial.is_terminal or trial.to_move != state.to_move):
                why = " (Black's first turn is one stone)" if state.first_turn else ""
                raise ValueError(f"{action_name(state, actions[0])} ends {COLOUR_NAMES[state.to_move]}'s turn{why}, "
                                 f"so {word!r} cannot follow it")
            action = self._action(trial, word)
            message = self.illegal(trial, action)
            if message is not None:
                raise ValueError(message)
            trial.apply(action)
            actions.append(action)
        return actions

    def _action(self, state: GameState, word: str) -> int:
        low = word.lower()
        # parse_action reads both words as the last action; a person who types one means that one.
        if low == END_TURN and state.turn_step == 1:
            raise ValueError("there is no turn to end: 'end' follows the first stone of a turn (step 2); "
                             "to pass, type pass")
        if low == PASS and state.turn_step == 2:
            raise ValueError(f"the turn has begun with {_first_stone(state)}: type end to end it "
                             "(a pass is a turn without stones)")
        try:
            return parse_action(state, word)
        except ValueError as stone_error:
            try:  # a bare cell: a stone of the mover's colour
                return stone_action(state, parse_cell(self.geometry, word), state.to_move)
            except ValueError as cell_error:
                w = word.strip()
                if re.fullmatch(r"[A-Za-z][0-9]+", w):  # a cell, wrong for this board
                    raise cell_error from None
                if len(w) > 1 and w[0].upper() in "BW" and re.fullmatch(r"[A-Za-z][0-9]+", w[1:]):
                    raise stone_error from None  # a stone with a cell, wrong for this board
                raise ValueError(f"{w!r} is not a move: expected {self.move_help}") from None

    def action_name(self, state: GameState, action: int) -> str:
        """``Bc4``, ``pass`` or ``end``."""
        return action_name(state, action)

    def illegal(self, state: GameState, action: int) -> str | None:
        """None if legal, else ``"Bc4 is illegal: c4 is occupied by a white stone"``."""
        reason = illegal_reason(state, action)
        if reason is None:
            return None
        try:
            name = action_name(state, action)
        except (TypeError, ValueError):  # not an action at all: the reason says so
            return reason
        return f"{name} is illegal: {reason}"

    def decision(self, state: GameState) -> str:
        """The step of the turn and what it allows."""
        if state.is_terminal:
            return "game over"
        if state.first_turn:
            return "first turn: one stone"
        if state.turn_step == 2:
            can_end = bool(state.legal_action_mask()[-1])
            return "step 2: a second stone" + (", or end" if can_end else " (end is illegal: parity)")
        return "step 1: a stone, or pass"

    def result(self, state: GameState) -> str:
        """``white wins; groups: black 3, white 2``."""
        b, w = state.group_counts
        return f"{COLOUR_NAMES[state.winner]} wins; groups: black {b}, white {w}"

    def click_action(self, state: GameState, point: int, alternative: bool = False) -> int:
        """A stone on cell ``point``: of the mover's colour, or the opponent's with ``alternative``."""
        g = self.geometry
        if isinstance(point, bool) or not isinstance(point, (int, np.integer)) or not (
            0 <= point < g.num_cells and g.onboard[point]
        ):
            raise ValueError(f"{point!r} is not a cell of the {self.game} {self.size} board")
        colour = 1 - state.to_move if alternative else state.to_move
        return stone_action(state, int(point), colour)

    def click_alternatives(self, state: GameState) -> tuple[str, str]:
        """(the mover's colour, the opponent's colour)."""
        return COLOUR_NAMES[state.to_move], COLOUR_NAMES[1 - state.to_move]

    def button_action(self, state: GameState) -> tuple[str, int] | None:
        """``("pass", 2N)`` in step 1, ``("end turn", 2N)`` in step 2; None where illegal."""
        last = self.geometry.num_actions - 1
        if state.is_terminal or not state.legal_action_mask()[last]:
            return None
        return ("end turn" if state.turn_step == 2 else "pass"), last

    def text(self, state: GameState, colour: bool = False) -> str:
        """:func:`odd_env.render.to_text` with the pass / end-turn legality; stones coloured with ``colour``."""
        out = to_text(state, show_legal=True)
        if not colour:
            return out
        lines = out.split("\n")
        # Only the board rows: the letter lines and the status line have no stone symbols to colour.
        for i in range(1, len(lines) - 2):
            lines[i] = "".join(f"{_ANSI[ch]}{ch}{_ANSI_RESET}" if ch in _ANSI else ch for ch in lines[i])
        return "\n".join(lines)

    def svg(self, state: GameState, actions: Sequence[int], cell_px: float = 40) -> str:
        """:func:`odd_env.render.to_svg` with the legal cells and the last turn's stones ringed."""
        highlight = GameRecord.from_actions(self.geometry, actions).last_turn_cells()
        return to_svg(state, show_legal=True, highlight=highlight, cell_px=cell_px)

    def click_points(self, cell_px: float = 40) -> tuple[list[tuple[int, float, float]], float]:
        """Every on-board cell's centre; a click counts within half a cell of it."""
        lay = board_layout(self.geometry, cell_px)
        cells = np.flatnonzero(self.geometry.onboard)
        return [(int(c), *lay.centre(int(c))) for c in cells], 0.5 * float(cell_px)

    def record_text(self, actions: Sequence[int], comment: str = "") -> str:
        """A :class:`~odd_env.records.GameRecord` as text (``GameRecord.load`` reads it back)."""
        text = GameRecord.from_actions(self.geometry, actions).to_text()
        return (f"# {comment}\n" if comment else "") + text


def _first_stone(state: GameState) -> str:
    """The name of the stone placed in step 1 of the current turn (``Bc4``)."""
    g = state.geometry
    return stone_name(g, state.first_stone, int(state.board[state.first_stone]) - 1)


_YINSH_ANSI = {
    "W": "\x1b[1;30;107m",  # a white ring: as a white stone
    "B": "\x1b[1;97;40m",  # a black ring: as a black stone
    "w": "\x1b[30;47m",
    "b": "\x1b[97;100m",
    "[": "\x1b[1;31m",
    "]": "\x1b[1;31m",
    "(": "\x1b[1;31m",
    ")": "\x1b[1;31m",
    ".": "\x1b[2m",
}


class YinshAdapter(GameAdapter):
    """YINSH, standard or blitz: one decision an action, moves in the notation of docs/rules/yinsh.md section 6.

    A line in the terminal holds one or more decisions of the same player, as
    in records: ``E5`` (place a ring), ``E4-E10`` (choose the ring on E4 and
    move it: two decisions), ``E4`` alone at a move (choose the ring only),
    ``xE5-E9`` (remove a row), ``rE5`` (remove a ring), ``pass``. A click on
    a point is the point action of the decision; at a row removal it is the
    one legal row through the point (the rows are also :meth:`choices`).
    """

    player_names = YINSH_PLAYERS
    move_help = ("a ring placed (E5), a ring moved (E4-E10, or E4 then E10), a row removed (xE5-E9), "
                 "a ring removed (rE5), or pass; several of your decisions may share a line (E4-E10 xE5-E9 rB3)")
    default_agent = "mcts:simulations=100"

    def __init__(self, game: str = "yinsh", size: int | None = None, variant: str = ""):
        """The adapter of YINSH (``variant`` "" or "blitz"); ValueError for a size (YINSH has one board)."""
        if size not in (None, 0):
            raise ValueError(f"YINSH has one board: give no board size, got {size!r}")
        self.game_spec = make_game("yinsh", variant=variant)  # ValueError naming the variants
        self.game = "yinsh"
        self.size = 0
        self.blitz = self.game_spec.variant == "blitz"

    @property
    def label(self) -> str:
        """``"yinsh"`` or ``"yinsh blitz"``."""
        return self.game_spec.label

    def new_state(self) -> YinshState:
        """The empty board, White to place a ring."""
        return YinshState(blitz=self.blitz)

    def fits(self, agent: Agent) -> str | None:
        """Greedy (and MCTS with greedy parts) play Xodd and Yodd only; a network must be of this game."""
        if agent.name == "greedy" or "greedy" in (getattr(agent, "rollout", None), getattr(agent, "prior", None)):
            return (f"{agent.label} uses the greedy player, which plays Xodd and Yodd only; "
                    "for YINSH use random or mcts (rollout=random, prior=none)")
        own = getattr(agent, "game", None)
        if own is not None and own is not self.game_spec:
            return f"{agent.label} plays {own.label}, not {self.label}"
        return None

    def parse(self, state: YinshState, text: str) -> list[int]:
        """The decisions of one line (``E5``, ``E4-E10``, ``xE5-E9``, ``rE5``, ``pass``; several
        space-separated), each checked legal."""
        if not isinstance(text, str):
            raise ValueError(f"a move is text, got {type(text).__name__} {text!r}: expected {self.move_help}")
        if not text.strip():
            raise ValueError(f"empty move: expected {self.move_help}")
        trial = state.copy()
        actions: list[int] = []
        previous = ""
        for word in text.split():
            if actions and (trial.is_terminal or trial.to_move != state.to_move):
                after = "the game is over" if trial.is_terminal else f"{YINSH_PLAYERS[trial.to_move]} decides next"
                raise ValueError(f"{word!r} cannot follow {previous!r}: {after}")
            previous = word
            for action in self._word_actions(trial, word):
                reason = trial.why_illegal(action)
                if reason is not None:
                    raise ValueError(f"{word} is illegal: {reason}")
                trial.apply(action)
                actions.append(action)
        return actions

    @staticmethod
    def _word_actions(state: YinshState, word: str) -> list[int]:
        """The actions one word names at ``state``'s decision (``E4-E10`` at a move: the ring, then where it goes)."""
        parts = word.split("-")
        if state.decision == YK.KIND_MOVE and len(parts) == 2 and not word.lower().startswith(ROW_PREFIX):
            try:
                return [parse_point(parts[0]), parse_point(parts[1])]
            except ValueError as e:
                raise ValueError(f"{word!r}: {e}") from None
        try:
            return [state.parse_action(word)]
        except ValueError as e:
            raise ValueError(f"{word!r}: {e} (expected {_YINSH_EXPECTED[state.decision_name]})") from None

    def action_name(self, state: YinshState, action: int) -> str:
        """``E5``, ``E4-`` (a ring chosen to move), ``E4-E10``, ``xE5-E9``, ``rE5`` or ``pass``."""
        name = state.action_to_string(action)
        # As a record writes a turn in progress: "E4-" is a ring chosen, "E4" would read as one placed.
        return f"{name}-" if state.decision == YK.KIND_MOVE and action != PASS_ACTION else name

    def illegal(self, state: YinshState, action: int) -> str | None:
        """None if legal, else ``"E5 is illegal: E5 is occupied by a white ring: ..."``."""
        reason = state.why_illegal(action)
        if reason is None:
            return None
        try:
            name = self.action_name(state, action)
        except ValueError:  # not an action at all: the reason says so
            return reason
        return f"{name} is illegal: {reason}"

    def decision(self, state: YinshState) -> str:
        """What to decide and how to write it, the rings removed and the pool."""
        if state.is_terminal:
            return "game over"
        kind = state.decision_name
        what = _YINSH_EXPECTED[kind]
        if kind == "destination":
            ring = point_name(state.chosen_ring)
            what = f"move the ring on {ring} ({ring}-E10, or the point alone)"
        if state.resolving_opponent_rows:
            what += " made by the opponent's move"
        w, b = state.rings_removed
        return f"{what}; rings removed: white {w}, black {b}; pool {state.pool}"

    def result(self, state: YinshState) -> str:
        """``white wins; rings removed: white 1, black 0``."""
        w, b = state.rings_removed
        head = "a draw" if state.is_draw else f"{YINSH_PLAYERS[state.winner]} wins"
        return f"{head}; rings removed: white {w}, black {b}; pool {state.pool}"

    def click_action(self, state: YinshState, point: int, alternative: bool = False) -> int:
        """The point action of the decision; at a row removal, the one legal row through ``point``."""
        if alternative:
            raise ValueError("a click on a YINSH point has one meaning (there is no other colour to place)")
        point_name(point)  # ValueError naming the valid points
        if state.decision != YK.KIND_ROW:
            return int(point)
        rows = [int(a) for a in state.legal_actions() if point in _row_points(int(a))]
        if len(rows) == 1:
            return rows[0]
        names = ", ".join(state.action_to_string(a) for a in state.legal_actions())
        if not rows:
            raise ValueError(f"{point_name(point)} is in no row you can remove (here: {names})")
        raise ValueError(f"{point_name(point)} is in {len(rows)} rows you can remove: choose one with its button "
                         f"or click a point only it holds (here: {names})")

    def click_alternatives(self, state: YinshState) -> None:
        """None: a click has one meaning."""
        return None

    def button_action(self, state: YinshState) -> tuple[str, int] | None:
        """``("pass", 484)`` where no ring can move, else None."""
        if state.is_terminal or not state.legal_action_mask()[PASS_ACTION]:
            return None
        return "pass", PASS_ACTION

    def choices(self, state: YinshState) -> list[tuple[str, int]]:
        """The legal rows as ``(name, action)`` at a row removal, else []."""
        if state.is_terminal or state.decision != YK.KIND_ROW:
            return []
        return [(state.action_to_string(int(a)), int(a)) for a in state.legal_actions()]

    def text(self, state: YinshState, colour: bool = False) -> str:
        """:func:`odd_env.yinsh_render.to_text`; rings and markers coloured with ``colour``."""
        out = yinsh_text(state)
        if not colour:
            return out
        lines = out.split("\n")
        # Only the board rows: the letter lines and the status line have nothing to colour.
        for i in range(1, len(lines) - 2):
            lines[i] = "".join(f"{_YINSH_ANSI[ch]}{ch}{_ANSI_RESET}" if ch in _YINSH_ANSI else ch for ch in lines[i])
        return "\n".join(lines)

    def svg(self, state: YinshState, actions: Sequence[int], cell_px: float = 40) -> str:
        """:func:`odd_env.yinsh_render.to_svg` with the legal actions marked and the latest ring move drawn."""
        return yinsh_svg(state, show_legal=True, cell_px=cell_px)

    def click_points(self, cell_px: float = 40) -> tuple[list[tuple[int, float, float]], float]:
        """Every point's centre in the picture; a click counts within half a point spacing of it."""
        lay = yinsh_layout(cell_px)
        points = np.flatnonzero(YinshState.geometry.onboard)
        return [(int(x), *lay.centre(int(x))) for x in points], 0.5 * float(cell_px)

    def record_text(self, actions: Sequence[int], comment: str = "") -> str:
        """A :class:`~odd_env.records.YinshRecord` as text (``YinshRecord.load`` reads it back)."""
        text = YinshRecord.from_actions(actions, blitz=self.blitz).to_text()
        return (f"# {comment}\n" if comment else "") + text


_YINSH_EXPECTED = {
    "place": "place a ring (E5)",
    "move": "choose a ring and move it (E4-E10, or E4 to choose it)",
    "destination": "move the chosen ring (E4-E10, or the point alone)",
    "remove_row": "remove a row of five of your markers (xE5-E9)",
    "remove_ring": "remove one of your rings (rE5)",
    "pass": "pass, as no ring of yours can move (pass)",
    "over": "nothing: the game is over",
}


def _row_points(action: int) -> list[int]:
    """The five points of row action ``action`` (docs/rules/yinsh.md section 4)."""
    d, start = divmod(action - NUM_POINTS, NUM_POINTS)
    return [start] + [int(y) for y in yinsh_tables().rays[start, d, :4]]


ADAPTERS: dict[str, Callable[[str, int | None, str], GameAdapter]] = {
    "xodd": OddAdapter, "yodd": OddAdapter, "yinsh": YinshAdapter}
"""The games one can play, and the adapter of each (called with the game, the size and the variant)."""
DEFAULT_SIZES = {"xodd": 7, "yodd": 5}
"""Board size of each game when none is given (small enough for a game of a few minutes)."""


def adapter(game: str, size: int | None = None, variant: str = "") -> GameAdapter:
    """The adapter of ``game`` at ``size`` (default :data:`DEFAULT_SIZES`) and ``variant``
    (``"blitz"`` for YINSH); ValueError naming the games."""
    if not isinstance(game, str) or game not in ADAPTERS:
        raise ValueError(f"unknown game {game!r}: expected one of {', '.join(sorted(ADAPTERS))}")
    return ADAPTERS[game](game, DEFAULT_SIZES.get(game) if size is None else size, variant)


def load_record(path: str | os.PathLike) -> tuple[str, int, str, list[int]]:
    """(game, size, variant, actions) of a saved record (Xodd/Yodd or YINSH, told by its header line);
    ValueError naming the file and line if it is bad, OSError if it cannot be read."""
    path = check_path(path, "record path")
    with open(path, encoding="utf-8-sig", errors="replace") as f:
        words = next((w for w in (line.split("#", 1)[0].split() for line in f) if w), [""])
    if words[0].lower() == "yinsh":
        rec = YinshRecord.load(path)
        return "yinsh", 0, "blitz" if rec.blitz else "", list(rec.actions)
    odd = GameRecord.load(path)
    return odd.game, odd.size, "", list(odd.actions)


# ---------------------------------------------------------------- the session
def _load(spec: str, what: str) -> Agent:
    """``agents.load(spec)``; a file that cannot be read (a checkpoint) is a ValueError too."""
    try:
        return load(spec)
    except OSError as e:
        raise ValueError(f"cannot load {what} {spec!r}: {e}") from None


@dataclass(frozen=True)
class Move:
    """One action as played: by which player, whether the agent played it, and its name."""

    player: int
    action: int
    name: str
    by_agent: bool


class PlaySession:
    """A game of a person against an agent: position, history (for undo), the agent's replies, the record.

    Args:
        game: ``"xodd"``, ``"yodd"`` or ``"yinsh"`` (any key of :data:`ADAPTERS`);
            default: the agent's game when it is built for one (a network), else xodd.
        board_size: the board size; default: the agent's board when it has
            one, else :data:`DEFAULT_SIZES` (YINSH has one board: none).
        opponent: an agent spec (``"mcts:simulations=200"``) or an
            :class:`~agents.base.Agent`; default: the adapter's
            :attr:`~GameAdapter.default_agent` (greedy; for YINSH, mcts).
        human: the person's colour: ``"black"``, ``"white"`` (or 0, 1) or
            ``"random"`` (drawn with ``seed``).
        seed: seeds the agent and the random colour, so a game repeats.
        hint: the agent spec that :meth:`hint` asks by default (default:
            the adapter's :attr:`~GameAdapter.default_agent`).
        actions: actions to replay first (a saved game to go on with).
        variant: the game's variant (``"blitz"`` for YINSH; default: the
            agent's when it is built for one game, else the standard game).

    The agent replies at once whenever the turn passes to it (also on
    construction when it plays first). Bad arguments raise ValueError.
    """

    def __init__(
        self,
        game: str | None = None,
        board_size: int | None = None,
        opponent: str | Agent | None = None,
        human: str | int = "black",
        seed: int | None = None,
        hint: str | None = None,
        actions: Sequence[int] = (),
        variant: str | None = None,
    ):
        seed = None if seed is None else check_int("seed", seed, 0)
        if opponent is None:  # the game's default agent: the game must be known without one
            self.adapter = adapter(game or "xodd", board_size, variant or "")
            opponent = self.adapter.default_agent
        agent = _load(opponent, "the opponent") if isinstance(opponent, str) else opponent
        if not isinstance(agent, Agent):
            raise ValueError(f"opponent must be an agent spec or an Agent, got {type(opponent).__name__}")
        own = getattr(agent, "game", None)  # the one game of a network; None for the others
        if game is None:
            game = own.name if own is not None else "xodd"
        if own is not None and own.name == game:
            tied = getattr(agent, "geometry", None) is not None or agent.network_sha256 is not None
            if board_size is None and tied:
                board_size = own.size  # a network's board, or a search's network's (an agent of a game's default board sets none)
            if variant is None:
                variant = own.variant
        self.adapter = adapter(game, board_size, variant or "")
        reason = self.adapter.fits(agent)
        if reason is not None:
            raise ValueError(f"the opponent cannot play this board: {reason}")
        self.opponent = agent
        self.opponent_label = opponent if isinstance(opponent, str) else agent.label
        self.seed = seed
        self.hint_spec = hint or self.adapter.default_agent
        self._hint_agents: dict[str, Agent] = {}
        self._hint_agent(self.hint_spec)  # a bad spec is an error now, not at the first hint
        self.human = self._colour(human, seed)
        self._start(actions)

    def _colour(self, human: str | int, seed: int | None) -> int:
        names = self.adapter.player_names
        if human == "random":
            return int(np.random.default_rng(seed).integers(2))
        if isinstance(human, str) and human.lower() in names:
            return names.index(human.lower())
        if not isinstance(human, bool) and human in (0, 1):
            return int(human)
        raise ValueError(f"human must be {names[0]!r}, {names[1]!r} or 'random' (or 0, 1), got {human!r}")

    def _start(self, actions: Sequence[int]) -> None:
        if isinstance(actions, (str, bytes)) or not hasattr(actions, "__iter__"):
            raise ValueError(f"actions must be a sequence of action numbers (the game to go on with), "
                             f"got {type(actions).__name__}: {actions!r}")
        self._state = self.adapter.new_state()
        self._moves: list[Move] = []
        self._history: list[Any] = []  # the position before each move, for undo
        for i, a in enumerate(actions):
            message = self.adapter.illegal(self._state, a)
            if message is not None:
                raise ValueError(f"move #{i + 1} of the game to go on with: {message}")
            self._apply(int(a), by_agent=self.to_move != self.human)
        self.opponent.reset(self.seed)
        self.last_reply: list[Move] = []
        """The agent's moves since the person's last one."""
        self.reply()

    # ------------------------------------------------------------ reading
    @property
    def state(self) -> Any:
        """A copy of the current position."""
        return self._state.copy()

    @property
    def moves(self) -> tuple[Move, ...]:
        """Every move played so far, in order."""
        return tuple(self._moves)

    @property
    def actions(self) -> list[int]:
        """The actions played so far (replaying them from the start gives :attr:`state`)."""
        return [m.action for m in self._moves]

    @property
    def is_over(self) -> bool:
        """True once the game has ended."""
        return bool(self._state.is_terminal)

    @property
    def to_move(self) -> int:
        """The player to act (0 or 1)."""
        return int(self._state.to_move)

    @property
    def your_turn(self) -> bool:
        """True when the person is to act."""
        return not self.is_over and self.to_move == self.human

    @property
    def can_undo(self) -> bool:
        """True when the person has a decision to take back."""
        return any(not m.by_agent for m in self._moves)

    @property
    def human_name(self) -> str:
        """The person's colour."""
        return self.adapter.player_names[self.human]

    @property
    def agent_name(self) -> str:
        """The agent's colour."""
        return self.adapter.player_names[1 - self.human]

    def players(self) -> str:
        """``"you (black) against greedy (white)"``."""
        return f"you ({self.human_name}) against {self.opponent_label} ({self.agent_name})"

    def status(self) -> str:
        """One line: whose turn and which decision, or the result."""
        if self.is_over:
            return f"game over: {self.adapter.result(self._state)} ({self.outcome()})"
        who = f"your turn ({self.human_name})" if self.your_turn else f"{self.opponent_label} to play"
        return f"{who}, {self.adapter.decision(self._state)}"

    def outcome(self) -> str | None:
        """``"you won"`` / ``"you lost"`` / ``"a draw"`` once the game is over, else None."""
        if not self.is_over:
            return None
        r = self._state.returns()[self.human]
        return "you won" if r > 0 else "you lost" if r < 0 else "a draw"

    def describe(self, moves: Sequence[Move]) -> str:
        """The names of ``moves`` joined by ``", "`` (``"Wd4, Bc5"``)."""
        return ", ".join(m.name for m in moves)

    def describe_undone(self, undone: Sequence[Move]) -> str:
        """What :meth:`undo` took back: ``"took back your Bc3 and greedy's Wd4, end"``."""
        yours = self.describe([m for m in undone if not m.by_agent])
        theirs = self.describe([m for m in undone if m.by_agent])
        return f"took back your {yours}" + (f" and {self.opponent_label}'s {theirs}" if theirs else "")

    # ------------------------------------------------------------ playing
    def play(self, action: int, reply: bool = True) -> list[Move]:
        """Play the person's ``action``, then (``reply``) the agent's replies; returns the moves made.

        ValueError (nothing changes) when it is not the person's turn or the
        action is illegal, saying why. With ``reply=False`` the front end
        calls :meth:`reply` itself (to show the person's move first).
        """
        self._check_turn()
        message = self.adapter.illegal(self._state, action)
        if message is not None:
            raise ValueError(message)
        return self._play([int(action)], reply)

    def play_text(self, text: str, reply: bool = True) -> list[Move]:
        """Play the move(s) written in ``text`` in the game's notation, then (``reply``) the agent's replies.

        ValueError (nothing changes) if the text is malformed, a move in it is
        illegal, or it is not the person's turn.
        """
        self._check_turn()
        return self._play(self.adapter.parse(self._state, text), reply)

    def click(self, point: int, alternative: bool = False, reply: bool = True) -> list[Move]:
        """Play a click on ``point`` (``alternative``: the opponent's colour), then (``reply``) the agent's replies."""
        self._check_turn()
        return self.play(self.adapter.click_action(self._state, point, alternative), reply)

    def button(self, reply: bool = True) -> list[Move]:
        """Play the move that has a button (pass or end turn), then (``reply``) the agent's replies."""
        self._check_turn()
        found = self.adapter.button_action(self._state)
        if found is None:
            # Every game's last action is its pass / end turn (the point actions come first).
            raise ValueError(self.adapter.illegal(self._state, len(self._state.legal_action_mask()) - 1))
        return self.play(found[1], reply)

    def _play(self, actions: list[int], reply: bool) -> list[Move]:
        made = [self._apply(a, by_agent=False) for a in actions]
        self.last_reply = []
        return made + (self.reply() if reply else [])

    def reply(self) -> list[Move]:
        """Let the agent act until it is the person's turn or the game is over; returns its moves."""
        made = []
        while not self.is_over and self.to_move != self.human:
            action = int(self.opponent.act(self._state.copy()))
            message = self.adapter.illegal(self._state, action)
            if message is not None:  # a bug in the agent, not a choice
                raise RuntimeError(f"{self.opponent_label} played illegal action {action}: {message}")
            made.append(self._apply(action, by_agent=True))
        self.last_reply = made
        return made

    def _check_turn(self) -> None:
        if self.is_over:
            raise ValueError(f"the game is over: {self.adapter.result(self._state)}; undo or start a new game")
        if not self.your_turn:
            raise ValueError(f"it is {self.opponent_label}'s turn, not yours")

    def _apply(self, action: int, by_agent: bool) -> Move:
        s = self._state
        move = Move(int(s.to_move), action, self.adapter.action_name(s, action), by_agent)
        self._history.append(s.copy())
        s.apply(action)
        self._moves.append(move)
        return move

    def undo(self) -> list[Move]:
        """Take back the person's last move and the agent's replies after it; returns the moves taken back.

        ValueError (nothing changes) when the person has not moved yet.
        """
        if not self.can_undo:
            raise ValueError("nothing to undo: you have not moved yet")
        k = max(i for i, m in enumerate(self._moves) if not m.by_agent)
        undone = self._moves[k:]
        self._state = self._history[k]
        del self._moves[k:], self._history[k:]
        self.opponent.reset()  # drop plans and search trees of the abandoned line
        self.last_reply = []
        return undone

    def new_game(self, human: str | int | None = None) -> None:
        """Start again from the empty board (``human``: change colour; default the same)."""
        if human is not None:
            self.human = self._colour(human, self.seed)
        self._start(())

    def hint(self, spec: str | None = None) -> tuple[int, str]:
        """(action, name) that agent ``spec`` (default :attr:`hint_spec`) would play for the person now."""
        self._check_turn()
        agent = self._hint_agent(spec or self.hint_spec)
        agent.reset(self.seed)
        action = int(agent.act(self._state.copy()))
        return action, self.adapter.action_name(self._state, action)

    def _hint_agent(self, spec: str) -> Agent:
        if spec not in self._hint_agents:
            agent = _load(spec, "the hint agent")
            reason = self.adapter.fits(agent)
            if reason is not None:
                raise ValueError(f"the hint agent cannot play this board: {reason}")
            self._hint_agents[spec] = agent
        return self._hint_agents[spec]

    # ------------------------------------------------------------ records
    def record_text(self) -> str:
        """The game's record, the players in a comment on the first line."""
        names = self.adapter.player_names
        label = {self.human: "you", 1 - self.human: self.opponent_label}
        return self.adapter.record_text(self.actions, f"{label[0]} ({names[0]}) vs {label[1]} ({names[1]})")

    def save(self, path: str | os.PathLike) -> Path:
        """Write :meth:`record_text` to ``path`` (folders made as needed); returns the path."""
        return write_atomic(path, self.record_text(), what="record path")

    @classmethod
    def from_record(cls, path: str | os.PathLike, **kwargs: Any) -> PlaySession:
        """A session going on from a saved record (the other arguments as for the constructor)."""
        game, size, variant, actions = load_record(path)
        return cls(game, size or None, actions=actions, variant=variant, **kwargs)

    def __repr__(self) -> str:
        return f"PlaySession({self.adapter.label}, {self.players()}; {self.status()})"


__all__ = ["ADAPTERS", "DEFAULT_SIZES", "GameAdapter", "Move", "OddAdapter", "PlaySession", "YinshAdapter", "adapter",
           "load_record"]
