"""Xodd, Yodd and YINSH as single-agent Gymnasium environments against a fixed opponent.

::

    import gymnasium, numpy as np, odd_env
    env = gymnasium.make("odd_env/Xodd-v0", board_size=9, opponent="greedy", play_as="random")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    yinsh = gymnasium.make("odd_env/Yinsh-v0", opponent="random", play_as="white", blitz=True)
    obs, info = yinsh.reset(seed=0)

* the learner plays one side: ``play_as`` is one of the game's players ("black"
  or "white"; YINSH's "white" moves first) or "random" (drawn per episode from
  the env's seeded generator);
* the opponent is a name understood by :func:`agents.load` ("random",
  "greedy", "mcts", "ppo", or a spec like "mcts:simulations=200"), an
  :class:`agents.Agent`, or any callable ``(observation, action_mask) -> action``
  receiving the planes from its own side; it plays every decision of its own
  (both stones of a turn; YINSH's ring placements, moves, and the rows and
  rings it removes, several in a row) inside :meth:`GameGymEnv.step` (and in
  :meth:`GameGymEnv.reset` when it begins), so control returns only when the
  learner decides or the game is over; a trained network
  ("ppo:pretrained=xodd9", "mcts:network=...") must be of the env's game and
  board, and an agent that cannot play the game at all (greedy on YINSH) is
  refused: making the env raises ``ValueError``;
* observation: the ``int8[C, H, W]`` planes of the AEC envs from the
  learner's side; actions: the same ``Discrete`` space;
* the action mask comes from :meth:`GameGymEnv.action_masks` (sb3-contrib's
  convention) and ``info["action_mask"]``;
* reward: +1 / -1 from the learner's side when the game ends (0 on a
  YINSH draw), else 0.

Once an episode is over, the mask holds the game's last action alone (pass,
a no-op), as the idle agent's mask of the parallel envs does, so that a
sampler always finds an action: Gymnasium's vector envs
(``gymnasium.make_vec``, ``SyncVectorEnv``, ``AsyncVectorEnv``) with their
default next-step autoreset step a finished env once more, and that step
resets it and ignores the action. ``envs.call("action_masks")`` is then
right on every step; stepping a finished env itself still raises.

A learner action that is not in the action space (wrong type, out of
range) raises ``ValueError``. A masked action, with the default
``illegal_action="lose"``, ends the episode with reward -1 and the position
unchanged, ``info["illegal_action"]`` saying why: PettingZoo classic's
``env()`` convention, which Gymnasium's ``check_env`` and algorithms without
masking (they step unmasked samples) rely on. With ``illegal_action="raise"``
it raises ``ValueError`` instead, and nothing changes.

An opponent that fails (an illegal action, or any exception) raises from
:meth:`GameGymEnv.step` with the learner's step undone, the env as it was
before the call; one that fails in :meth:`GameGymEnv.reset` leaves the env
refusing ``step()`` until a reset finishes.
"""

from __future__ import annotations

from typing import Any, Callable

import gymnasium
import numpy as np
from gymnasium import spaces

from ._args import check_options, check_seed
from .common.geometry import geometry as make_geometry
from .common.validation import as_int
from .game import Game, make as make_game

Opponent = Callable[[np.ndarray, np.ndarray], int]


