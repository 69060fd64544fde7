"""The random player: uniform over the legal actions of each decision, in any game."""

from __future__ import annotations

from odd_env.game import Position

from ..base import Agent, check_position


class RandomAgent(Agent):
    """Picks uniformly among the legal actions (pass and end turn included)."""

    name = "random"

    def act(self, state: Position) -> int:
        """A uniformly random legal action."""
        check_position(self.name, state)
        legal = state.legal_actions()
        return int(legal[self.rng.integers(len(legal))])
