"""The PettingZoo AEC mechanics every game shares.

:class:`PositionRawEnv` plays any position class of the game interface
(``to_move``, ``apply``, ``is_terminal``, ``returns()``, ``observation``,
``legal_action_mask``) one decision per step;
:class:`odd_env.games.odd.env.OddRawEnv` adds the Xodd/Yodd specifics and
:class:`odd_env.games.yinsh.env.YinshRawEnv` YINSH's. The public env modules
(:mod:`odd_env.xodd_v0`, :mod:`odd_env.yodd_v0`, :mod:`odd_env.yinsh_v0`) hold
the documentation pages and the ``env()`` / ``raw_env`` / ``parallel_env()``
functions.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from operator import attrgetter
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.conversions import turn_based_aec_to_parallel_wrapper

from .._args import check_options, check_seed
from .drawing import HumanViewer


class ActionSpace(spaces.Discrete):
    """Gymnasium's ``Discrete(n)``, whose ``contains`` answers a Python ``int`` without NumPy.

    PettingZoo's AssertOutOfBoundsWrapper checks every action with ``contains``; Gymnasium's
    answer for a Python int costs ``np.iinfo`` and two NumPy conversions. The answer is the same
    (an int of ``[0, n)`` is in range of int64); other values take Gymnasium's path.
    """

    def __init__(self, n: int):
        super().__init__(n)
        self._stop = int(n)

    def contains(self, x: Any) -> bool:
        """Whether ``x`` is an action of this space (Gymnasium's ``Discrete.contains``)."""
        if type(x) is int:
            return 0 <= x < self._stop
        return super().contains(x)


# The AEC bookkeeping PettingZoo's wrappers read on every step (``last()``, ``agent_iter()`` and the
# wrappers' own ``step``/``observe`` read them some 36 times a step, each read forwarded down the
# stack by ``BaseWrapper.__getattr__``). ``make_env`` has the raw env keep each of them in the
# wrappers' instance dictionaries too, so that those reads are direct.
MIRRORED = ("agents", "agent_selection", "rewards", "_cumulative_rewards", "terminations", "truncations", "infos")


def _mirrored(name: str) -> property:
    """An attribute of the raw env whose every assignment is also made on its registered wrappers."""
    slot = "_own" + name if name.startswith("_") else "_own_" + name

    def fset(self: PositionRawEnv, value: Any) -> None:
        self.__dict__[slot] = value
        for w in self._mirrors:
            w.__dict__[name] = value

    return property(attrgetter(slot), fset, doc=f"``{name}`` (mirrored into the wrappers of make_env).")


class PositionRawEnv(AECEnv):
    """One game position as an AEC environment: one decision per step.

    Subclasses set ``possible_agents`` (player 0 first), the spaces,
    ``num_actions``, ``render_mode`` and ``state_`` (the position) in
    ``__init__``, and define ``_update_infos()`` (which fills ``self.infos``)
    and ``_views()`` (the game's text, RGB and SVG drawings, which serve the
    render modes ``"ansi"``, ``"rgb_array"`` and ``"human"`` and Jupyter).
    Illegal actions raise ``ValueError`` naming the agent and change nothing.
    """

    num_actions: int
    state_: Any

    agents = _mirrored("agents")
    agent_selection = _mirrored("agent_selection")
    rewards = _mirrored("rewards")
    _cumulative_rewards = _mirrored("_cumulative_rewards")
    terminations = _mirrored("terminations")
    truncations = _mirrored("truncations")
    infos = _mirrored("infos")
    # make_env's wrappers, and those of them that mirror the attributes above (after a reset). The
    # wrappers themselves, not their dictionaries, so that copies (deepcopy, pickle) mirror into theirs.
    _wrappers: tuple[AECEnv, ...] = ()
    _mirrors: tuple[AECEnv, ...] = ()

    def _mirror_into_wrappers(self) -> None:
        """Copy the mirrored attributes into the wrappers' dictionaries, and keep them there from
        now on. A wrapper that has not been reset (OrderEnforcingWrapper's ``_has_reset``) gets none
        yet, so that it still refuses to show them before its first reset."""
        if not self._wrappers:
            return
        self._mirrors = mirrors = tuple(w for w in self._wrappers if w.__dict__.get("_has_reset", True))
        values = [(name, getattr(self, name)) for name in MIRRORED]
        for w in mirrors:
            w.__dict__.update(values)

    # --------------------------------------------------------------- spaces
    def observation_space(self, agent: str) -> spaces.Space:
        """The observation space of ``agent`` (the same object every call)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """The action space of ``agent`` (the same object every call)."""
        return self.action_spaces[agent]

    def _reset_bookkeeping(self) -> None:
        agents = self.possible_agents
        self.agents = list(agents)
        self.rewards = {a: 0.0 for a in agents}
        self._cumulative_rewards = {a: 0.0 for a in agents}
        self.terminations = {a: False for a in agents}
        self.truncations = {a: False for a in agents}
        self.agent_selection = agents[self.state_.to_move]
        self._update_infos()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """Planes from ``agent``'s side and its action mask (zeros unless it is to act).

        ``agent`` is one of ``possible_agents``; ValueError otherwise.
        """
        agents = self.possible_agents
        if not isinstance(agent, str) or agent not in agents:
            raise ValueError(f"unknown agent {agent!r}: the agents are {agents[0]!r} and {agents[1]!r}")
        s = self.state_
        viewer = agents.index(agent)
        planes = s.observation(viewer)
        if viewer == s.to_move:  # a finished game's mask is all zeros
            mask = s.legal_action_mask().copy()
        else:
            mask = np.zeros(self.num_actions, dtype=np.int8)
        return {"observation": planes, "action_mask": mask}

    def state(self) -> np.ndarray:
        """A global view of the position, the same whoever is to act (``state_space``): the
        position's ``state_planes()`` (Xodd/Yodd: planes from Black's side; YINSH: from White's)."""
        return self.state_.state_planes()

    # --------------------------------------------------------------- views
    render_mode: str | None = None
    _viewer: HumanViewer | None = None

    def _views(self) -> tuple[Callable[[Any], str], Callable[[Any], np.ndarray], Callable[[Any], str]]:
        """The game's drawings of a position: (text, RGB image, SVG)."""
        raise NotImplementedError

    def _viewer_title(self) -> str:
        """The title of the ``"human"`` render mode's window."""
        return self.metadata["name"]

    def render(self) -> str | np.ndarray | None:
        """The board as text (``"ansi"``), an H x W x 3 uint8 image (``"rgb_array"``), or in a window (``"human"``)."""
        if self.render_mode is None:
            from gymnasium import logger

            logger.warn("You are calling render method without specifying any render mode.")
            return None
        text, rgb, _ = self._views()
        if self.render_mode == "ansi":
            return text(self.state_)
        if self.render_mode == "rgb_array":
            return rgb(self.state_)
        if self._viewer is None:
            self._viewer = HumanViewer(self._viewer_title())
        if self._viewer.can_show():  # no drawing at all without a display
            self._viewer.show(rgb(self.state_), pause=1.0 / self.metadata["render_fps"])
        return None

    def _repr_svg_(self) -> str:
        """The current position as SVG, so that Jupyter draws the env."""
        return self._views()[2](self.state_)

    def close(self) -> None:
        """Close the window of ``render_mode="human"`` if one is open."""
        if self._viewer is not None:
            self._viewer.close()
            self._viewer = None

    # ---------------------------------------------------------------- play
    def _start_state(self, options: Mapping[str, Any]) -> Any:
        """The position a reset starts from: a new game, or one given in ``options`` (ValueError if
        the options give a position this env cannot start from)."""
        raise NotImplementedError

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game, or from a position given in ``options`` (the env's ``_start_state``
        says which keys it reads: ``"record"``, ``"state"``; others are ignored, as Gymnasium envs
        do). The rules are deterministic; ``seed`` (a non-negative integer scalar, NumPy integers
        included) seeds ``self.np_random`` for code that wants randomness tied to the env. A bad
        option raises ValueError before anything, the seed included, changes."""
        seed = check_seed(seed)
        options = check_options(options)
        start = self._start_state(options)
        if seed is not None or not hasattr(self, "np_random"):
            self.np_random, self.np_random_seed = seeding.np_random(seed)
        self.state_ = start
        self._reset_bookkeeping()
        self._mirror_into_wrappers()
        if self.render_mode == "human":
            self.render()

    def step(self, action: int) -> None:
        """Play ``action`` (an integer scalar, NumPy and 0-d arrays included) for
        ``agent_selection``; ValueError (nothing changed) if illegal, or if the
        game is over and every agent has left."""
        if not self.agents:
            raise ValueError("the game is over and every agent has left (each stepped with None): call reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        s = self.state_
        try:
            s.apply(action)
        except ValueError as err:
            raise ValueError(f"{agent}: {err}") from None
        agents = self.possible_agents
        self._cumulative_rewards[agent] = 0.0
        if s.is_terminal:
            self.rewards = dict(zip(agents, s.returns()))
            self.terminations = {a: True for a in agents}
            self._update_infos()
            self._accumulate_rewards()
        else:
            # Rewards are zero until the end, and so is every cumulative reward: nothing to accumulate.
            self.rewards = dict.fromkeys(agents, 0.0)
            self.agent_selection = agents[s.to_move]
            self._update_infos()
        if self.render_mode == "human":
            self.render()


class GameRawEnv(PositionRawEnv):
    """Any game of :mod:`odd_env.game` as an AEC environment, from its :class:`~odd_env.game.Game` alone.

    Agents are ``<player name>_0``; observations the game's planes and mask; infos the game's
    ``summary`` of the position; the ``"ansi"`` render mode and Jupyter's picture come from the
    game's ``to_text`` and ``to_svg``. ``reset(options={"state": position})`` starts from a copy of
    a running position of the game. Xodd/Yodd and YINSH have envs of their own with more (records,
    RGB pictures); a new game gets this one for nothing.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "name": "game_v0", "is_parallelizable": False,
                                "render_fps": 2}

    def __init__(self, game: Any, render_mode: str | None = None):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.game = game
        self.render_mode = render_mode
        self.num_actions = game.num_actions
        self.possible_agents = [f"{name}_0" for name in game.player_names]
        self.agents = list(self.possible_agents)
        obs_space = spaces.Dict({
            "observation": spaces.Box(0, 1, game.observation_shape, dtype=np.int8),
            "action_mask": spaces.Box(0, 1, (game.num_actions,), dtype=np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: ActionSpace(game.num_actions) for a in self.possible_agents}
        self.state_space = spaces.Box(0, 1, game.observation_shape, dtype=np.int8)
        self.observation_version = game.observation_version
        self.state_ = game.new_state()
        self._reset_bookkeeping()

    @property
    def game_state(self) -> Any:
        """The position of the current game (a live object; copy it to keep it)."""
        return self.state_

    def state(self) -> np.ndarray:
        """The position from player 0's side, whoever is to act."""
        return self.state_.observation(0)

    def _update_infos(self) -> None:
        info = dict(self.game.summary(self.state_))
        self.infos = {a: dict(info) for a in self.possible_agents}

    def _start_state(self, options: Mapping[str, Any]) -> Any:
        """A new game, or a copy of ``options["state"]`` (a running position of this game)."""
        if "state" not in options:
            return self.game.new_state()
        given = options["state"]
        if getattr(given, "game", None) is not self.game or given.is_terminal:
            raise ValueError(f"options['state'] must be a running position of {self.game.label}")
        return given.copy()

    def _views(self) -> tuple[Callable[[Any], str], Callable[[Any], np.ndarray], Callable[[Any], str]]:
        def no_rgb(position: Any) -> np.ndarray:
            raise ValueError(f"{self.game.label} has no RGB pictures: use render_mode='ansi'")

        return self.game.to_text, no_rgb, self.game.to_svg


def make_env(raw_cls: type[PositionRawEnv], **kwargs: Any) -> AECEnv:
    """``raw_cls(**kwargs)`` wrapped like PettingZoo classic: an illegal action
    ends the game with reward -1 for the offender.

    The wrappers are PettingZoo's own (``OrderEnforcingWrapper(AssertOutOfBoundsWrapper(
    TerminateIllegalWrapper(raw)))``); the raw env registers them, and from each reset on keeps
    the attributes of :data:`MIRRORED` in their instance dictionaries too (the same objects), so
    that their reads of them on every step are plain look-ups instead of ``__getattr__``
    forwarding down the stack."""
    env = raw_cls(**kwargs)
    env = wrappers.TerminateIllegalWrapper(env, illegal_reward=-1)
    env = wrappers.AssertOutOfBoundsWrapper(env)
    env = wrappers.OrderEnforcingWrapper(env)
    raw = env.unwrapped
    chain, w = [], env
    while w is not raw:
        chain.append(w)
        w = w.env
    raw._wrappers = tuple(chain)
    return env


class OddParallelEnv(turn_based_aec_to_parallel_wrapper):
    """PettingZoo's turn-based conversion of an AEC env to a ``ParallelEnv``.

    Each ``step(actions)`` plays ``actions[active]`` for the one agent to act,
    whose index in ``possible_agents`` is every agent's
    ``infos[agent]["active_agent"]`` (after ``reset`` as well as after each
    step; a number, as TorchRL's specs need); the idle agent's action mask
    holds the last action alone (its no-op: ignored, as everything it sends); the other agents' entries are ignored, and the
    same agent stays active for step 2 of its turn. Observations, rewards and
    the end of the game are those of the AEC env underneath.
    """

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """Reset the AEC env; returns (observations, infos) with ``active_agent`` in every info."""
        observations, infos = super().reset(seed=seed, options=options)
        self._mark_active(observations, infos)
        return observations, infos

    def _mark_active(self, observations: dict, infos: dict) -> None:
        """Every info gets the index of the agent to act; an idle agent's mask holds the last action
        alone, its no-op (the action is ignored), so that samplers that draw from masks (TorchRL)
        always find one."""
        selected = self.aec_env.agent_selection
        active = self.possible_agents.index(selected)
        for agent, info in infos.items():
            info["active_agent"] = active
            if agent != selected and agent in observations and not self.aec_env.terminations.get(agent, True):
                mask = np.zeros_like(observations[agent]["action_mask"])
                mask[-1] = 1
                observations[agent]["action_mask"] = mask

    def step(self, actions: dict) -> tuple[dict, dict, dict, dict, dict]:
        """Play the active agent's action; ValueError if it is missing or the game is over."""
        if not self.agents:
            raise ValueError("the game is over: call reset()")
        active = self.aec_env.agent_selection
        if not isinstance(actions, Mapping):
            raise ValueError(f"actions must be a dict from agent name to action, e.g. {{{active!r}: 0}}; "
                             f"got {type(actions).__name__}: {actions!r}")
        if active not in actions:
            raise ValueError(
                f"actions must hold an action for the agent to act, {active!r}; got keys {list(actions)!r}"
            )
        observations, rewards, terminations, truncations, infos = super().step(actions)
        self._mark_active(observations, infos)
        return observations, rewards, terminations, truncations, infos


def make_parallel_env(raw_cls: type[PositionRawEnv], **kwargs: Any) -> OddParallelEnv:
    """:func:`make_env` (``raw_cls`` with the standard wrappers) as an :class:`OddParallelEnv`."""
    return OddParallelEnv(make_env(raw_cls, **kwargs))