class GameGymEnv(gymnasium.Env):
    """One side of a game of :mod:`odd_env.game` against a fixed opponent (see the module docstring).

    The game-specific parts are :meth:`_extra_info` and :meth:`render`; :class:`OddGymEnv` and
    :class:`YinshGymEnv` are the envs of ``odd_env/Xodd-v0``, ``odd_env/Yodd-v0`` and
    ``odd_env/Yinsh-v0``.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 2}

    def __init__(
        self,
        game: Game,
        opponent: str | Opponent | Any = "random",
        play_as: str = "random",
        render_mode: str | None = None,
        illegal_action: str = "lose",
    ):
        """``game``: an :class:`odd_env.game.Game` (``odd_env.game.make("yinsh", variant="blitz")``)."""
        if not isinstance(game, Game):
            raise ValueError(f"game must be an odd_env.game.Game (odd_env.game.make(...)), got {game!r}")
        names = tuple(game.player_names)
        if play_as not in (*names, "random"):
            raise ValueError(f"play_as must be {names[0]!r}, {names[1]!r} or 'random', got {play_as!r}")
        if illegal_action not in ("lose", "raise"):
            raise ValueError(f"illegal_action must be 'lose' or 'raise', got {illegal_action!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.game_spec = game
        self.illegal_action = illegal_action
        self.play_as = play_as
        self.render_mode = render_mode
        self.observation_version = game.observation_version
        self.observation_space = spaces.Box(0, 1, (game.num_planes, game.height, game.width), dtype=np.int8)
        self.action_space = spaces.Discrete(game.num_actions)
        self.opponent = self._make_opponent(opponent)
        self._check_opponent(opponent)
        self.state = game.new_state()
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

    def _check_opponent(self, given: Any) -> None:
        """ValueError if the opponent is a network of another game or board, or cannot play this game."""
        game = self.game_spec
        label = given if isinstance(given, str) else getattr(self.opponent, "label", repr(self.opponent))
        own = getattr(self.opponent, "game", None)  # a trained network's game and board
        if isinstance(own, Game) and (own.name, own.size, own.variant) != (game.name, game.size, game.variant):
            raise ValueError(f"the opponent {label!r} plays {own.label}, not {game.label}: "
                             f"pick a network for {game.label} or an untrained player (random, mcts"
                             f"{', greedy' if game.name != 'yinsh' else ''})")
        cannot_play = getattr(self.opponent, "cannot_play", None)
        reason = cannot_play(game) if callable(cannot_play) else None
        if reason is not None:
            raise ValueError(f"the opponent {label!r} cannot play {game.label}: {reason}")

    # ------------------------------------------------------------------ API
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """New game; the opponent plays first when its side begins.

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
            self.learner = list(self.game_spec.player_names).index(self.play_as)
        self.state = self.game_spec.new_state()
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
            in_space = a is not None and 0 <= a < self.game_spec.num_actions
            if self.illegal_action == "raise" or not in_space:
                raise ValueError(f"learner ({self.game_spec.player_names[self.learner]}): illegal action "
                                 f"{action!r}: {reason}")
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
        terminated = bool(self.state.is_terminal)
        reward = self.state.returns()[self.learner] if terminated else 0.0
        return self._observation(), float(reward), terminated, False, self._info()

    @property
    def episode_over(self) -> bool:
        """True once the game has ended or the learner forfeited it (the next step must be a reset)."""
        return self._broken is None and (bool(self.state.is_terminal) or self._forfeit is not None)

    def action_masks(self) -> np.ndarray:
        """bool[A]: the learner's legal actions (sb3-contrib's MaskablePPO convention).

        All False when there is nothing to step yet (before the first reset, after a failed one);
        once the episode is over, the last action (pass) alone: a vector env's autoreset step,
        which follows, ignores it (see the module docstring)."""
        mask = np.zeros(self.game_spec.num_actions, dtype=bool)
        if self.episode_over:
            mask[-1] = True
        elif self._broken is None and self.state.to_move == self.learner:
            mask[:] = self.state.legal_action_mask()
        return mask

    def render(self):
        """The position as text (``ansi``) or an image (``rgb_array``)."""
        if self.render_mode == "ansi":
            return self.game_spec.to_text(self.state)
        if self.render_mode == "rgb_array":
            return self._to_rgb(self.state)
        gymnasium.logger.warn("render() was called without a render_mode: make the env with render_mode='ansi' "
                              "or 'rgb_array'")
        return None

    # ------------------------------------------------------------ internals
    def _to_rgb(self, state: Any) -> np.ndarray:
        raise NotImplementedError

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

    def _extra_info(self) -> dict[str, Any]:
        """The game's own numbers in ``info`` (group counts; YINSH's decision, rings removed, pool)."""
        return {}

    def _info(self) -> dict[str, Any]:
        return {
            "action_mask": self.action_masks().astype(np.int8),
            **self._extra_info(),
            "play_as": self.game_spec.player_names[self.learner],
            **({"illegal_action": self._forfeit} if self._forfeit else {}),
        }


