"""The greedy player: the best whole turn by the group count, one turn deep (Xodd and Yodd).

The search itself is compiled with the games' heuristics
(:mod:`odd_env.games.odd.heuristics`, whose docstring explains the scores,
tie-breaks and bounds); this module is the player around it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from odd_env.game import Position
from odd_env.games.odd.heuristics import NO_SCORES, best_second, best_turn

from ..base import Agent, check_int, check_position, new_rng_state

TIEBREAKS = ("liberties", "random")


class GreedyAgent(Agent):
    """Plays the turn that maximises (opponent's groups - own groups) after it.

    One turn of look-ahead over every legal turn (see the module docstring).
    ``tiebreak="liberties"`` (default) breaks ties by the liberty balance and
    then at random; ``"random"`` breaks them at random only.
    """

    name = "greedy"

    def __init__(self, seed: int | None = None, tiebreak: str = "liberties",
                 geometry: Any = None):
        if tiebreak not in TIEBREAKS:
            raise ValueError(f"greedy option tiebreak must be one of {TIEBREAKS}, got {tiebreak!r}")
        super().__init__(seed=seed, geometry=geometry)
        self.tiebreak = tiebreak
        self._rng_state = new_rng_state(self.rng)
        self._plan: tuple[np.ndarray, int, int] | None = None  # (board after step 1, to_move, step 2)

    def reset(self, seed: int | None = None) -> None:
        """Forget the planned second stone; reseed when ``seed`` is given."""
        super().reset(seed)
        if seed is not None:
            self._rng_state = new_rng_state(self.rng)
        self._plan = None

    def get_state(self) -> dict[str, Any]:
        """The random generators and the planned second stone (see :meth:`Agent.get_state`)."""
        plan = None
        if self._plan is not None:
            board, to_move, second = self._plan
            plan = {"board": board.tolist(), "to_move": int(to_move), "second": int(second)}
        return {**super().get_state(), "xorshift": int(self._rng_state[0]), "plan": plan}

    def set_state(self, state: Any) -> None:
        """Restore what :meth:`get_state` returned."""
        try:
            xorshift = check_int("greedy saved xorshift state", state["xorshift"], 1)
            rng_state = np.array([xorshift], dtype=np.uint64)
            plan = state["plan"]
            if plan is not None:
                plan = (np.asarray(plan["board"], dtype=np.int32), int(plan["to_move"]), int(plan["second"]))
        except (KeyError, TypeError, ValueError, OverflowError) as err:
            raise ValueError(f"bad saved state for agent {self.label}: {err!r}") from err
        super().set_state(state)  # the last check: nothing is assigned before every part is read
        self._rng_state = rng_state
        self._plan = plan

    @property
    def options(self) -> dict[str, Any]:
        """``seed`` and ``tiebreak``."""
        return {"seed": self.seed, "tiebreak": self.tiebreak}

    @property
    def label(self) -> str:
        """``greedy``, or ``greedy:tiebreak=random``."""
        return self.name if self.tiebreak == "liberties" else f"{self.name}:tiebreak={self.tiebreak}"

    def plan_turn(self, state: Position) -> tuple[int, int, int, int]:
        """The greedy turn at step 1: ``(first, second, groups, liberties)`` as in :func:`best_turn`."""
        g = state.geometry
        first, second, groups, libs = best_turn(
            state.data, g.num_cells, g.neighbours, self._rng_state, self.tiebreak == "liberties", NO_SCORES)
        return int(first), int(second), int(groups), int(libs)

    def cannot_play(self, game: Any) -> str | None:
        """Greedy plays Xodd and Yodd only."""
        if game.name not in ("xodd", "yodd"):
            return "greedy plays Xodd and Yodd only (it counts groups one turn ahead); for other games use random or mcts"
        return None

    def act(self, state: Position) -> int:
        """Step 1: plan the best turn and play its first action; step 2: play the plan."""
        check_position(self.name, state)
        if getattr(state, "game_name", None) not in ("xodd", "yodd"):
            raise ValueError(
                f"greedy plays Xodd and Yodd only (it counts groups one turn ahead), not "
                f"{getattr(state, 'game_name', type(state).__name__)}; for other games use random or mcts")
        if state.is_terminal:
            raise ValueError("the game is over")
        g = state.geometry
        n = g.num_cells
        if state.turn_step == 1:
            first, second, _, _ = self.plan_turn(state)
            self._plan = None
            if second >= 0:
                board = state.board.copy()
                board[first % n] = state.to_move + 1 if first < n else 2 - state.to_move
                self._plan = (board, state.to_move, second)
            return first
        plan, self._plan = self._plan, None
        if plan is not None:
            board, to_move, second = plan
            if (
                to_move == state.to_move
                and np.array_equal(board, state.board)
                and state.legal_action_mask()[second]
            ):
                return second
        choice, _, _ = best_second(
            state.data, n, g.neighbours, self._rng_state, self.tiebreak == "liberties", NO_SCORES)
        return int(choice)
