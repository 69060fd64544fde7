"""The perfect player: exact play from the solver of small Xodd and Yodd boards (issue 39).

On every decision it asks the game's solver (the module named by
``game.extra["solver"]``, :mod:`odd_env.games.odd.solver`) for the value of
every legal action, looking positions up in the solver's table and searching
the rest, and plays

* a winning action when one exists: of those, the one whose win took the
  fewest nodes to prove (the most direct win);
* otherwise (the position is lost against perfect play) the losing action
  whose refutation took the most nodes to prove: the opponent's hardest win,
  the best practical chance against a fallible opponent.

"Nodes to prove" is the work the solver's table records with each entry
(log2 of the nodes of its proof); ties go to the lowest action. The player is
deterministic. It plays only boards the solver can solve quickly enough:
Xodd up to 4x4 and Yodd up to base 3 in practice (the solver refuses boards
of more than 64 array cells). ``table=PATH`` preloads a table saved by
``python -m agents.solve --save``; ``time_limit`` bounds the search of one
decision (seconds; past it, an action of unknown value may be played).
"""

from __future__ import annotations

import importlib
import os
from typing import Any

from odd_env.game import Game, Position

from ..base import Agent, check_float, check_position


def solver_module(game: Game) -> Any:
    """The solver module of ``game`` (ValueError if the game has none)."""
    path = game.extra.get("solver") if isinstance(getattr(game, "extra", None), dict) else None
    if not path:
        raise ValueError(f"{game.label} has no exact solver (there is one for Xodd and Yodd)")
    return importlib.import_module(path)


class PerfectAgent(Agent):
    """Plays a winning action whenever one exists (see the module docstring)."""

    name = "perfect"

    def __init__(self, seed: int | None = None, table: str | os.PathLike | None = None,
                 time_limit: float | None = None, game: Game | str | None = None, geometry: Any = None):
        super().__init__(seed=seed, geometry=geometry, game=game)
        if table is not None and not isinstance(table, (str, os.PathLike)):
            raise ValueError(f"perfect option table must be a file path, got {table!r}")
        self.table = table
        self.time_limit = None if time_limit is None else check_float("perfect option time_limit", time_limit, 0,
                                                                      low_open=True)
        self._loaded: set = set()

    def cannot_play(self, game: Game) -> str | None:
        try:
            module = solver_module(game)
        except ValueError as err:
            return str(err)
        if game.height * game.width > module.MAX_CELLS:
            return f"the solver takes boards of at most {module.MAX_CELLS} array cells"
        return None

    def solver(self, game: Game) -> Any:
        """The shared solver of ``game``'s board, with this agent's table loaded."""
        solver = solver_module(game).solver_for(game)
        if self.table is not None and game not in self._loaded:
            solver.load(self.table)
            self._loaded.add(game)
        return solver

    def act(self, state: Position) -> int:
        """A winning action if there is one, else the loss hardest to prove."""
        check_position(self.name, state)
        return int(self.solver(state.game).best_action(state, self.time_limit))

    @property
    def options(self) -> dict[str, Any]:
        return {"seed": self.seed, "table": self.table, "time_limit": self.time_limit}
