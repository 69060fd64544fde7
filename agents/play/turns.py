"""The agents of a play session (:class:`agents.play.session.PlaySession`): loading them, the opponent's
turn (it acts until the person is to act), and the hints (what another agent would play for the person).
"""

from __future__ import annotations

from typing import Any

from ..base import Agent
from ..registry import load
from .history import GameHistory, Move


def load_agent(spec: str, what: str) -> Agent:
    """``agents.load(spec)``; a file that cannot be read (a checkpoint) is a ValueError too."""
    try:
        return load(spec)
    except OSError as e:
        raise ValueError(f"cannot load {what} {spec!r}: {e}") from None


def agent_turn(opponent: Agent, label: str, history: GameHistory, human: int) -> list[Move]:
    """Let ``opponent`` (named ``label``) act on ``history`` until it is the person's (``human``) turn or
    the game is over; return its moves. RuntimeError if it plays an illegal action (a bug, not a choice)."""
    made = []
    state = history.state
    while not state.is_terminal and int(state.to_move) != human:
        action = int(opponent.act(state.copy()))
        message = history.front.illegal(state, action)
        if message is not None:
            raise RuntimeError(f"{label} played illegal action {action}: {message}")
        made.append(history.apply(action, by_agent=True))
    return made


class HintAgents:
    """The agents asked for hints on the board of ``front``, each loaded (and checked to fit) once."""

    def __init__(self, front: Any):
        self.front = front
        self._agents: dict[str, Agent] = {}

    def get(self, spec: str) -> Agent:
        """The hint agent of ``spec``; ValueError if it cannot be loaded or cannot play the board."""
        if spec not in self._agents:
            agent = load_agent(spec, "the hint agent")
            reason = self.front.fits(agent)
            if reason is not None:
                raise ValueError(f"the hint agent cannot play this board: {reason}")
            self._agents[spec] = agent
        return self._agents[spec]

    def hint(self, spec: str, state: Any, seed: int | None) -> tuple[int, str]:
        """What agent ``spec`` (reset with ``seed``) plays at ``state``: (its first action, the move's name
        as the prompt takes it). A move in two actions is asked whole and named whole."""
        agent = self.get(spec)
        agent.reset(seed)
        state = state.copy()
        first = action = int(agent.act(state.copy()))
        while self.front.continued(state, action):
            state.apply(action)
            action = int(agent.act(state.copy()))
        return first, self.front.action_name(state, action)
