"""The play front ends' view of YINSH (:class:`odd_env.common.front.FrontEnd`)."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ...common.front import ANSI_RESET, FrontEnd
from ...game import make as make_game
from . import kernels as YK
from .records import YinshRecord
from .render import to_svg as yinsh_svg
from .render import to_text as yinsh_text
from .render import yinsh_layout
from .state import NUM_POINTS, PASS_ACTION, ROW_PREFIX, YinshState, parse_point, point_name
from .state import PLAYER_NAMES as YINSH_PLAYERS
from .state import tables as yinsh_tables


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


class YinshFrontEnd(FrontEnd):
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

    def fits(self, agent: Any) -> str | None:
        """Greedy (and MCTS with greedy parts) play Xodd and Yodd only; a network must be of this game."""
        if agent.name == "greedy" or "greedy" in (getattr(agent, "rollout", None), getattr(agent, "prior", None)):
            return (f"{agent.label} uses the greedy player, which plays Xodd and Yodd only; "
                    "for YINSH use random or mcts (rollout=random, prior=none)")
        own = getattr(agent, "game", None)
        if own is not None and own is not self.game_spec:
            return f"{agent.label} plays {own.label}, not {self.label}"
        cannot_play = getattr(agent, "cannot_play", None)  # e.g. a size-general network of another game
        return cannot_play(self.game_spec) if callable(cannot_play) else None

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

    def continued(self, state: YinshState, action: int) -> bool:
        """True for a ring chosen to move (``E4-``): its destination's name says the whole move (``E4-E10``)."""
        return state.decision == YK.KIND_MOVE and action != PASS_ACTION

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
        """:func:`odd_env.games.yinsh.render.to_text`; rings and markers coloured with ``colour``."""
        out = yinsh_text(state)
        if not colour:
            return out
        lines = out.split("\n")
        # Only the board rows: the letter lines and the status line have nothing to colour.
        for i in range(1, len(lines) - 2):
            lines[i] = "".join(f"{_YINSH_ANSI[ch]}{ch}{ANSI_RESET}" if ch in _YINSH_ANSI else ch for ch in lines[i])
        return "\n".join(lines)

    def svg(self, state: YinshState, actions: Sequence[int], cell_px: float = 40) -> str:
        """:func:`odd_env.games.yinsh.render.to_svg` with the legal actions marked and the latest ring move drawn."""
        return yinsh_svg(state, show_legal=True, cell_px=cell_px)

    def click_points(self, cell_px: float = 40) -> tuple[list[tuple[int, float, float]], float]:
        """Every point's centre in the picture; a click counts within half a point spacing of it."""
        lay = yinsh_layout(cell_px)
        points = np.flatnonzero(YinshState.geometry.onboard)
        return [(int(x), *lay.centre(int(x))) for x in points], 0.5 * float(cell_px)

    def record_text(self, actions: Sequence[int], comment: str = "") -> str:
        """A :class:`~odd_env.games.yinsh.records.YinshRecord` as text (``YinshRecord.load`` reads it back)."""
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
