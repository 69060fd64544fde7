"""The YINSH batched engine: B games stepped in lockstep, arrays in and out.

The training-time view of YINSH, with the outputs and conventions of
:class:`odd_env.OddBatch` (:class:`~odd_env.games.odd.batch.BatchStep`). It runs the
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

``YinshBatch(n, observations=False)`` is the bare mode, for rollouts and
search that need no network input: the same rules and outputs but no
observation planes (``observation`` is None and ``info`` holds only
``final_rewards``), about twice as fast.

One step is one decision (docs/rules/yinsh.md section 3), so consecutive steps of one
game may belong to the same player. The returned arrays are the engine's
buffers, overwritten by the next call: copy what you keep. With
``as_torch=True`` they are torch tensors sharing that memory.
"""

from __future__ import annotations

import numpy as np

from ...common.batch import BatchFrame, check_batch_args, check_rng
from . import batch_kernels as YBK
from . import kernels as K
from .state import NUM_ACTIONS, NUM_PLANES, YinshState, check_state


class YinshBatch(BatchFrame):
    """``num_games`` games of YINSH stepped together (see the module docstring)."""

    def __init__(self, num_games: int, blitz: bool = False, as_torch: bool = False, observations: bool = True):
        """``blitz=True`` plays the one-ring variant in every game; ``observations=False`` is the
        bare mode (masks only, no observation planes)."""
        check_batch_args(num_games, as_torch)
        if not isinstance(blitz, (bool, np.bool_)):
            raise ValueError(f"blitz must be True or False, got {blitz!r}")
        self.game = "yinsh"
        self.blitz = bool(blitz)
        self._target = 1 if self.blitz else 3
        # The kernels keep each game's legal actions as a list (legality and sampling) and write
        # the public mask directly: a user writing into it cannot change what is legal.
        super().__init__(num_games, as_torch, K.state_size(K.N), (NUM_PLANES, 11, 11), NUM_ACTIONS,
                         observations=observations, private_mask=False)
        self._legal = np.zeros((self.num_games, K.MAX_LEGAL), dtype=np.int16)
        self._count = np.zeros(self.num_games, dtype=np.int32)

    def _reset_games(self) -> None:
        YBK.reset_games(self._states, self._target, self._flat_obs, self._mask_out, self._legal, self._count,
                        self.observations)

    def _play(self, actions: np.ndarray) -> int:
        return YBK.step_games(self._states, actions, self._target, self._flat_obs, self._mask_out, self._legal,
                              self._count, self._reward, self._terminated, self._to_play, self._final_rewards,
                              self._flat_final, self.observations)  # checks every action before playing any

    def _check_states(self, states: np.ndarray) -> None:
        for b in range(self.num_games):
            problem = check_state(states[b])
            if problem is None and states[b, K.N + K.M_TARGET] != self._target:
                problem = (f"it is a {'blitz' if self._target == 3 else 'standard'} game, but this engine "
                           f"plays {'blitz' if self.blitz else 'the standard game'}")
            if problem is not None:
                raise ValueError(f"states[{b}] is not a running YINSH position: {problem}")

    def _refresh_games(self) -> None:
        YBK.refresh_games(self._states, self._flat_obs, self._mask_out, self._legal, self._count, self._to_play,
                          self.observations)

    def game_state(self, index: int) -> YinshState:
        """A copy of game ``index`` (``0..num_games-1``) as a :class:`~odd_env.games.yinsh.state.YinshState`."""
        self._check_started("game_state")
        return YinshState._trusted(self._states[self._game_index(index)].copy())

    def random_actions(self, rng: np.random.Generator) -> np.ndarray:
        """A uniformly random legal action for every game (reproducible under ``rng``, a numpy Generator:
        one 64-bit draw of it seeds the compiled sampler)."""
        check_rng(rng)
        self._check_started("random_actions")
        out = np.empty(self.num_games, dtype=np.int64)
        YBK.sample_legal_listed(self._legal, self._count, np.uint64(rng.bit_generator.random_raw()), out)
        return out

    def __repr__(self) -> str:
        return (f"YinshBatch(num_games={self.num_games}{', blitz=True' if self.blitz else ''}"
                f"{'' if self.observations else ', observations=False'})")
