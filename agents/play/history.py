"""The moves of a play session (:class:`agents.play.session.PlaySession`): the position, every action played
with the position before it (for undo), and where each of the person's entries (a line, a click) begins.

:class:`GameHistory` applies actions through the game's front end (which names them and tells a move in
two actions), replays a saved game, and takes back the person's last entry whole with the replies after it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence


@dataclass(frozen=True)
class Move:
    """One action as played: by which player, whether the agent played it, and its name; ``continued``:
    it only begins a move that the player's next action ends and names whole (YINSH's ring chosen,
    ``E4-``, then ``E4-E10``; see :meth:`odd_env.common.front.FrontEnd.continued`)."""

    player: int
    action: int
    name: str
    by_agent: bool
    continued: bool = False


class GameHistory:
    """The position of a game from the empty board of ``front`` (a :class:`odd_env.common.front.FrontEnd`)
    and the moves that led to it."""

    def __init__(self, front: Any):
        self.front = front
        self.state = front.new_state()
        """The current position (the session hands out copies)."""
        self.moves: list[Move] = []
        self._before: list[Any] = []  # the position before each move, for undo
        self._entries: list[int] = []  # where each of the person's entries begins in moves

    def replay(self, actions: Sequence[int], human: int) -> None:
        """Play ``actions`` (a saved game to go on with), each checked; the person's (``human``) moves are
        each one entry, a ring chosen and its destination together. ValueError naming the bad move."""
        if isinstance(actions, (str, bytes)) or not hasattr(actions, "__iter__"):
            raise ValueError(f"actions must be a sequence of action numbers (the game to go on with), "
                             f"got {type(actions).__name__}: {actions!r}")
        for i, a in enumerate(actions):
            message = self.front.illegal(self.state, a)
            if message is not None:
                raise ValueError(f"move #{i + 1} of the game to go on with: {message}")
            by_agent = int(self.state.to_move) != human
            previous = self.moves[-1] if self.moves else None
            # A replayed game's entries are not known: each of the person's moves is one.
            if not by_agent and not (previous is not None and previous.continued and not previous.by_agent):
                self.begin_entry()
            self.apply(int(a), by_agent=by_agent)

    def apply(self, action: int, by_agent: bool) -> Move:
        """Play ``action`` (legal: the caller checked it) and return it as a :class:`Move`."""
        s = self.state
        move = Move(int(s.to_move), action, self.front.action_name(s, action), by_agent,
                    self.front.continued(s, action))
        self._before.append(s.copy())
        s.apply(action)
        self.moves.append(move)
        return move

    def begin_entry(self) -> None:
        """The person's next actions are one entry, which :meth:`undo` takes back whole."""
        self._entries.append(len(self.moves))

    @property
    def can_undo(self) -> bool:
        """True when the person has an entry to take back."""
        return bool(self._entries)

    def undo(self) -> list[Move]:
        """Take back the person's last entry and every move after it; return them (``can_undo`` first)."""
        k = self._entries.pop()
        undone = self.moves[k:]
        self.state = self._before[k]
        del self.moves[k:], self._before[k:]
        return undone
