"""The batched-engine frame every game shares: buffers, argument checks and the outputs.

A game's engine (:class:`odd_env.OddBatch`, :class:`odd_env.YinshBatch`)
subclasses :class:`BatchFrame` and supplies four things: the compiled reset
and step of all its games (:meth:`BatchFrame._reset_games`,
:meth:`BatchFrame._step_games`), the check of saved states
(:meth:`BatchFrame._check_states`), and the observation and mask of one game
(:meth:`BatchFrame._observe_game`), plus :meth:`BatchFrame.game_state`. The
frame owns the output buffers, checks actions, reports illegal ones and
samples random legal actions, the same way for every game (the conventions
of :class:`odd_env.game.BatchEngine`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from .._compiling import njit

from .._args import check_seed
from ..game import BatchStep
from .validation import as_int


def check_rng(rng: Any) -> None:
    """ValueError unless ``rng`` is a numpy Generator."""
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy Generator (np.random.default_rng(seed)), got {rng!r}")


def check_batch_args(num_games: Any, as_torch: Any) -> int:
    """``num_games`` as an int >= 1 (0-d integer arrays too) after checking ``as_torch`` is a bool;
    ValueError otherwise."""
    if as_int(num_games) is None or num_games < 1:
        raise ValueError(f"num_games must be a positive integer, got {num_games!r}")
    if not isinstance(as_torch, (bool, np.bool_)):
        raise ValueError(f"as_torch must be True or False, got {as_torch!r}")
    return as_int(num_games)


class BatchFrame:
    """Buffers and checks of ``num_games`` games stepped in lockstep (see the module docstring)."""

    def __init__(self, num_games: int, as_torch: bool, state_size: int, observation_shape: tuple[int, int, int],
                 num_actions: int, observations: bool = True, private_mask: bool = True):
        """Buffers of ``num_games`` games. ``observations=False`` is a bare engine (masks only:
        ``observation`` is None and ``info`` holds ``final_rewards`` alone). ``private_mask=False``
        for an engine whose kernels keep legality elsewhere and write the public mask directly."""
        self.num_games = B = check_batch_args(num_games, as_torch)
        if not isinstance(observations, (bool, np.bool_)):
            raise ValueError(f"observations must be True or False, got {observations!r}")
        self.observations = bool(observations)
        self.num_actions = num_actions
        c, h, w = observation_shape
        obs_games = B if self.observations else 1  # bare: placeholders the kernels never touch
        self._states = np.zeros((B, state_size), dtype=np.int32)
        self._obs = np.zeros((obs_games, c, h, w), dtype=np.int8)
        self._final_obs = np.zeros_like(self._obs)
        self._mask_out = np.zeros((B, num_actions), dtype=np.int8)  # public
        self._mask = np.zeros_like(self._mask_out) if private_mask else self._mask_out  # legality
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
        if self.observations:
            info = {"final_obs": final_obs, "final_rewards": final_rewards, "_final_obs": term}
        else:
            obs, info = None, {"final_rewards": final_rewards}
        self._out = BatchStep(obs, mask, reward, term, to_play, info)
        self._flat_obs = self._obs.reshape(obs_games, c, h * w)
        self._flat_final = self._final_obs.reshape(obs_games, c, h * w)
        self._has_reset = False

    # ------------------------------------------------------------ what a game supplies
    def _reset_games(self) -> None:
        """Start every game: states, first observations and masks (compiled)."""
        raise NotImplementedError

    def _step_games(self, actions: np.ndarray) -> None:
        """Play the checked ``actions`` and fill every output buffer (compiled)."""
        raise NotImplementedError

    def _check_states(self, states: np.ndarray) -> None:
        """ValueError naming the first row of ``states`` that is not a running game of this engine."""
        raise NotImplementedError

    def _observe_game(self, b: int) -> int:
        """Write game ``b``'s observation and mask for its player to act; return that player."""
        raise NotImplementedError

    def _refresh_games(self) -> None:
        """Observations, masks and players to act of every game, from the states (after set_states)."""
        for b in range(self.num_games):
            self._to_play[b] = self._observe_game(b)

    def _play(self, actions: np.ndarray) -> int:
        """Play ``actions`` in every game if all are legal and return -1; else return the first game
        whose action is illegal, with no game changed."""
        bad = first_illegal(self._mask, actions)
        if bad < 0:
            self._step_games(actions)
        return bad

    def game_state(self, index: int) -> Any:
        """A copy of game ``index`` (``0..num_games-1``) as a position of the game."""
        raise NotImplementedError

    # ------------------------------------------------------------ the engine
    def reset(self, seed: int | None = None) -> BatchStep:
        """Start every game anew (the rules have no randomness; ``seed``, None or a
        non-negative integer, is accepted for API symmetry and ignored)."""
        check_seed(seed)
        self._reset_games()
        self._final_obs[:] = 0
        self._to_play[:] = 0
        self._start()
        return self._out

    def step(self, actions: Any) -> BatchStep:
        """Play one action in every game; ValueError naming the game (no game changed) if any is illegal."""
        if not self._has_reset:
            raise RuntimeError("call reset() before step()")
        acts = self._as_actions(actions)
        bad = self._play(acts)
        if bad >= 0:
            self._illegal(bad, int(acts[bad]))
        if self._mask is not self._mask_out:
            np.copyto(self._mask_out, self._mask)
        return self._out

    def _start(self) -> None:
        """The outputs of a fresh start (reset or set_states): no rewards, nothing ended."""
        self._reward[:] = 0
        self._terminated[:] = False
        self._final_rewards[:] = 0
        if self._mask is not self._mask_out:
            np.copyto(self._mask_out, self._mask)
        self._has_reset = True

    def _illegal(self, b: int, action: int) -> None:
        raise ValueError(f"illegal action {action} in game {b}: {self.game_state(b).why_illegal(action)}")

    def _as_actions(self, actions: Any) -> np.ndarray:
        """``actions`` as the engine's int64[B] buffer: shape and integer dtype checked, uint64 values
        that would wrap reported unwrapped."""
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
                self._illegal(int(big[0]), int(arr[big[0]]))
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

        Every row must be a running game the rules can reach; otherwise ValueError naming the
        game and what is wrong, and no game changes.
        """
        if hasattr(states, "detach"):  # a torch tensor
            states = states.detach().cpu().numpy()
        states = np.asarray(states)
        if states.shape != self._states.shape or states.dtype != np.int32:
            raise ValueError(f"states must be int32{list(self._states.shape)}, got {states.dtype}{list(states.shape)}")
        self._check_states(states)
        self._states[:] = states
        self._refresh_games()
        self._start()
        return self._out

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
        check_rng(rng)
        self._check_started("random_actions")
        out = np.empty(self.num_games, dtype=np.int64)
        sample_legal(self._mask, rng.random((self.num_games, 5)), out)
        return out


@njit(cache=True)
def first_illegal(mask, actions):
    """Index of the first game whose action is not legal in ``mask``, or -1."""
    width = mask.shape[1]
    for b in range(actions.shape[0]):
        a = actions[b]
        if a < 0 or a >= width or mask[b, a] == 0:
            return b
    return -1



@njit(cache=True)
def sample_legal(mask, uniform, out):
    """A uniformly random legal action per row of ``mask``, from ``uniform`` (float[B, K]).

    Rejection sampling with the first K-1 numbers (a random action kept if
    legal), then the legal action of rank ``floor(u * count)``; both stages
    are uniform over the legal actions, so their mixture is too.
    """
    width = mask.shape[1]
    tries = uniform.shape[1] - 1
    for b in range(mask.shape[0]):
        out[b] = -1
        for t in range(tries):
            a = int(uniform[b, t] * width)
            if a < width and mask[b, a]:
                out[b] = a
                break
        if out[b] >= 0:
            continue
        count = 0
        for a in range(width):
            count += mask[b, a]
        target = min(int(uniform[b, tries] * count), count - 1)
        for a in range(width):
            if mask[b, a]:
                if target == 0:
                    out[b] = a
                    break
                target -= 1


class PositionBatch(BatchFrame):
    """``num_games`` games of any game of :mod:`odd_env.game`, stepped in lockstep through the
    :class:`~odd_env.game.Position` interface in plain Python: the batched engine of a game that
    has no compiled one (the conventions of :class:`odd_env.game.BatchEngine`).

    Its saved states (:meth:`get_states`) are the games' actions since their start, ``int32[B, L]``
    padded with -1; :meth:`set_states` replays them, so an illegal history is refused.
    """

    def __init__(self, game: Any, num_games: int, as_torch: bool = False):
        check_batch_args(num_games, as_torch)
        self.game = game
        super().__init__(num_games, as_torch, 0, game.observation_shape, game.num_actions)
        self._positions = [game.new_state() for _ in range(self.num_games)]
        self._histories: list[list[int]] = [[] for _ in range(self.num_games)]

    def _reset_games(self) -> None:
        for b in range(self.num_games):
            self._positions[b] = self.game.new_state()
            self._histories[b] = []
            self._observe_game(b)

    def _step_games(self, actions: np.ndarray) -> None:
        for b in range(self.num_games):
            position, action = self._positions[b], int(actions[b])
            actor = position.to_move
            position.apply(action)
            self._histories[b].append(action)
            if position.is_terminal:
                returns = position.returns()
                self._reward[b], self._terminated[b] = returns[actor], True
                self._final_rewards[b] = returns
                position.observation(actor, out=self._final_obs[b])
                self._positions[b], self._histories[b] = self.game.new_state(), []
            else:
                self._reward[b], self._terminated[b] = 0.0, False
                self._final_rewards[b] = 0.0
            self._to_play[b] = self._observe_game(b)

    def _observe_game(self, b: int) -> int:
        position = self._positions[b]
        self._mask[b] = position.legal_action_mask()
        position.observation(position.to_move, out=self._obs[b])
        return position.to_move

    def game_state(self, index: int) -> Any:
        """A copy of game ``index`` (``0..num_games-1``)."""
        self._check_started("game_state")
        return self._positions[self._game_index(index)].copy()

    def get_states(self) -> np.ndarray:
        """The actions of every game since its start, int32[B, L] padded with -1."""
        self._check_started("get_states")
        width = max(1, max(len(h) for h in self._histories))
        out = np.full((self.num_games, width), -1, dtype=np.int32)
        for b, history in enumerate(self._histories):
            out[b, :len(history)] = history
        return out

    def set_states(self, states: np.ndarray) -> BatchStep:
        """Continue from histories saved by :meth:`get_states` (replayed: ValueError naming the game
        if one is illegal or ends the game; no game changes then)."""
        states = np.asarray(states)
        if states.ndim != 2 or states.shape[0] != self.num_games or states.dtype.kind not in "iu":
            raise ValueError(f"states must be int32[{self.num_games}, L] action histories, got "
                             f"{states.dtype}{list(states.shape)}")
        positions, histories = [], []
        for b, row in enumerate(states):
            history = [int(a) for a in row if a >= 0]
            position = self.game.new_state()
            for a in history:
                reason = position.why_illegal(a)
                if reason is not None:
                    raise ValueError(f"states[{b}] is not a running game: action {a}: {reason}")
                position.apply(a)
            if position.is_terminal:
                raise ValueError(f"states[{b}] is a finished game; a batch holds running games")
            positions.append(position)
            histories.append(history)
        self._positions, self._histories = positions, histories
        for b in range(self.num_games):
            self._to_play[b] = self._observe_game(b)
        self._start()
        return self._out
