"""Tic-tac-toe as an odd_env game, written here to prove that a new game needs only its own code.

Nothing in ``odd_env`` or ``agents`` knows this game: :func:`register` adds it to
the registry of :mod:`odd_env.game` at test time, and the generic pieces (the
batched engine over positions, the AEC env, the plain front end) serve it.
Actions are the 9 cells (``a1`` .. ``c3``) and one pass action that is never
legal (the interface's ``point_planes * H * W + 1``); observations are three
planes: the player's marks, the opponent's, and the board.
"""

from __future__ import annotations

import numpy as np

from odd_env.common.aec import GameRawEnv, make_env
from odd_env.common.batch import PositionBatch
from odd_env.common.front import PlainFrontEnd
from odd_env.common.records import ActionRecord
from odd_env.game import Game, make, register as register_game

NAME = "tictactoe"
LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
CELLS = 9


class TicTacToe:
    """A position: ``board`` holds 0 (empty), 1 (X, player 0) and 2 (O, player 1)."""

    __slots__ = ("board", "to_move", "winner", "is_terminal")

    def __init__(self) -> None:
        self.board = np.zeros(CELLS, dtype=np.int8)
        self.to_move, self.winner, self.is_terminal = 0, None, False

    @property
    def game(self) -> Game:
        return make(NAME)

    def returns(self) -> tuple[float, float]:
        if self.winner is None:
            return 0.0, 0.0
        return (1.0, -1.0) if self.winner == 0 else (-1.0, 1.0)

    def legal_action_mask(self) -> np.ndarray:
        mask = np.zeros(CELLS + 1, dtype=np.int8)
        if not self.is_terminal:
            mask[:CELLS] = self.board == 0
        return mask

    def legal_actions(self) -> np.ndarray:
        return np.flatnonzero(self.legal_action_mask())

    def why_illegal(self, action: object) -> str | None:
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            return f"action must be an integer in [0, {CELLS}], got {action!r}"
        if not 0 <= action <= CELLS:
            return f"action {action} is out of range [0, {CELLS}]"
        if self.is_terminal:
            return "the game is over"
        if action == CELLS:
            return "tic-tac-toe has no pass"
        return None if self.board[action] == 0 else f"{cell_name(int(action))} is taken"

    def apply(self, action: int) -> TicTacToe:
        reason = self.why_illegal(action)
        if reason is not None:
            raise ValueError(f"illegal action {action!r}: {reason}")
        self.board[int(action)] = self.to_move + 1
        if any(all(self.board[x] == self.to_move + 1 for x in line) for line in LINES):
            self.winner, self.is_terminal = self.to_move, True
        elif not (self.board == 0).any():
            self.is_terminal = True
        self.to_move = 1 - self.to_move
        return self

    def child(self, action: int) -> TicTacToe:
        return self.copy().apply(action)

    def copy(self) -> TicTacToe:
        other = TicTacToe.__new__(TicTacToe)
        other.board = self.board.copy()
        other.to_move, other.winner, other.is_terminal = self.to_move, self.winner, self.is_terminal
        return other

    def observation(self, viewer: int | None = None, out: np.ndarray | None = None) -> np.ndarray:
        viewer = self.to_move if viewer is None else viewer
        out = np.empty((3, 3, 3), dtype=np.int8) if out is None else out
        out[0] = (self.board == viewer + 1).reshape(3, 3)
        out[1] = (self.board == 2 - viewer).reshape(3, 3)
        out[2] = 1
        return out

    def key(self) -> bytes:
        return self.board.tobytes() + bytes([self.to_move, self.is_terminal])


def cell_name(cell: int) -> str:
    return "abc"[cell % 3] + str(3 - cell // 3)


def parse_action(position: TicTacToe, text: str) -> int:
    word = text.strip().lower()
    for cell in range(CELLS):
        if cell_name(cell) == word:
            return cell
    raise ValueError(f"{text!r} is not a cell: a1 .. c3")


def from_observation(planes: np.ndarray) -> TicTacToe:
    planes = np.asarray(planes)
    if planes.shape != (3, 3, 3):
        raise ValueError(f"tic-tac-toe planes have shape (3, 3, 3), got {planes.shape}")
    own, opp = planes[0].reshape(-1).astype(bool), planes[1].reshape(-1).astype(bool)
    state = TicTacToe()
    state.to_move = 0 if own.sum() == opp.sum() else 1
    state.board[own] = state.to_move + 1
    state.board[opp] = 2 - state.to_move
    return state


def to_text(position: TicTacToe, **options: object) -> str:
    rows = [" ".join(".XO"[v] for v in position.board[r * 3:r * 3 + 3]) for r in range(3)]
    return "\n".join(f"{3 - r} {row}" for r, row in enumerate(rows)) + "\n  a b c"


def to_svg(position: TicTacToe, **options: object) -> str:
    marks = "".join(f'<text x="{20 + 40 * (x % 3)}" y="{28 + 40 * (x // 3)}">{".XO"[v]}</text>'
                    for x, v in enumerate(position.board) if v)
    return f'<svg xmlns="http://www.w3.org/2000/svg" width="120" height="120">{marks}</svg>'


class TicTacToeRecord(ActionRecord):
    """A game as its header line and one cell a line."""

    header = NAME

    def __init__(self) -> None:
        super().__init__(make(NAME))


def make_game(name: str, size: int | None = None, variant: str = "") -> Game:
    if size not in (None, 0) or variant:
        raise ValueError("tic-tac-toe has one board and no variants")
    return Game(
        name=NAME, size=0, variant="", height=3, width=3, num_planes=3, point_planes=1, hexagonal=False,
        onboard_plane=2, onboard=np.ones(CELLS, dtype=bool), observation_version=1, player_names=("x", "o"),
        new_state=TicTacToe, new_batch=lambda num_games, as_torch=False: PositionBatch(make(NAME), num_games, as_torch),
        from_observation=from_observation, action_to_string=lambda position, a: cell_name(int(a)),
        parse_action=parse_action, summary=lambda position: {"empty": int((position.board == 0).sum())},
        record=TicTacToeRecord.from_actions, load_record=TicTacToeRecord.load, to_text=to_text, to_svg=to_svg,
        front_end=lambda: PlainFrontEnd(make(NAME)), compiled=_compiled,
    )


def _compiled():
    from toy_compiled import compiled_rules  # its kernels compile only when a compiled search asks

    return compiled_rules()


class raw_env(GameRawEnv):  # noqa: N801 (PettingZoo's name)
    """Tic-tac-toe as a PettingZoo AEC env: the generic env of the game interface."""

    metadata = {**GameRawEnv.metadata, "name": "tictactoe_v0"}

    def __init__(self, render_mode: str | None = None):
        super().__init__(make(NAME), render_mode=render_mode)


def env(**kwargs: object):
    return make_env(raw_env, **kwargs)


def register() -> None:
    """Add tic-tac-toe to the game registry (idempotent)."""
    register_game(NAME, "toy_game:make_game", overwrite=True)
