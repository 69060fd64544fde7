"""Ray RLlib on the games of :mod:`odd_env.game`: envs, the baseline's network, a league, players.

What RLlib (new API stack) needs, and how :mod:`agents.train.rllib_train` (the
command line, and ``build_config``, the ``PPOConfig`` of a run) puts it
together::

    import ray, agents
    from agents.train.rllib_train import Args, build_config
    ray.init(num_cpus=2)
    algo = build_config(Args(game="yodd", board_size=6, env_runners=2)).build_algo()
    algo.train()
    algo.save_to_path("/abs/path/checkpoint")
    player = agents.load("rllib", path="/abs/path/checkpoint")   # an agents.train.ppo.PPOAgent

The environment (:class:`GameMultiAgentEnv`)
    One position of the game as an RLlib ``MultiAgentEnv``, one decision per
    step; registered with RLlib as ``odd_env/<game>`` (``odd_env/xodd``,
    ``odd_env/yodd``...) with ``env_config={"board_size": n}`` by
    :func:`register_envs`. Agents are named as in the PettingZoo envs
    (``black_0``, ``white_0``). Each step returns an observation for the
    player to decide only, so a player who decides twice in a row (both steps
    of an Xodd/Yodd turn) simply gets the next observation; RLlib keeps each
    player's decisions as its own chain, and the other player's reward waits
    until its next observation. When the game ends both players get the final
    observation, their reward (+1 / -1, 0 on a draw) and ``terminated``.

    Observations follow RLlib's conventions, so that RLlib's own modules
    (e.g. its action-masking example module over its default CNN encoder)
    also run on the env unmodified: ``{"observations": float32[H, W, C],
    "action_mask": float32[A]}``, the game's planes channels-last and as
    floats, and the game's exact legal-action mask as 0.0 / 1.0 (all zeros in
    a final observation). Actions are the game's ``Discrete(A)``; a masked
    action loses the game (or raises, with ``illegal_action="raise"``), and
    the league callback logs how often that happened (``illegal_action_rate``:
    0 with this module's masked policy).

The RLModule (:class:`BoardRLModule`)
    Holds an :class:`agents.train.network.PolicyValueNet` built from
    :meth:`NetConfig.for_game` (same trunk, hexagonal kernels, policy planes
    as :mod:`agents.train.ppo`); reads the planes back channels-first and returns
    logits with illegal actions at the dtype's minimum
    (:func:`agents.train.network.masked_logits`, probability exactly 0) and the
    value head through RLlib's ``ValueFunctionAPI``. A module trained here
    and a network trained by :mod:`agents.train.ppo` are the same kind of object:
    :func:`load_player` wraps ``module.net`` in :class:`agents.train.ppo.PPOAgent`.

Self-play with a league (:class:`LeagueCallback`, :class:`LeagueMapping`)
    One shared policy, ``"main"``, trained on every decision it makes on
    either seat. In each game one seat (Black or White, drawn per game) is
    ``main``; the other is ``main`` too with probability ``latest_prob``,
    else a snapshot drawn uniformly from the league. Every
    ``snapshot_every`` iterations the callback copies ``main`` into the next
    of ``pool_size`` snapshot modules (``snapshot_0``, ``snapshot_1``...):
    new ones with RLlib's ``Algorithm.add_module``, later ones by
    overwriting the oldest slot's weights (a running game keeps its mapping,
    so slots are never removed). Snapshots are not trained
    (``policies_to_train=["main"]``).

Evaluation (:func:`evaluate_against_agents`)
    RLlib's custom evaluation hook: every ``evaluation_interval`` iterations
    the greedy policy of ``main`` plays arena games (:mod:`agents.arena`)
    against each opponent spec (``random``, ``greedy``...), half with each
    colour, on the evaluation env runners when there are any, else in the
    driver. Win rates land in RLlib's metrics where its own evaluation
    results go: ``evaluation/env_runners/win_rate/<spec>``.

This module imports ray; ``import agents`` never does (``"rllib"`` is a lazy
entry of the agent registry). Install with ``pip install -e ".[rllib]"``.
"""

from __future__ import annotations

import copy
import random
from pathlib import Path
from typing import Any, Sequence

