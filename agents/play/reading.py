"""What a play session (:class:`agents.play.session.PlaySession`) tells its front ends: the position,
the moves, whose turn, the status line and the result, and the names of moves, all read-only.

:class:`SessionReading` is mixed into :class:`~agents.play.session.PlaySession`, whose game
(``_game``, a :class:`agents.play.history.GameHistory`), front end (``adapter``), person's colour
(``human``) and opponent's name (``opponent_label``) it reads.
"""

from __future__ import annotations

from typing import Any, Sequence

from .history import Move


class SessionReading:
    """The read-only side of :class:`agents.play.session.PlaySession` (see the module docstring)."""

    @property
    def _state(self) -> Any:
        """The current position itself (not a copy)."""
        return self._game.state

    @property
    def state(self) -> Any:
        """A copy of the current position."""
        return self._state.copy()

    @property
    def moves(self) -> tuple[Move, ...]:
        """Every move played so far, in order."""
        return tuple(self._game.moves)

    @property
    def actions(self) -> list[int]:
        """The actions played so far (replaying them from the start gives :attr:`state`)."""
        return [m.action for m in self._game.moves]

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
        """True when the person has a move to take back."""
        return self._game.can_undo

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
        """The names of ``moves`` joined by ``", "`` (``"Wd4, Bc5"``); a move in two actions by its
        whole name (YINSH: ``"H7-F5"``, not ``"H7-, H7-F5"``)."""
        return ", ".join(m.name for i, m in enumerate(moves)
                         if not (m.continued and i + 1 < len(moves) and moves[i + 1].player == m.player))

    def describe_undone(self, undone: Sequence[Move]) -> str:
        """What :meth:`undo` took back: ``"took back your Bc3 and greedy's Wd4, end"``."""
        yours = self.describe([m for m in undone if not m.by_agent])
        theirs = self.describe([m for m in undone if m.by_agent])
        return f"took back your {yours}" + (f" and {self.opponent_label}'s {theirs}" if theirs else "")
