"""What the play front ends need from a game: reading, naming, showing and clicking its moves.

The terminal (``python -m agents.play``) and the Jupyter board
(``agents.play_widget``) run one generic session
(:class:`agents.play.session.PlaySession`) and take everything game-specific
from the game's :class:`FrontEnd` (``odd_env.game.make(...).front_end()``):
:class:`odd_env.games.odd.front.OddFrontEnd` for Xodd and Yodd,
:class:`odd_env.games.yinsh.front.YinshFrontEnd` for YINSH. A new game
supplies its own, or uses :class:`PlainFrontEnd`, which needs nothing but the
game interface.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Sequence

import numpy as np

from .drawing import CELL_PX_RANGE

ANSI_RESET = "\x1b[0m"
"""The ANSI code that ends a coloured piece of the text boards."""


class FrontEnd(ABC):
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
    default_human: str | int = "black"
    """The side a person plays when none is chosen (a player name or number)."""
    cell_px_range: tuple[float, float] = CELL_PX_RANGE
    """The ``cell_px`` (pixels between adjacent points) that :meth:`svg` accepts."""

    @property
    def label(self) -> str:
        """The game and its board as one name: ``"xodd 7"``, ``"yinsh blitz"``."""
        return f"{self.game} {self.size}"

    @abstractmethod
    def new_state(self) -> Any:
        """The position at the start of a game."""

    @abstractmethod
    def fits(self, agent: Any) -> str | None:
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

    def continued(self, state: Any, action: int) -> bool:
        """True when ``action`` only begins a move that the same player's next action ends, and that
        action's name names the whole move (YINSH: a ring chosen, ``E4-``, then ``E4-E10``): lists of
        moves, hints and undo treat the two as one. False by default."""
        return False

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


class PlainFrontEnd(FrontEnd):
    """A front end that needs nothing but the game interface: moves typed in the game's notation
    (``parse_action``), one decision a line; the board from the game's ``to_text`` and
    ``to_svg``; a click on point ``p`` plays the first legal action on it."""

    default_agent = "mcts:simulations=100"
    default_human = 0

    def __init__(self, game: Any) -> None:
        self.spec = game
        self.game = game.name
        self.size = game.size
        self.player_names = tuple(game.player_names)
        self.move_help = f"a move in {game.name}'s notation"

    @property
    def label(self) -> str:
        return self.spec.label

    def new_state(self) -> Any:
        return self.spec.new_state()

    def fits(self, agent: Any) -> str | None:
        own = getattr(agent, "game", None)
        if own is not None and own is not self.spec:
            return f"{agent.label} plays {own.label}, not {self.label}"
        reason = agent.cannot_play(self.spec) if hasattr(agent, "cannot_play") else None
        return reason

    def parse(self, state: Any, text: str) -> list[int]:
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"a move is text: expected {self.move_help}")
        action = self.spec.parse_action(state, text)
        reason = state.why_illegal(action)
        if reason is not None:
            raise ValueError(f"{text.strip()} is illegal: {reason}")
        return [action]

    def action_name(self, state: Any, action: int) -> str:
        return self.spec.action_to_string(state, action)

    def illegal(self, state: Any, action: int) -> str | None:
        reason = state.why_illegal(action)
        return None if reason is None else f"{self.action_name(state, action)} is illegal: {reason}"

    def decision(self, state: Any) -> str:
        return f"{self.player_names[state.to_move]} to move"

    def result(self, state: Any) -> str:
        return "a draw" if state.winner is None else f"{self.player_names[state.winner]} wins"

    def _cells(self) -> np.ndarray:
        return np.flatnonzero(self.spec.onboard)

    def click_action(self, state: Any, point: int, alternative: bool = False) -> int:
        cells = self.spec.height * self.spec.width
        legal = [a for a in state.legal_actions() if a < self.spec.num_actions - 1 and a % cells == point]
        if not legal:
            raise ValueError(f"no legal move on point {point}")
        return int(legal[-1] if alternative else legal[0])

    def click_alternatives(self, state: Any) -> None:
        return None

    def button_action(self, state: Any) -> tuple[str, int] | None:
        last = self.spec.num_actions - 1
        return ("pass", last) if state.legal_action_mask()[last] else None

    def text(self, state: Any, colour: bool = False) -> str:
        return self.spec.to_text(state)

    def svg(self, state: Any, actions: Sequence[int], cell_px: float) -> str:
        return self.spec.to_svg(state)

    def click_points(self, cell_px: float) -> tuple[list[tuple[int, float, float]], float]:
        w = self.spec.width
        return [(int(x), (x % w + 0.5) * cell_px, (x // w + 0.5) * cell_px) for x in self._cells()], cell_px / 2

    def record_text(self, actions: Sequence[int], comment: str = "") -> str:
        text = self.spec.record(list(actions)).to_text()
        return (f"# {comment}\n" if comment else "") + text
