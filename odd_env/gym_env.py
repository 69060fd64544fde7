"""Xodd and Yodd as single-agent Gymnasium environments against a fixed opponent.

::

    import gymnasium, numpy as np, odd_env
    env = gymnasium.make("odd_env/Xodd-v0", board_size=9, opponent="greedy", play_as="random")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))

* the learner plays one colour: ``play_as`` is "black", "white" or "random"
  (drawn per episode from the env's seeded generator);
* the opponent is a name understood by :func:`agents.load` ("random",
  "greedy", "mcts", "ppo", or a spec like "mcts:simulations=200"), an
  :class:`agents.Agent`, or any callable ``(observation, action_mask) -> action``
  receiving the planes from its own side; its steps are played inside
  :meth:`OddGymEnv.step` (and in :meth:`OddGymEnv.reset` when the learner is White);
  a trained network ("ppo:pretrained=xodd9", "mcts:network=...") must be of the
  env's game and board size, else making the env raises ``ValueError``;
* observation: the ``int8[C, H, W]`` planes of the AEC envs from the
  learner's side; actions: the same relative ``Discrete(2*H*W + 1)``;
* the action mask comes from :meth:`OddGymEnv.action_masks` (sb3-contrib's
  convention) and ``info["action_mask"]``;
* reward: +1 / -1 from the learner's side when the game ends, else 0.

A learner action that is not in the action space (wrong type, out of
range) raises ``ValueError``. A masked action, with the default
``illegal_action="lose"``, ends the episode with reward -1 and the position
unchanged, ``info["illegal_action"]`` saying why: PettingZoo classic's
``env()`` convention, which Gymnasium's ``check_env`` and algorithms without
masking (they step unmasked samples) rely on. With ``illegal_action="raise"``
it raises ``ValueError`` instead, and nothing changes.

An opponent that fails (an illegal action, or any exception) raises from
:meth:`OddGymEnv.step` with the learner's step undone, the env as it was
before the call; one that fails in :meth:`OddGymEnv.reset` leaves the env
refusing ``step()`` until a reset finishes.
"""

from __future__ import annotations

from typing import Any, Callable

import gymnasium
import numpy as np
from gymnasium import spaces

from ._args import check_options, check_seed
from .common.geometry import geometry as make_geometry
from .games.odd.state import COLOUR_NAMES, NUM_PLANES, OBSERVATION_VERSION, GameState
from .common.validation import as_int
from .games.odd.render import to_rgb, to_text

Opponent = Callable[[np.ndarray, np.ndarray], int]


