"""The PettingZoo AEC environment shared by Xodd and Yodd.

The game-specific modules :mod:`odd_env.xodd_v0` and :mod:`odd_env.yodd_v0`
hold the documentation pages and the ``env()`` / ``raw_env`` pair; this module
holds the one implementation both use.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .core.geometry import Geometry, geometry as make_geometry
from .core.state import NUM_PLANES, OBSERVATION_VERSION, GameState
from .render import to_text

AGENTS = ("black_0", "white_0")


class OddRawEnv(AECEnv):
    """Xodd or Yodd as an AEC environment (no wrappers).

    A turn is one or two steps of the same agent (RULES.md section 3). Illegal
    actions raise ``ValueError`` and change nothing; use :func:`make_env` (the
    games' ``env()``) for PettingZoo's convention of ending the game instead.
    """

    metadata: dict[str, Any] = {
        "render_modes": ["ansi"],
        "name": "odd_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }
    game: str = ""
    default_size: int = 0

    def __init__(self, board_size: int | None = None, render_mode: str | None = None):
        """Build the env; ``board_size`` is n for Xodd (2..19) or the base for Yodd (2..12)."""
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}"
            )
        size = self.default_size if board_size is None else board_size
        self.geometry: Geometry = make_geometry(self.game, size)
        self.board_size = self.geometry.size
        self.render_mode = render_mode
        g = self.geometry
        n_actions = g.num_actions
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0, 1, (NUM_PLANES, g.height, g.width), dtype=np.int8),
                "action_mask": spaces.Box(0, 1, (n_actions,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in AGENTS}
        self.action_spaces = {a: spaces.Discrete(n_actions) for a in AGENTS}
        self.observation_version = OBSERVATION_VERSION
        self.state_ = GameState(g)
        self._reset_bookkeeping()

    # --------------------------------------------------------------- spaces
    def observation_space(self, agent: str) -> spaces.Space:
        """The observation space of ``agent`` (the same object every call)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """The action space of ``agent`` (the same object every call)."""
        return self.action_spaces[agent]

    # ----------------------------------------------------------------- game
    @property
    def game_state(self) -> GameState:
        """The rules-level state of the current game (a live object; copy it to keep it)."""
        return self.state_

    def _reset_bookkeeping(self) -> None:
        self.agents = list(AGENTS)
        self.rewards = {a: 0.0 for a in AGENTS}
        self._cumulative_rewards = {a: 0.0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.agent_selection = AGENTS[self.state_.to_move]
        self._update_infos()

    def _update_infos(self) -> None:
        s = self.state_
        b, w = s.group_counts
        info = {"black_groups": b, "white_groups": w, "turn_step": s.turn_step}
        self.infos = {a: dict(info) for a in AGENTS}

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game on an empty board (the rules are deterministic; ``seed``
        seeds ``self.np_random`` for code that wants randomness tied to the env)."""
        if seed is not None or not hasattr(self, "np_random"):
            self.np_random, self.np_random_seed = seeding.np_random(seed)
        self.state_ = GameState(self.geometry)
        self._reset_bookkeeping()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """Planes from ``agent``'s side and its action mask (zeros unless it is to act)."""
        s = self.state_
        viewer = AGENTS.index(agent)
        planes = s.observation(viewer)
        if viewer == s.to_move and not s.is_terminal:
            mask = s.legal_action_mask().copy()
        else:
            mask = np.zeros(self.geometry.num_actions, dtype=np.int8)
        return {"observation": planes, "action_mask": mask}

    def step(self, action: int) -> None:
        """Play ``action`` for ``agent_selection``; ValueError (nothing changed) if illegal."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        s = self.state_
        reason = s.why_illegal(action)
        if reason is not None:
            raise ValueError(f"illegal action {action!r} for {agent}: {reason}")
        self._cumulative_rewards[agent] = 0.0
        s.apply(action)
        if s.is_terminal:
            black, white = s.returns()
            self.rewards = {AGENTS[0]: black, AGENTS[1]: white}
            self.terminations = {a: True for a in AGENTS}
        else:
            self.rewards = {a: 0.0 for a in AGENTS}
            self.agent_selection = AGENTS[s.to_move]
        self._update_infos()
        self._accumulate_rewards()

    def render(self) -> str | None:
        """The board as text (``render_mode="ansi"``)."""
        if self.render_mode is None:
            from gymnasium import logger

            logger.warn("You are calling render method without specifying any render mode.")
            return None
        return to_text(self.state_)

    def close(self) -> None:
        """Nothing to release."""


def make_env(raw_cls: type[OddRawEnv], **kwargs: Any) -> AECEnv:
    """``raw_cls(**kwargs)`` wrapped like PettingZoo classic: an illegal action
    ends the game with reward -1 for the offender."""
    env = raw_cls(**kwargs)
    env = wrappers.TerminateIllegalWrapper(env, illegal_reward=-1)
    env = wrappers.AssertOutOfBoundsWrapper(env)
    env = wrappers.OrderEnforcingWrapper(env)
    return env
