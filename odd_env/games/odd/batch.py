"""A batched engine: B games of one game and size stepped in lockstep.

The engine is the training-time view of the rules: no agent names, no dicts,
only arrays. It runs the same compiled kernels as :class:`~odd_env.games.odd.state.GameState`
and the AEC environments (one rules implementation), compiled with Numba in
a single thread (leaving the other cores to the learner), and writes every
output into arrays allocated once::

    engine = OddBatch("xodd", 11, num_games=1024)
    out = engine.reset()
    while training:
        actions = policy(out.observation, out.action_mask)   # int array (B,)
        out = engine.step(actions)

Conventions (the same as the AEC envs, docs/rules/xodd_yodd.md sections 3 to 7):

* ``observation``: ``int8[B, C, H, W]`` planes from the side of the player to
  act next in each game; ``action_mask``: ``int8[B, 2*H*W + 1]``;
* ``reward``: ``float32[B]``, from the side of the player who just acted
  (+1/-1 when its step ended the game, else 0);
* ``terminated``: ``bool[B]``; a finished game is reset at once (Gymnasium's
  same-step autoreset), its final observation (from the side of the player
  who ended it) and both players' rewards ``(black, white)`` are kept in
  ``info["final_obs"]`` and ``info["final_rewards"]``, with ``info["_final_obs"]``
  the mask of games they are valid for;
* ``to_play``: ``int8[B]``, the player to act next (0 black, 1 white).

The returned arrays are the engine's buffers, overwritten by the next call:
copy what you keep. With ``as_torch=True`` they are torch tensors sharing
that memory (``torch.from_numpy``, no copies).
"""

from __future__ import annotations

import numpy as np

from ...common.batch import BatchFrame, check_batch_args
from ...common.geometry import Geometry, geometry as make_geometry
from . import batch_kernels as BK
from . import kernels as K
from .state import NUM_PLANES, GameState
from .validation import check_states


class OddBatch(BatchFrame):
    """``num_games`` games of Xodd or Yodd stepped together (see the module docstring)."""

    def __init__(self, game: str, board_size: int, num_games: int, as_torch: bool = False):
        """``game`` is "xodd" or "yodd"; ``board_size`` as in the AEC envs; ``as_torch`` a bool."""
        check_batch_args(num_games, as_torch)  # before the board, as the arguments come
        self.geometry: Geometry = make_geometry(game, board_size)
        g = self.geometry
        self.game = g.game
        self.board_size = g.size
        super().__init__(num_games, as_torch, K.state_size(g.num_cells), (NUM_PLANES, g.height, g.width),
                         g.num_actions)
        self._keep = np.zeros((self.num_games, 2, g.num_cells), dtype=np.int8)

    def _reset_games(self) -> None:
        g = self.geometry
        BK.batch_reset(self._states, g.num_cells, g.neighbours, g.onboard, self._flat_obs, self._mask, self._keep)

    def _step_games(self, actions: np.ndarray) -> None:
        g = self.geometry
        BK.batch_step(self._states, actions, g.num_cells, g.neighbours, g.onboard,
                      self._flat_obs, self._mask, self._keep, self._reward, self._terminated,
                      self._to_play, self._final_rewards, self._flat_final)

    def _check_states(self, states: np.ndarray) -> None:
        check_states(self.geometry, states, running_only=True)

    def _observe_game(self, b: int) -> int:
        g = self.geometry
        n = g.num_cells
        player = int(self._states[b, 2 * n + K.M_TO_MOVE])
        K.legal_mask_and_observe(self._states[b], n, g.neighbours, g.onboard, player,
                                 self._mask[b], self._keep[b], self._flat_obs[b])
        return player

    def game_state(self, index: int) -> GameState:
        """A copy of game ``index`` (``0..num_games-1``) as a :class:`~odd_env.games.odd.state.GameState`."""
        self._check_started("game_state")
        return GameState._trusted(self.geometry, self._states[self._game_index(index)].copy())

    def __repr__(self) -> str:
        return f"OddBatch({self.game!r}, {self.board_size}, num_games={self.num_games})"