import gymnasium as gym
import numpy as np
import torch
from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.rl_module import RLModule, RLModuleSpec
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, EVALUATION_RESULTS
from ray.rllib.utils.metrics.metrics_logger import MetricsLogger
from ray.tune.registry import register_env

from odd_env.game import Game, available_games, make as make_game

from .network import NetConfig, PolicyValueNet, masked_logits

MAIN = "main"
"""The ModuleID of the trained policy."""
SNAPSHOT_PREFIX = "snapshot_"
"""ModuleIDs of the league's snapshots: ``snapshot_0``, ``snapshot_1``..."""
ENV_PREFIX = "odd_env/"
"""RLlib env names: ``odd_env/<game>``."""


# ================================================================ environment
def agent_ids(game: Game) -> tuple[str, str]:
    """The agent names of players 0 and 1, as in the PettingZoo envs (``black_0``, ``white_0``)."""
    return (f"{game.player_names[0]}_0", f"{game.player_names[1]}_0")


def observation_space(game: Game) -> gym.spaces.Dict:
    """The RLlib observation space of ``game``: channels-last float planes and the float mask."""
    c, h, w = game.observation_shape
    return gym.spaces.Dict({
        "observations": gym.spaces.Box(0.0, 1.0, (h, w, c), dtype=np.float32),
        "action_mask": gym.spaces.Box(0.0, 1.0, (game.num_actions,), dtype=np.float32),
    })


_ENV_KEYS = ("game", "board_size", "variant", "illegal_action")


class GameMultiAgentEnv(MultiAgentEnv):
    """A game of :mod:`odd_env.game` as an RLlib ``MultiAgentEnv`` (see the module docstring).

    ``config`` (RLlib's ``env_config``): ``game`` ("xodd", "yodd"...),
    ``board_size`` (None: the game's default), ``variant``, and
    ``illegal_action``: with ``"lose"`` (the default, PettingZoo classic's
    convention, as in :class:`odd_env.OddGymEnv`) a masked action ends the
    game, the position unchanged, with -1 for the offender, 0 for the other
    player and ``infos[offender]["illegal_action"]`` saying why (RLlib's env
    check steps an unmasked random action, and so do modules that ignore the
    mask); with ``"raise"`` it raises ``ValueError`` and nothing changes. An
    action outside the action space always raises.
    """

    def __init__(self, config: dict | None = None):
        super().__init__()
        config = dict(config or {})
        unknown = sorted(set(config) - set(_ENV_KEYS))
        if unknown:
            raise ValueError(f"unknown env_config keys {unknown}; allowed: {list(_ENV_KEYS)}")
        self.illegal_action = config.get("illegal_action", "lose")
        if self.illegal_action not in ("lose", "raise"):
            raise ValueError(f"illegal_action must be 'lose' or 'raise', got {self.illegal_action!r}")
        self.game: Game = make_game(config.get("game", "xodd"), config.get("board_size"),
                                    config.get("variant", ""))
        self.possible_agents = list(agent_ids(self.game))
        self.agents = list(self.possible_agents)
        space = observation_space(self.game)
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: gym.spaces.Discrete(self.game.num_actions) for a in self.possible_agents}
        self.observation_version = self.game.observation_version
        self._no_actions = np.zeros(self.game.num_actions, dtype=np.float32)
        self.state = self.game.new_state()
        self.over = False

    def _observe(self, viewer: int) -> dict[str, np.ndarray]:
        s = self.state
        planes = np.ascontiguousarray(s.observation(viewer).transpose(1, 2, 0), dtype=np.float32)
        # Only the player to decide has legal actions; a finished game's mask is all zeros.
        if viewer == s.to_move and not self.over:
            mask = s.legal_action_mask().astype(np.float32)
        else:
            mask = self._no_actions.copy()
        return {"observations": planes, "action_mask": mask}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """A new game: the observation of the player to decide first."""
        super().reset(seed=seed)  # the rules are deterministic; this seeds np_random only
        self.state = self.game.new_state()
        self.over = False
        p = self.state.to_move
        return {self.possible_agents[p]: self._observe(p)}, {}

    def step(self, action_dict: dict[str, Any]):
        """Play the action of the player to decide; the next decider's observation (both at the end)."""
        s = self.state
        if self.over:
            raise ValueError("the game is over: call reset()")
        ids = self.possible_agents
        p = s.to_move
        actor = ids[p]
        if actor not in action_dict:
            raise ValueError(f"{actor} is to act, but the actions are for {sorted(action_dict)}")
        action = action_dict[actor]
        try:
            s.apply(int(action))
        except (ValueError, TypeError) as err:
            in_space = isinstance(action, (int, np.integer)) and 0 <= int(action) < self.game.num_actions
            if self.illegal_action == "raise" or not in_space:
                raise ValueError(f"{actor}: {err}") from None
            self.over = True
            rewards = {actor: -1.0, ids[1 - p]: 0.0}
            infos = {actor: {"illegal_action": str(err)}}
            return self._final(rewards, infos)
        if s.is_terminal:
            self.over = True
            returns = s.returns()
            return self._final({ids[0]: float(returns[0]), ids[1]: float(returns[1])}, {})
        p = s.to_move
        # The actor's reward (0) must be given when it also decides next (RLlib checks it).
        return {ids[p]: self._observe(p)}, {actor: 0.0}, {"__all__": False}, {"__all__": False}, {}

    def _final(self, rewards: dict[str, float], infos: dict):
        ids = self.possible_agents
        obs = {ids[0]: self._observe(0), ids[1]: self._observe(1)}
        return obs, rewards, {ids[0]: True, ids[1]: True, "__all__": True}, {"__all__": False}, infos


