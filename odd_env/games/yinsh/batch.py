"""The YINSH batched engine: B games stepped in lockstep, arrays in and out.

The training-time view of YINSH, with the outputs and conventions of
:class:`odd_env.OddBatch` (:class:`~odd_env.game.BatchStep`). It runs the
compiled kernels of :class:`~odd_env.games.yinsh.state.YinshState` and
:mod:`odd_env.yinsh_v0` (one rules implementation) in a single thread::

    engine = YinshBatch(num_games=1024)
    out = engine.reset()
    while training:
        actions = policy(out.observation, out.action_mask)   # int array (B,)
        out = engine.step(actions)

* ``observation``: ``int8[B, 24, 11, 11]`` planes from the side of the player
  who decides next in each game; ``action_mask``: ``int8[B, 485]``;
* ``reward``: ``float32[B]``, from the side of the player who just decided
  (+1/-1 when the decision ended the game with a winner, 0 otherwise and on
  a draw);
* ``terminated``: ``bool[B]``; a finished game starts again at once
  (Gymnasium's same-step autoreset); its final observation (from the side of
  the player whose decision ended it) and both players' rewards
  ``(white, black)`` are kept in ``info["final_obs"]`` and
  ``info["final_rewards"]``, with ``info["_final_obs"]`` the mask of games
  they are valid for;
* ``to_play``: ``int8[B]``, the player who decides next (0 white, 1 black).

One step is one decision (docs/rules/yinsh.md section 3), so consecutive steps of one
game may belong to the same player. The returned arrays are the engine's
buffers, overwritten by the next call: copy what you keep. With
``as_torch=True`` they are torch tensors sharing that memory.
"""

from __future__ import annotations

import numpy as np

from ...common.batch import BatchFrame, check_batch_args
from . import batch_kernels as YBK
from . import kernels as K
from .state import NUM_ACTIONS, NUM_PLANES, YinshState, check_state, tables


class YinshBatch(BatchFrame):
    """``num_games`` games of YINSH stepped together (see the module docstring)."""

    def __init__(self, num_games: int, blitz: bool = False, as_torch: bool = False):
        """``blitz=True`` plays the one-ring variant in every game."""
        check_batch_args(num_games, as_torch)
        if not isinstance(blitz, (bool, np.bool_)):
            raise ValueError(f"blitz must be True or False, got {blitz!r}")
        self.game = "yinsh"
        self.blitz = bool(blitz)
        t = self._tables = tables()
        self._target = 1 if self.blitz else 3
        super().__init__(num_games, as_torch, K.state_size(t.n), (NUM_PLANES, 11, 11), NUM_ACTIONS)

    def _reset_games(self) -> None:
        t = self._tables
        YBK.batch_reset(self._states, t.n, t.onboard, self._target, t.rays, t.lines, t.line_dir,
                        t.points, self._flat_obs, self._mask)

    def _step_games(self, actions: np.ndarray) -> None:
        t = self._tables
        YBK.batch_step(self._states, actions, t.n, t.onboard, self._target, t.rays, t.lines, t.line_dir,
                       t.points, self._flat_obs, self._mask, self._reward, self._terminated,
                       self._to_play, self._final_rewards, self._flat_final)

    def _check_states(self, states: np.ndarray) -> None:
        t = self._tables
        for b in range(self.num_games):
            problem = check_state(states[b])
            if problem is None and states[b, t.n + K.M_TARGET] != self._target:
                problem = (f"it is a {'blitz' if self._target == 3 else 'standard'} game, but this engine "
                           f"plays {'blitz' if self.blitz else 'the standard game'}")
            if problem is not None:
                raise ValueError(f"states[{b}] is not a running YINSH position: {problem}")

    def _observe_game(self, b: int) -> int:
        t = self._tables
        player = int(self._states[b, t.n + K.M_TO_MOVE])
        K.legal_mask_and_observe(self._states[b], t.n, t.rays, t.lines, t.line_dir, t.onboard, t.points,
                                 player, self._mask[b], self._flat_obs[b])
        return player

    def game_state(self, index: int) -> YinshState:
        """A copy of game ``index`` (``0..num_games-1``) as a :class:`~odd_env.games.yinsh.state.YinshState`."""
        self._check_started("game_state")
        return YinshState._trusted(self._states[self._game_index(index)].copy())

    def __repr__(self) -> str:
        return f"YinshBatch(num_games={self.num_games}{', blitz=True' if self.blitz else ''})"
