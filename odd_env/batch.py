"""A batched engine: B games of one game and size stepped in lockstep.

The engine is the training-time view of the rules: no agent names, no dicts,
only arrays. It runs the same compiled kernels as :class:`~odd_env.core.GameState`
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

from typing import Any, NamedTuple

import numpy as np

from .core import batch_kernels as BK
from .core import kernels as K
from .core.geometry import Geometry, geometry as make_geometry
from .core.state import NUM_PLANES, GameState
from ._args import check_seed
from .core.validation import as_int, check_states



def _check_rng(rng: Any) -> None:
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy Generator (np.random.default_rng(seed)), got {rng!r}")

class BatchStep(NamedTuple):
    """The outputs of :meth:`OddBatch.reset` and :meth:`OddBatch.step` (engine buffers)."""

    observation: Any
    action_mask: Any
    reward: Any
    terminated: Any
    to_play: Any
    info: dict


class OddBatch:
    """``num_games`` games of Xodd or Yodd stepped together (see the module docstring)."""

    def __init__(self, game: str, board_size: int, num_games: int, as_torch: bool = False):
        """``game`` is "xodd" or "yodd"; ``board_size`` as in the AEC envs; ``as_torch`` a bool."""
        if as_int(num_games) is None or num_games < 1:
            raise ValueError(f"num_games must be a positive integer, got {num_games!r}")
        if not isinstance(as_torch, (bool, np.bool_)):
            raise ValueError(f"as_torch must be True or False, got {as_torch!r}")
        self.geometry: Geometry = make_geometry(game, board_size)
        g = self.geometry
        self.game = g.game
        self.board_size = g.size
        self.num_games = B = int(num_games)
        n = g.num_cells
        self.num_actions = g.num_actions
        self._states = np.zeros((B, K.state_size(n)), dtype=np.int32)
        self._obs = np.zeros((B, NUM_PLANES, g.height, g.width), dtype=np.int8)
        self._final_obs = np.zeros_like(self._obs)
        self._mask = np.zeros((B, g.num_actions), dtype=np.int8)  # private: legality
        self._keep = np.zeros((B, 2, n), dtype=np.int8)
        self._mask_out = np.zeros_like(self._mask)  # public copy
        self._reward = np.zeros(B, dtype=np.float32)
        self._terminated = np.zeros(B, dtype=bool)
        self._to_play = np.zeros(B, dtype=np.int8)
        self._final_rewards = np.zeros((B, 2), dtype=np.float32)
        self._actions = np.zeros(B, dtype=np.int64)
        self.as_torch = as_torch = bool(as_torch)
        arrays = (self._obs, self._mask_out, self._reward, self._terminated, self._to_play,
                  self._final_obs, self._final_rewards)
        if as_torch:
            import torch

            arrays = tuple(torch.from_numpy(a) for a in arrays)
        obs, mask, reward, term, to_play, final_obs, final_rewards = arrays
        info = {"final_obs": final_obs, "final_rewards": final_rewards, "_final_obs": term}
        self._out = BatchStep(obs, mask, reward, term, to_play, info)
        self._flat_obs = self._obs.reshape(B, NUM_PLANES, n)
        self._flat_final = self._final_obs.reshape(B, NUM_PLANES, n)
        self._has_reset = False

    def reset(self, seed: int | None = None) -> BatchStep:
        """Start every game on an empty board (the rules have no randomness;
        ``seed``, None or a non-negative integer, is accepted for API symmetry and ignored)."""
        check_seed(seed)
        g = self.geometry
        BK.batch_reset(self._states, g.num_cells, g.neighbours, g.onboard,
                       self._flat_obs, self._mask, self._keep)
        self._reward[:] = 0
        self._terminated[:] = False
        self._to_play[:] = 0
        self._final_rewards[:] = 0
        self._final_obs[:] = 0
        np.copyto(self._mask_out, self._mask)
        self._has_reset = True
        return self._out

    def step(self, actions: Any) -> BatchStep:
        """Play one action in every game; ValueError (no game changed) if any is illegal."""
        if not self._has_reset:
            raise RuntimeError("call reset() before step()")
        acts = self._as_actions(actions)
        bad = BK.first_illegal(self._mask, acts)
        if bad >= 0:
            state = self.game_state(bad)
            reason = state.why_illegal(int(acts[bad]))
            raise ValueError(f"illegal action {int(acts[bad])} in game {bad}: {reason}")
        g = self.geometry
        BK.batch_step(self._states, acts, g.num_cells, g.neighbours, g.onboard,
                      self._flat_obs, self._mask, self._keep, self._reward, self._terminated,
                      self._to_play, self._final_rewards, self._flat_final)
        np.copyto(self._mask_out, self._mask)
        return self._out

    def _as_actions(self, actions: Any) -> np.ndarray:
        if hasattr(actions, "detach"):  # a torch tensor
            actions = actions.detach().cpu().numpy()
        arr = np.asarray(actions)
        if arr.shape != (self.num_games,):
            raise ValueError(f"actions must have shape ({self.num_games},), got {arr.shape}")
        kind = arr.dtype.kind
        if kind not in "iu":
            raise ValueError(f"actions must be integers, got dtype {arr.dtype}")
        if kind == "u" and arr.itemsize == 8:  # uint64: the one integer dtype whose values wrap in int64
            big = np.flatnonzero(arr >= self.num_actions)
            if len(big):
                b = int(big[0])
                raise ValueError(f"illegal action {int(arr[b])} in game {b}: {self.game_state(b).why_illegal(int(arr[b]))}")
        np.copyto(self._actions, arr, casting="unsafe")
        return self._actions

    @property
    def last(self) -> BatchStep:
        """The outputs of the latest :meth:`reset` or :meth:`step` (the engine's buffers)."""
        if not self._has_reset:
            raise RuntimeError("call reset() first")
        return self._out

    def get_states(self) -> np.ndarray:
        """A copy of every game's state vector (int32[B, state_size]), e.g. for checkpoints."""
        self._check_started("get_states")
        return self._states.copy()

    def set_states(self, states: np.ndarray) -> BatchStep:
        """Continue from states saved by :meth:`get_states`; recompute observations and masks.

        Every row must be a running game the rules can reach
        (:func:`~odd_env.core.validation.check_states`); otherwise ValueError
        naming the game and what is wrong, and no game changes.
        """
        if hasattr(states, "detach"):  # a torch tensor
            states = states.detach().cpu().numpy()
        states = np.asarray(states)
        if states.shape != self._states.shape or states.dtype != np.int32:
            raise ValueError(f"states must be int32{list(self._states.shape)}, got {states.dtype}{list(states.shape)}")
        g = self.geometry
        n = g.num_cells
        check_states(g, states, running_only=True)
        self._states[:] = states
        for b in range(self.num_games):
            player = int(self._states[b, 2 * n + K.M_TO_MOVE])
            K.legal_mask_and_observe(self._states[b], n, g.neighbours, g.onboard, player,
                                     self._mask[b], self._keep[b], self._flat_obs[b])
            self._to_play[b] = player
        self._reward[:] = 0
        self._terminated[:] = False
        self._final_rewards[:] = 0
        np.copyto(self._mask_out, self._mask)
        self._has_reset = True
        return self._out

    def game_state(self, index: int) -> GameState:
        """A copy of game ``index`` (``0..num_games-1``) as a :class:`~odd_env.core.GameState`."""
        self._check_started("game_state")
        return GameState._trusted(self.geometry, self._states[self._game_index(index)].copy())

    def _check_started(self, what: str) -> None:
        """RuntimeError unless a reset (or set_states) gave the games a position: before it, the
        buffers hold no game at all."""
        if not self._has_reset:
            raise RuntimeError(f"call reset() (or set_states()) before {what}(): there are no games yet")

    def _game_index(self, index: Any) -> int:
        """``index`` as an int in ``0..num_games-1`` (no negative indexing); ValueError otherwise."""
        i = as_int(index)
        if i is None or not 0 <= i < self.num_games:
            raise ValueError(f"game index must be an integer 0..{self.num_games - 1}, got {index!r}")
        return i

    def random_actions(self, rng: np.random.Generator) -> np.ndarray:
        """A uniformly random legal action for every game (reproducible under ``rng``, a numpy Generator)."""
        _check_rng(rng)
        self._check_started("random_actions")
        out = np.empty(self.num_games, dtype=np.int64)
        BK.sample_legal(self._mask, rng.random((self.num_games, 5)), out)
        return out

    def __repr__(self) -> str:
        return f"OddBatch({self.game!r}, {self.board_size}, num_games={self.num_games})"