def env_name(game: str) -> str:
    """The RLlib env name of ``game``: ``odd_env/<game>``."""
    return ENV_PREFIX + game


def register_envs() -> list[str]:
    """Register ``odd_env/<game>`` with RLlib for every game of :func:`odd_env.game.available_games`.

    Each creator takes ``env_config={"board_size": n, "variant": v,
    "illegal_action": "lose"}`` (all optional). Returns the registered names.
    """
    names = []
    for game in available_games():
        def creator(env_config: dict, _game: str = game) -> GameMultiAgentEnv:
            extra = sorted(set(env_config) - set(_ENV_KEYS[1:]))
            if extra:
                raise ValueError(f"unknown env_config keys {extra} for {env_name(_game)}; "
                                 f"allowed: {list(_ENV_KEYS[1:])}")
            return GameMultiAgentEnv({"game": _game, **env_config})

        register_env(env_name(game), creator)
        names.append(env_name(game))
    return names


# ================================================================ the RLModule
class BoardRLModule(TorchRLModule, ValueFunctionAPI):
    """The baseline's :class:`PolicyValueNet` as an RLlib RLModule with masked logits.

    ``model_config``: ``game``, ``board_size``, ``variant`` (the game) and the
    trunk's ``channels``, ``blocks``, ``value_hidden``. The network is
    :attr:`net`, a plain :class:`agents.train.network.PolicyValueNet`.
    """

    def setup(self) -> None:
        """Build the network for the game named in ``model_config`` and check the spaces."""
        cfg = dict(self.model_config or {})
        if "game" not in cfg:
            raise ValueError("BoardRLModule needs model_config['game'] (and board_size); see module_spec()")
        game = make_game(cfg["game"], cfg.get("board_size"), cfg.get("variant", ""))
        sizes = {k: cfg[k] for k in ("channels", "blocks", "value_hidden") if cfg.get(k) is not None}
        self.net = PolicyValueNet(NetConfig.for_game(game, **sizes))
        expected = observation_space(game)
        if self.observation_space is not None and self.observation_space != expected:
            raise ValueError(f"BoardRLModule for {game.label} expects observations {expected}, "
                             f"got {self.observation_space}")
        if self.action_space is not None and getattr(self.action_space, "n", None) != game.num_actions:
            raise ValueError(f"BoardRLModule for {game.label} expects Discrete({game.num_actions}) "
                             f"actions, got {self.action_space}")

    def _logits_and_value(self, obs: dict[str, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
        logits, value = self.net(obs["observations"].permute(0, 3, 1, 2))
        return masked_logits(logits, obs["action_mask"]), value

    def _forward(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        """Masked action logits (inference and exploration)."""
        logits, _ = self._logits_and_value(batch[Columns.OBS])
        return {Columns.ACTION_DIST_INPUTS: logits}

    def _forward_train(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        """Masked logits; the value rides along as the embedding so the loss needs no second pass."""
        logits, value = self._logits_and_value(batch[Columns.OBS])
        return {Columns.ACTION_DIST_INPUTS: logits, Columns.EMBEDDINGS: value}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        """V(s) for the player to decide, shape (B,) (``embeddings`` from ``_forward_train`` is V itself)."""
        if embeddings is not None:
            return embeddings
        return self._logits_and_value(batch[Columns.OBS])[1]


def module_spec(game: str | Game, board_size: int | None = None, *, variant: str = "",
                channels: int = 64, blocks: int = 4, value_hidden: int = 64) -> RLModuleSpec:
    """An :class:`RLModuleSpec` of :class:`BoardRLModule` for ``game`` with the given trunk."""
    g = make_game(game, board_size, variant)
    return RLModuleSpec(
        module_class=BoardRLModule,
        observation_space=observation_space(g),
        action_space=gym.spaces.Discrete(g.num_actions),
        model_config={"game": g.name, "board_size": g.size, "variant": g.variant,
                      "channels": channels, "blocks": blocks, "value_hidden": value_hidden},
    )


# ================================================================== the league
def _episode_draws(episode: Any) -> tuple[float, float, float]:
    """Three numbers in [0, 1) fixed by the episode's id, so both agents of a game see the same draws."""
    # A str seed goes through SHA-512: the same in every process, and the draws are independent.
    rng = random.Random(f"odd_env-league/{episode.id_}")
    return rng.random(), rng.random(), rng.random()


class LeagueMapping:
    """RLlib's agent-to-module mapping for self-play against a league (picklable).

    Per game (drawn from the episode id, so both agents agree): ``main``
    holds player 0 or player 1 with equal probability; the other seat is
    ``main`` too with probability ``latest_prob`` (always while the league is
    empty), else a snapshot drawn uniformly from ``snapshots``.
    """

    def __init__(self, agents: Sequence[str], snapshots: Sequence[str] = (), latest_prob: float = 0.5):
        if len(agents) != 2:
            raise ValueError(f"a league needs the two agent ids of players 0 and 1, got {list(agents)}")
        if not 0.0 <= latest_prob <= 1.0:
            raise ValueError(f"latest_prob must be in [0, 1], got {latest_prob}")
        self.agents = tuple(agents)
        self.snapshots = tuple(snapshots)
        self.latest_prob = latest_prob

    def learner_seat(self, episode: Any) -> int:
        """The player number (0 or 1) that ``main`` holds in ``episode`` whatever the opponent."""
        return int(_episode_draws(episode)[0] < 0.5)

    def opponent(self, episode: Any) -> str:
        """The ModuleID on the other seat of ``episode``."""
        _, latest, which = _episode_draws(episode)
        if not self.snapshots or latest < self.latest_prob:
            return MAIN
        return self.snapshots[int(which * len(self.snapshots))]

    def __call__(self, agent_id: str, episode: Any, **kwargs: Any) -> str:
        """The ModuleID that plays ``agent_id`` in ``episode``."""
        if self.agents.index(agent_id) == self.learner_seat(episode):
            return MAIN
        return self.opponent(episode)


class LeagueCallback(RLlibCallback):
    """Snapshots of ``main`` into a league every ``snapshot_every`` iterations; win rates against it.

    On the driver, :meth:`on_train_result` copies ``main``'s weights into the
    next of ``pool_size`` snapshot modules (added with ``Algorithm.add_module``
    the first time, overwritten afterwards) and installs a
    :class:`LeagueMapping` over the snapshots. On the env runners,
    :meth:`on_episode_end` logs to RLlib's metrics ``win_rate_vs_league``
    (``main``'s score in games against a snapshot; draws count half) and
    ``illegal_action_rate`` (games lost on a masked action: 0 unless a module
    ignores the mask), both over the last 100 games.
    """

    def __init__(self, spec: RLModuleSpec, agents: Sequence[str], snapshot_every: int = 10,
                 pool_size: int = 10, latest_prob: float = 0.5):
        super().__init__()
        if snapshot_every < 1 or pool_size < 1:
            raise ValueError(f"snapshot_every and pool_size must be >= 1, got {snapshot_every}, {pool_size}")
        self.spec = spec
        self.snapshot_every, self.pool_size = snapshot_every, pool_size
        self.mapping = LeagueMapping(agents, (), latest_prob)
        self.iterations = 0
        self.snapshots_taken = 0

    def on_episode_end(self, *, episode: Any, metrics_logger: Any = None, **kwargs: Any) -> None:
        """Log whether the game ended on an illegal action, and ``main``'s result against a snapshot."""
        if metrics_logger is None:
            return
        illegal = any("illegal_action" in (info or {}) for info in episode.get_infos(-1).values())
        metrics_logger.log_value("illegal_action_rate", float(illegal), reduce="mean", window=100)
        modules = {aid: episode.module_for(aid) for aid in episode.agent_ids}
        if len(modules) != 2 or list(modules.values()).count(MAIN) != 1:
            return
        main_agent = next(aid for aid, mid in modules.items() if mid == MAIN)
        reward = episode.get_rewards(-1).get(main_agent, 0.0)
        metrics_logger.log_value("win_rate_vs_league", 0.5 + 0.5 * float(np.sign(reward)),
                                 reduce="mean", window=100)

    def on_train_result(self, *, algorithm: Any, result: dict, **kwargs: Any) -> None:
        """Every ``snapshot_every`` iterations, copy ``main`` into the league."""
        self.iterations += 1
        if self.iterations % self.snapshot_every == 0:
            self.take_snapshot(algorithm)
        result["league_size"] = len(self.mapping.snapshots)

    def take_snapshot(self, algorithm: Any) -> str:
        """Copy ``main``'s current weights into the next league slot; return its ModuleID."""
        slot = f"{SNAPSHOT_PREFIX}{self.snapshots_taken % self.pool_size}"
        self.snapshots_taken += 1
        weights = algorithm.learner_group.get_weights(module_ids=[MAIN])[MAIN]
        if slot not in self.mapping.snapshots:
            self._add_slot(algorithm, slot)
        algorithm.learner_group.set_weights({slot: weights})
        for group in (algorithm.env_runner_group, algorithm.eval_env_runner_group):
            if group is not None:
                group.sync_weights(from_worker_or_learner_group=algorithm.learner_group,
                                   policies=[slot], inference_only=True)
        return slot

    def _add_slot(self, algorithm: Any, slot: str) -> None:
        m = self.mapping
        self.mapping = LeagueMapping(m.agents, m.snapshots + (slot,), m.latest_prob)
        algorithm.add_module(slot, self.spec, new_agent_to_module_mapping_fn=self.mapping)

    def get_state(self) -> dict[str, Any]:
        """The league's bookkeeping (JSON): iterations seen, snapshots taken, the slots in use.
        The slots' weights are modules of the algorithm, in its own checkpoint."""
        return {"iterations": self.iterations, "snapshots_taken": self.snapshots_taken,
                "snapshots": list(self.mapping.snapshots)}

    def set_state(self, algorithm: Any, state: dict[str, Any]) -> None:
        """Rebuild the league of :meth:`get_state` in a new ``algorithm``: add its slot modules
        (before ``algorithm.restore_from_path`` fills their weights) and its counters."""
        if self.mapping.snapshots:
            raise ValueError("set_state rebuilds a league in a new algorithm: this one has snapshots already")
        try:
            iterations, taken = int(state["iterations"]), int(state["snapshots_taken"])
            slots = [str(x) for x in state["snapshots"]]
        except (KeyError, TypeError, ValueError) as err:
            raise ValueError(f"not a league state (iterations, snapshots_taken, snapshots): {err!r}") from None
        expected = [f"{SNAPSHOT_PREFIX}{i}" for i in range(min(taken, self.pool_size))]
        if slots != expected or iterations < 0:
            raise ValueError(f"league state with {taken} snapshots taken and a pool of {self.pool_size} "
                             f"has slots {expected}, not {slots}")
        for slot in slots:
            self._add_slot(algorithm, slot)
        self.iterations, self.snapshots_taken = iterations, taken


# ================================================================ evaluation
def arena_scores(net: PolicyValueNet, opponents: Sequence[str], games: int, seed: int) -> dict[str, tuple[float, int]]:
    """(score, games) of ``net``'s greedy policy against each opponent spec, half with each colour."""
    from ..arena import round_robin
    from ..players.network_player import PPOAgent

    cfg = net.config
    player = PPOAgent(network=copy.deepcopy(net).cpu(), greedy=True)
    out = {}
    for spec in opponents:
        res = round_robin([player, spec], cfg.game, cfg.board_size, games_per_pair=games, seed=seed,
                          progress=False, labels=["rllib", spec], variant=cfg.variant)
        out[spec] = (float(res.wins[0, 1]), int(res.wins[0, 1] + res.wins[1, 0]))
    return out


def evaluate_against_agents(algorithm: Any, eval_workers: Any, *, opponents: Sequence[str] = ("random", "greedy"),
                            games: int = 100, seed: int = 0) -> tuple[dict, int, int]:
    """RLlib's ``custom_evaluation_function``: arena win rates of ``main`` against ``opponents``.

    ``games`` per opponent (rounded up to an even number per evaluation
    runner), split over the remote evaluation env runners if there are any,
    else played in the driver. Logs ``evaluation/env_runners/win_rate/<spec>``
    and ``.../games/<spec>`` into ``algorithm.metrics``.
    """
    seed = seed + 1000 * algorithm.iteration
    remote = eval_workers.num_healthy_remote_workers() if eval_workers is not None else 0
    if remote:
        share = max(2, -(-games // remote))
        share += share % 2
        parts = eval_workers.foreach_env_runner(
            lambda runner: arena_scores(runner.module[MAIN].net, opponents, share, seed + runner.worker_index),
            local_env_runner=False,
        )
    else:
        parts = [arena_scores(algorithm.get_module(MAIN).net, opponents, games + games % 2, seed)]
    # RLlib reads evaluation results as stats merged from other loggers, as from its own runners.
    logger = MetricsLogger()
    for spec in opponents:
        score = sum(p[spec][0] for p in parts)
        n = sum(p[spec][1] for p in parts)
        logger.log_value(("win_rate", spec), score / n, reduce="mean", window=1)
        logger.log_value(("games", spec), float(n), reduce="mean", window=1)
    algorithm.metrics.aggregate([logger.reduce()], key=(EVALUATION_RESULTS, ENV_RUNNER_RESULTS))
    return {}, 0, 0


# ================================================================ players
def module_checkpoint_dir(path: str | Path) -> Path:
    """The directory of ``main``'s RLModule inside an algorithm checkpoint (or ``path`` itself)."""
    path = Path(path)
    for candidate in (path / "learner_group" / "learner" / "rl_module" / MAIN, path / "rl_module" / MAIN,
                      path / MAIN, path):
        if (candidate / "module_state.pt").is_file() or (candidate / "module_state.pkl").is_file():
            return candidate
    raise ValueError(f"no RLlib checkpoint of module {MAIN!r} at {path} (expected the directory written by "
                     f"Algorithm.save_to_path, or an RLModule checkpoint)")


def load_network(path: str | Path) -> PolicyValueNet:
    """The :class:`PolicyValueNet` of ``main`` in an RLlib checkpoint written by :mod:`agents.train.rllib_train`."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no RLlib checkpoint at {path}")
    module = RLModule.from_checkpoint(module_checkpoint_dir(path))
    if not isinstance(module, BoardRLModule):
        raise ValueError(f"the checkpoint at {path} holds a {type(module).__name__}, not a BoardRLModule")
    return module.net


def load_player(path: str, greedy: bool = True, seed: int | None = None, device: str = "cpu"):
    """``agents.load("rllib", path=...)``: the checkpoint's network as an :class:`agents.train.ppo.PPOAgent`.

    The same kind of player as ``agents.load("ppo", path=...)``, labelled
    ``rllib:path=PATH`` (the spec that loads it again): it plays in the arena and as a Gymnasium
    env's ``opponent=``.
    """
    from ..players.network_player import PPOAgent

    agent = PPOAgent(network=load_network(path), greedy=greedy, seed=seed, device=device)
    agent.name = "rllib"
    agent.path = str(path)
    return agent


__all__ = [
    "BoardRLModule", "GameMultiAgentEnv", "LeagueCallback", "LeagueMapping", "MAIN", "agent_ids", "arena_scores",
    "env_name", "evaluate_against_agents", "load_network", "load_player", "module_spec", "observation_space",
    "register_envs",
]