class OddGymEnv(GameGymEnv):
    """One side of Xodd or Yodd against a fixed opponent (see the module docstring).

    ``info`` holds ``black_groups``, ``white_groups`` and ``turn_step`` besides the mask.
    """

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
        if play_as not in ("black", "white", "random"):  # before the board, as the other checks
            raise ValueError(f"play_as must be 'black', 'white' or 'random', got {play_as!r}")
        size = board_size if board_size is not None else (9 if game == "xodd" else 6)
        self.geometry = make_geometry(game, size)  # ValueError naming the games and sizes
        self.game, self.board_size = self.geometry.game, self.geometry.size
        super().__init__(make_game(self.game, self.board_size), opponent, play_as, render_mode, illegal_action)

    def _to_rgb(self, state: Any) -> np.ndarray:
        from .games.odd.render import to_rgb

        return to_rgb(state)

    def _extra_info(self) -> dict[str, Any]:
        b, w = self.state.group_counts
        return {"black_groups": b, "white_groups": w, "turn_step": self.state.turn_step}


class YinshGymEnv(GameGymEnv):
    """One side of YINSH against a fixed opponent (see the module docstring); ``blitz=True``: the first
    ring removed wins.

    One step is one decision of the learner (docs/envs/yinsh.md): a ring placed, a ring chosen, its
    destination, a row or a ring removed, a pass. The opponent plays all of its decisions before
    control returns: its ring placements and moves, the rows and rings it removes (also those the
    learner's move made for it); the learner removes its own rows, also those the opponent's move
    made, as steps of its own. ``info`` holds ``decision`` (the kind, ``odd_env.yinsh_v0.DECISIONS``;
    -1 once over), ``white_removed``, ``black_removed`` and ``pool`` besides the mask.
    """

    def __init__(
        self,
        blitz: bool = False,
        opponent: str | Opponent | Any = "random",
        play_as: str = "random",
        render_mode: str | None = None,
        illegal_action: str = "lose",
    ):
        """``play_as``: "white" (moves first), "black" or "random"."""
        if not isinstance(blitz, (bool, np.bool_)):
            raise ValueError(f"blitz must be True or False, got {blitz!r}")
        self.game = "yinsh"
        self.blitz = bool(blitz)
        super().__init__(make_game("yinsh", variant="blitz" if blitz else ""), opponent, play_as, render_mode,
                         illegal_action)

    def _to_rgb(self, state: Any) -> np.ndarray:
        from .games.yinsh.render import to_rgb

        return to_rgb(state)

    def _extra_info(self) -> dict[str, Any]:
        w, b = self.state.rings_removed
        return {"decision": self.state.decision, "white_removed": w, "black_removed": b, "pool": self.state.pool}


def xodd_env(**kwargs: Any) -> OddGymEnv:
    """The entry point of ``odd_env/Xodd-v0`` (registered by ``import odd_env``)."""
    return _registered("xodd", kwargs)


def yodd_env(**kwargs: Any) -> OddGymEnv:
    """The entry point of ``odd_env/Yodd-v0`` (registered by ``import odd_env``)."""
    return _registered("yodd", kwargs)


def yinsh_env(**kwargs: Any) -> YinshGymEnv:
    """The entry point of ``odd_env/Yinsh-v0`` (registered by ``import odd_env``); ``blitz=True`` for the
    blitz game."""
    for key in ("game", "board_size"):
        if key in kwargs:
            raise ValueError(f"odd_env/Yinsh-v0 plays YINSH on its one board; it takes no {key}= (got "
                             f"{key}={kwargs[key]!r}): give blitz=True for the blitz game")
    return YinshGymEnv(**kwargs)


def _registered(game: str, kwargs: dict[str, Any]) -> OddGymEnv:
    if "game" in kwargs:  # the id names the game: another one would silently give the other env
        raise ValueError(f"odd_env/{game.capitalize()}-v0 plays {game}; it takes no game= (got game={kwargs['game']!r}): "
                         "make odd_env/Xodd-v0 or odd_env/Yodd-v0 for the game you want")
    return OddGymEnv(game, **kwargs)
