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

from typing import Any

import numpy as np

from ._args import check_seed
from .batch import BatchStep, OddBatch, _check_rng
from .core import yinsh_batch_kernels as YBK
from .core import yinsh_kernels as K
from .core.validation import as_int
from .core.yinsh import NUM_ACTIONS, NUM_PLANES, YinshState, check_state, tables


class YinshBatch:
    """``num_games`` games of YINSH stepped together (see the module docstring)."""

    def __init__(self, num_games: int, blitz: bool = False, as_torch: bool = False, observations: bool = True):
        """``blitz=True`` plays the one-ring variant in every game; ``observations=False`` is the
        bare mode (masks only, no observation planes)."""
        if as_int(num_games) is None or num_games < 1:  # the check OddBatch makes (0-d arrays included)
            raise ValueError(f"num_games must be a positive integer, got {num_games!r}")
        if not isinstance(blitz, (bool, np.bool_)):
            raise ValueError(f"blitz must be True or False, got {blitz!r}")
        if not isinstance(as_torch, (bool, np.bool_)):
            raise ValueError(f"as_torch must be True or False, got {as_torch!r}")
        if not isinstance(observations, (bool, np.bool_)):
            raise ValueError(f"observations must be True or False, got {observations!r}")
        self.observations = bool(observations)
        self.game = "yinsh"
        self.blitz = bool(blitz)
        self.num_games = B = as_int(num_games)
        self.num_actions = NUM_ACTIONS
        t = self._tables = tables()
        self._target = 1 if self.blitz else 3
        self._states = np.zeros((B, K.state_size(t.n)), dtype=np.int32)
        obs_games = B if self.observations else 1  # bare: placeholders the kernels never touch
        self._obs = np.zeros((obs_games, NUM_PLANES, 11, 11), dtype=np.int8)
        self._final_obs = np.zeros_like(self._obs)
        self._mask_out = np.zeros((B, NUM_ACTIONS), dtype=np.int8)  # public
        self._legal = np.zeros((B, K.MAX_LEGAL), dtype=np.int16)  # private: legality, sampling
        self._count = np.zeros(B, dtype=np.int32)
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
        if self.observations:
            info = {"final_obs": final_obs, "final_rewards": final_rewards, "_final_obs": term}
        else:
            obs, info = None, {"final_rewards": final_rewards}
        self._out = BatchStep(obs, mask, reward, term, to_play, info)
        self._flat_obs = self._obs.reshape(obs_games, NUM_PLANES, t.n)
        self._flat_final = self._final_obs.reshape(obs_games, NUM_PLANES, t.n)
        self._has_reset = False

    def reset(self, seed: int | None = None) -> BatchStep:
        """Start every game on an empty board (the rules have no randomness;
        ``seed``, None or a non-negative integer, is accepted for API symmetry and ignored)."""
        check_seed(seed)
        YBK.reset_games(self._states, self._target, self._flat_obs, self._mask_out, self._legal, self._count,
                        self.observations)
        self._reward[:] = 0
        self._terminated[:] = False
        self._to_play[:] = 0
        self._final_rewards[:] = 0
        self._final_obs[:] = 0
        self._has_reset = True
        return self._out

    def step(self, actions: Any) -> BatchStep:
        """Play one decision in every game; ValueError naming the game (no game changed) if any is illegal."""
        if not self._has_reset:
            raise RuntimeError("call reset() before step()")
        acts = self._as_actions(actions)
        bad = YBK.step_games(self._states, acts, self._target, self._flat_obs, self._mask_out, self._legal,
                             self._count, self._reward, self._terminated, self._to_play, self._final_rewards,
                             self._flat_final, self.observations)  # checks every action before playing any
        if bad >= 0:
            reason = self.game_state(bad).why_illegal(int(acts[bad]))
            raise ValueError(f"illegal action {int(acts[bad])} in game {bad}: {reason}")
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
        """A copy of every game's state vector (int32[B, 147]: the layout of odd_env.core.yinsh_kernels), e.g. for checkpoints."""
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
        YBK.refresh_games(self._states, self._flat_obs, self._mask_out, self._legal, self._count, self._to_play,
                          self.observations)
        self._reward[:] = 0
        self._terminated[:] = False
        self._final_rewards[:] = 0
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
        YBK.sample_legal_listed(self._legal, self._count, np.uint64(rng.bit_generator.random_raw()), out)  # one 64-bit draw
        return out

    def __repr__(self) -> str:
        return (f"YinshBatch(num_games={self.num_games}{', blitz=True' if self.blitz else ''}"
                f"{'' if self.observations else ', observations=False'})")
