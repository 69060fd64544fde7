"""The YINSH batched engine: B games stepped in lockstep, arrays in and out.

The training-time view of YINSH, with the outputs and conventions of
:class:`odd_env.OddBatch` (:class:`~odd_env.batch.BatchStep`). It runs the
compiled kernels of :class:`~odd_env.core.yinsh.YinshState` and
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

from typing import Any

import numpy as np

from ._args import check_seed
from .batch import BatchStep, OddBatch, _check_rng
from .core import batch_kernels as BK
from .core import yinsh_batch_kernels as YBK
from .core import yinsh_kernels as K
from .core.validation import as_int
from .core.yinsh import NUM_ACTIONS, NUM_PLANES, YinshState, check_state, tables


class YinshBatch:
    """``num_games`` games of YINSH stepped together (see the module docstring)."""

    def __init__(self, num_games: int, blitz: bool = False, as_torch: bool = False):
        """``blitz=True`` plays the one-ring variant in every game."""
        if as_int(num_games) is None or num_games < 1:  # the check OddBatch makes (0-d arrays included)
            raise ValueError(f"num_games must be a positive integer, got {num_games!r}")
        if not isinstance(blitz, (bool, np.bool_)):
            raise ValueError(f"blitz must be True or False, got {blitz!r}")
        if not isinstance(as_torch, (bool, np.bool_)):
            raise ValueError(f"as_torch must be True or False, got {as_torch!r}")
        self.game = "yinsh"
        self.blitz = bool(blitz)
        self.num_games = B = as_int(num_games)
        self.num_actions = NUM_ACTIONS
        t = self._tables = tables()
        self._target = 1 if self.blitz else 3
        self._states = np.zeros((B, K.state_size(t.n)), dtype=np.int32)
        self._obs = np.zeros((B, NUM_PLANES, 11, 11), dtype=np.int8)
        self._final_obs = np.zeros_like(self._obs)
        self._mask = np.zeros((B, NUM_ACTIONS), dtype=np.int8)  # private: legality
        self._mask_out = np.zeros_like(self._mask)  # public copy
        self._reward = np.zeros(B, dtype=np.float32)
        self._terminated = np.zeros(B, dtype=bool)
        self._to_play = np.zeros(B, dtype=np.int8)
        self._final_rewards = np.zeros((B, 2), dtype=np.float32)
        self._actions = np.zeros(B, dtype=np.int64)
        self.as_torch = bool(as_torch)
        arrays = (self._obs, self._mask_out, self._reward, self._terminated, self._to_play,
                  self._final_obs, self._final_rewards)
        if as_torch:
            import torch

            arrays = tuple(torch.from_numpy(a) for a in arrays)
        obs, mask, reward, term, to_play, final_obs, final_rewards = arrays
        info = {"final_obs": final_obs, "final_rewards": final_rewards, "_final_obs": term}
        self._out = BatchStep(obs, mask, reward, term, to_play, info)
        self._flat_obs = self._obs.reshape(B, NUM_PLANES, t.n)
        self._flat_final = self._final_obs.reshape(B, NUM_PLANES, t.n)
        self._has_reset = False

    def reset(self, seed: int | None = None) -> BatchStep:
        """Start every game on an empty board (the rules have no randomness;
        ``seed``, None or a non-negative integer, is accepted for API symmetry and ignored)."""
        check_seed(seed)
        t = self._tables
        YBK.batch_reset(self._states, t.n, t.onboard, self._target, t.rays, t.lines, t.line_dir,
                        t.points, self._flat_obs, self._mask)
        self._reward[:] = 0
        self._terminated[:] = False
        self._to_play[:] = 0
        self._final_rewards[:] = 0
        self._final_obs[:] = 0
        np.copyto(self._mask_out, self._mask)
        self._has_reset = True
        return self._out

    def step(self, actions: Any) -> BatchStep:
        """Play one decision in every game; ValueError naming the game (no game changed) if any is illegal."""
        if not self._has_reset:
            raise RuntimeError("call reset() before step()")
        acts = self._as_actions(actions)
        bad = BK.first_illegal(self._mask, acts)
        if bad >= 0:
            reason = self.game_state(bad).why_illegal(int(acts[bad]))
            raise ValueError(f"illegal action {int(acts[bad])} in game {bad}: {reason}")
        t = self._tables
        YBK.batch_step(self._states, acts, t.n, t.onboard, self._target, t.rays, t.lines, t.line_dir,
                       t.points, self._flat_obs, self._mask, self._reward, self._terminated,
                       self._to_play, self._final_rewards, self._flat_final)
        np.copyto(self._mask_out, self._mask)
        return self._out

    # One check of the actions for both engines (shape, integer dtype, uint64 values reported unwrapped).
    _as_actions = OddBatch._as_actions

    @property
    def last(self) -> BatchStep:
        """The outputs of the latest :meth:`reset` or :meth:`step` (the engine's buffers)."""
        if not self._has_reset:
            raise RuntimeError("call reset() first")
        return self._out

    def get_states(self) -> np.ndarray:
        """A copy of every game's state vector (int32[B, 137]), e.g. for checkpoints."""
        self._check_started("get_states")
        return self._states.copy()

    def set_states(self, states: np.ndarray) -> BatchStep:
        """Continue from states saved by :meth:`get_states`; recompute observations and masks.

        Every row must be a running position of this engine's variant
        (ValueError naming the first that is not; nothing changes then).
        """
        if hasattr(states, "detach"):  # a torch tensor, as OddBatch takes it
            states = states.detach().cpu().numpy()
        states = np.asarray(states)
        if states.shape != self._states.shape or states.dtype != np.int32:
            raise ValueError(f"states must be int32{list(self._states.shape)}, got {states.dtype}{list(states.shape)}")
        t = self._tables
        for b in range(self.num_games):
            problem = check_state(states[b])
            if problem is None and states[b, t.n + K.M_TARGET] != self._target:
                problem = (f"it is a {'blitz' if self._target == 3 else 'standard'} game, but this engine "
                           f"plays {'blitz' if self.blitz else 'the standard game'}")
            if problem is not None:
                raise ValueError(f"states[{b}] is not a running YINSH position: {problem}")
        self._states[:] = states
        for b in range(self.num_games):
            player = int(self._states[b, t.n + K.M_TO_MOVE])
            K.legal_mask_and_observe(self._states[b], t.n, t.rays, t.lines, t.line_dir, t.onboard, t.points,
                                     player, self._mask[b], self._flat_obs[b])
            self._to_play[b] = player
        self._reward[:] = 0
        self._terminated[:] = False
        self._final_rewards[:] = 0
        np.copyto(self._mask_out, self._mask)
        self._has_reset = True
        return self._out

    def game_state(self, index: int) -> YinshState:
        """A copy of game ``index`` (``0..num_games-1``) as a :class:`~odd_env.core.yinsh.YinshState`."""
        self._check_started("game_state")
        return YinshState._trusted(self._states[self._game_index(index)].copy())

    _game_index = OddBatch._game_index
    _check_started = OddBatch._check_started

    def random_actions(self, rng: np.random.Generator) -> np.ndarray:
        """A uniformly random legal action for every game (reproducible under ``rng``, a numpy Generator)."""
        _check_rng(rng)
        self._check_started("random_actions")
        out = np.empty(self.num_games, dtype=np.int64)
        BK.sample_legal(self._mask, rng.random((self.num_games, 5)), out)
        return out

    def __repr__(self) -> str:
        return f"YinshBatch(num_games={self.num_games}{', blitz=True' if self.blitz else ''})"
