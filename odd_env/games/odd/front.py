"""The play front ends' view of Xodd and Yodd (:class:`odd_env.common.front.FrontEnd`)."""

from __future__ import annotations

import re
from typing import Any, Sequence

import numpy as np

from ...common.front import ANSI_RESET, FrontEnd
from ...common.geometry import geometry as make_geometry
from ...game import make as make_game
from .notation import END_TURN, PASS, action_name, parse_action, parse_cell, stone_action, stone_name
from .records import GameRecord, illegal_reason
from .render import board_layout, to_svg, to_text
from .state import COLOUR_NAMES, GameState


_ANSI = {
    "X": "\x1b[1;97;40m",  # a black stone: bright white on black, readable on dark and light terminals
    "O": "\x1b[1;30;107m",  # a white stone: black on bright white
    "[": "\x1b[1;31m",
    "]": "\x1b[1;31m",
    ".": "\x1b[2m",
}


class OddFrontEnd(FrontEnd):
    """Xodd and Yodd: moves in the notation of docs/rules/xodd_yodd.md section 8, board from :mod:`odd_env.games.odd.render`."""

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

    def fits(self, agent: Any) -> str | None:
        """Agents built for one game and board (a network, or a search guided by one) must be built for this one."""
        own = getattr(agent, "game", None)
        if own is not None and (own.name, own.size) != (self.game, self.size):
            return f"{agent.label} plays {own.label}, not {self.game} {self.size}"
        g = getattr(agent, "geometry", None)
        if g is not None and g is not self.geometry:
            return f"{agent.label} plays {g.game} {g.size}, not {self.game} {self.size}"
        # agents tied to no board (a size-general network, a search) say which games they cannot play
        cannot_play = getattr(agent, "cannot_play", None)
        return cannot_play(make_game(self.game, self.size)) if callable(cannot_play) else None

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
        """:func:`odd_env.games.odd.render.to_text` with the pass / end-turn legality; stones coloured with ``colour``."""
        out = to_text(state, show_legal=True)
        if not colour:
            return out
        lines = out.split("\n")
        # Only the board rows: the letter lines and the status line have no stone symbols to colour.
        for i in range(1, len(lines) - 2):
            lines[i] = "".join(f"{_ANSI[ch]}{ch}{ANSI_RESET}" if ch in _ANSI else ch for ch in lines[i])
        return "\n".join(lines)

    def svg(self, state: GameState, actions: Sequence[int], cell_px: float = 40) -> str:
        """:func:`odd_env.games.odd.render.to_svg` with the legal cells and the last turn's stones ringed."""
        highlight = GameRecord.from_actions(self.geometry, actions).last_turn_cells()
        return to_svg(state, show_legal=True, highlight=highlight, cell_px=cell_px)

    def click_points(self, cell_px: float = 40) -> tuple[list[tuple[int, float, float]], float]:
        """Every on-board cell's centre; a click counts within half a cell of it."""
        lay = board_layout(self.geometry, cell_px)
        cells = np.flatnonzero(self.geometry.onboard)
        return [(int(c), *lay.centre(int(c))) for c in cells], 0.5 * float(cell_px)

    def record_text(self, actions: Sequence[int], comment: str = "") -> str:
        """A :class:`~odd_env.games.odd.records.GameRecord` as text (``GameRecord.load`` reads it back)."""
        text = GameRecord.from_actions(self.geometry, actions).to_text()
        return (f"# {comment}\n" if comment else "") + text


def _first_stone(state: GameState) -> str:
    """The name of the stone placed in step 1 of the current turn (``Bc4``)."""
    g = state.geometry
    return stone_name(g, state.first_stone, int(state.board[state.first_stone]) - 1)