class OddGymEnv(gymnasium.Env):
    """One side of Xodd or Yodd against a fixed opponent (see the module docstring)."""

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 2}

    def __init__(
        self,
        game: str = "xodd",
        board_size: int | None = None,
        opponent: str | Opponent | Any = "random",
        play_as: str = "random",
        render_mode: str | None = None,
        illegal_action: str = "lose",
    ):
        """``game`` "xodd" or "yodd"; ``board_size`` defaults to 9 (Xodd) / 6 (Yodd)."""
        if play_as not in ("black", "white", "random"):
            raise ValueError(f"play_as must be 'black', 'white' or 'random', got {play_as!r}")
        if illegal_action not in ("lose", "raise"):
            raise ValueError(f"illegal_action must be 'lose' or 'raise', got {illegal_action!r}")
        self.illegal_action = illegal_action
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        size = board_size if board_size is not None else (9 if game == "xodd" else 6)
        self.geometry = make_geometry(game, size)
        g = self.geometry
        self.game, self.board_size = g.game, g.size
        self.play_as = play_as
        self.render_mode = render_mode
        self.observation_version = OBSERVATION_VERSION
        self.observation_space = spaces.Box(0, 1, (NUM_PLANES, g.height, g.width), dtype=np.int8)
        self.action_space = spaces.Discrete(g.num_actions)
        self.opponent = self._make_opponent(opponent)
        own = getattr(self.opponent, "game", None)  # a trained network's game and board
        if own is not None and (own.name, own.size) != (g.game, g.size):
            label = opponent if isinstance(opponent, str) else getattr(self.opponent, "label", repr(self.opponent))
            raise ValueError(f"the opponent {label!r} plays {own.label}, not {g.game} {g.size}: "
                             f"pick a network for {g.game} {g.size} or an untrained player (random, greedy, mcts)")
        self.state = GameState(g)
        self.learner = 0
        self._forfeit: str | None = None
        self._broken: str | None = "reset() was not called yet"  # why step() must wait for a reset

    @staticmethod
    def _make_opponent(opponent: Any) -> Any:
        if isinstance(opponent, str):
            import agents  # the reference players ship in the same distribution

            return agents.load(opponent)
        if not callable(opponent) and not callable(getattr(opponent, "act", None)):
            raise ValueError(
                "opponent must be an agent name (e.g. 'random', 'greedy'), an agents.Agent, "
                f"or a callable (observation, action_mask) -> action; got {opponent!r}"
            )
        return opponent

    # ------------------------------------------------------------------ API
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """New game; the opponent opens when the learner is White.

        ``seed``: None or a non-negative integer scalar (NumPy integers
        included); ``options``: None or a dict (no keys are used yet).
        """
        seed = check_seed(seed)
        check_options(options)
        super().reset(seed=seed)
        if seed is not None and hasattr(self.opponent, "reset"):
            self.opponent.reset(seed=int(self.np_random.integers(2**31)))
        if self.play_as == "random":
            self.learner = int(self.np_random.integers(2))
        else:
            self.learner = COLOUR_NAMES.index(self.play_as)
        self.state = GameState(self.geometry)
        self._forfeit = None
        self._broken = "reset() did not finish"
        self._play_opponent()  # an error here leaves the env refusing step() until a reset that finishes
        self._broken = None
        return self._observation(), self._info()

    def step(self, action: int):
        """The learner's step (an integer scalar, NumPy and 0-d arrays included), then the
        opponent's steps until the learner is to act or the game ends."""
        if self._broken is not None:
            raise ValueError(f"no episode to step: {self._broken}; call reset()")
        if self.state.is_terminal or self._forfeit is not None:
            raise ValueError("the episode is over: call reset()")
        reason = self.state.why_illegal(action)
        if reason is not None:
            a = as_int(action)
            in_space = a is not None and 0 <= a < self.geometry.num_actions
            if self.illegal_action == "raise" or not in_space:
                raise ValueError(f"learner ({COLOUR_NAMES[self.learner]}): illegal action {action!r}: {reason}")
            self._forfeit = f"illegal action {a}: {reason}"
            info = self._info()
            return self._observation(), -1.0, True, False, info
        before = self.state.copy()
        self.state.apply(action)
        try:
            self._play_opponent()
        except BaseException:  # the opponent failed: the learner's step is undone, the env is as before
            self.state = before
            raise
        terminated = self.state.is_terminal
        reward = self.state.returns()[self.learner] if terminated else 0.0
        return self._observation(), float(reward), terminated, False, self._info()

    def action_masks(self) -> np.ndarray:
        """bool[2*H*W + 1]: the learner's legal actions (sb3-contrib's MaskablePPO convention); all
        False when there is nothing to step: before the first reset, after a failed one, or once the
        episode is over."""
        if (self._broken is not None or self.state.is_terminal or self._forfeit is not None
                or self.state.to_move != self.learner):
            return np.zeros(self.geometry.num_actions, dtype=bool)
        return self.state.legal_action_mask().astype(bool)

    def render(self):
        """The position as text (``ansi``) or an image (``rgb_array``)."""
        if self.render_mode == "ansi":
            return to_text(self.state)
        if self.render_mode == "rgb_array":
            return to_rgb(self.state)
        gymnasium.logger.warn("render() was called without a render_mode: make the env with render_mode='ansi' "
                              "or 'rgb_array'")
        return None

    # ------------------------------------------------------------ internals
    def _play_opponent(self) -> None:
        s = self.state
        while not s.is_terminal and s.to_move != self.learner:
            if callable(getattr(self.opponent, "act", None)):
                action = self.opponent.act(s.copy())
            else:
                action = self.opponent(s.observation(), s.legal_action_mask().copy())
            try:
                s.apply(action)
            except ValueError as err:
                raise ValueError(f"the opponent {self.opponent!r} played an illegal action: {err}") from None

    def _observation(self) -> np.ndarray:
        return self.state.observation(self.learner)

    def _info(self) -> dict[str, Any]:
        b, w = self.state.group_counts
        return {
            "action_mask": self.action_masks().astype(np.int8),
            "black_groups": b,
            "white_groups": w,
            "turn_step": self.state.turn_step,
            "play_as": COLOUR_NAMES[self.learner],
            **({"illegal_action": self._forfeit} if self._forfeit else {}),
        }


def xodd_env(**kwargs: Any) -> OddGymEnv:
    """The entry point of ``odd_env/Xodd-v0`` (registered by ``import odd_env``)."""
    return _registered("xodd", kwargs)


def yodd_env(**kwargs: Any) -> OddGymEnv:
    """The entry point of ``odd_env/Yodd-v0`` (registered by ``import odd_env``)."""
    return _registered("yodd", kwargs)


def _registered(game: str, kwargs: dict[str, Any]) -> OddGymEnv:
    if "game" in kwargs:  # the id names the game: another one would silently give the other env
        raise ValueError(f"odd_env/{game.capitalize()}-v0 plays {game}; it takes no game= (got game={kwargs['game']!r}): "
                         "make odd_env/Xodd-v0 or odd_env/Yodd-v0 for the game you want")
    return OddGymEnv(game, **kwargs)
