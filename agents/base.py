"""The one interface every player implements.

An :class:`Agent` is given a position of any game of :mod:`odd_env.game` and
returns a legal action. It plays both sides and every kind of decision (both
steps of an Xodd/Yodd turn; every YINSH decision), and it is reproducible:
the same seed and the same sequence of positions give the same actions.

Two ways to call it:

* ``agent.act(state)`` with a position (:class:`odd_env.game.Position`: the
  arena and search code use this; the state is never modified);
* ``agent(observation, action_mask)`` with the planes of the PettingZoo /
  Gymnasium observation (what an environment's ``opponent=`` does). The
  position is rebuilt with the game's ``from_observation``; the game is the
  agent's own (a network's), given to :class:`Agent`'s constructor
  (``game=``: ``random`` and agents of your own take it), or inferred from
  the planes (:func:`infer_game`).
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Mapping

import numpy as np

from odd_env.game import Game, Position, infer_game, make as make_game


def infer_geometry(planes: np.ndarray) -> Any:
    """The board (:class:`odd_env.common.geometry.Geometry`) of Xodd or Yodd observation planes
    ``(C, H, W)``: Xodd when plane 3 (on-board cells) is all ones, else Yodd of base ``(H + 1) // 2``."""
    planes = np.asarray(planes)
    if planes.ndim != 3 or planes.shape[0] < 4 or planes.shape[1] != planes.shape[2]:
        raise ValueError(f"expected planes of shape (C, H, H) with C >= 4, got {planes.shape}")
    game = infer_game(planes)
    if "geometry" not in game.extra or game.name not in ("xodd", "yodd"):
        raise ValueError(f"planes of shape {planes.shape} are not Xodd or Yodd planes")
    return game.extra["geometry"]


def new_rng_state(rng: np.random.Generator) -> np.ndarray:
    """A fresh, nonzero state (uint64[1]) for the compiled xorshift generator."""
    return np.array([int(rng.integers(1, 2**63 - 1))], dtype=np.uint64)


# ------------------------------------------------------------ option checks
def check_int(what: str, value: Any, low: int, high: int | None = None) -> int:
    """``value`` as an int >= ``low`` (and <= ``high``, if given), or ValueError naming ``what``
    (e.g. "mcts option simulations") and the allowed range. A float with an integer value is accepted.

    ``high`` bounds a count to what can finish: ``simulations=1e30`` would never return a move."""
    given = value
    ok = isinstance(value, numbers.Integral) and not isinstance(value, bool)
    if not ok and isinstance(value, float) and math.isfinite(value) and value == int(value):
        value, ok = int(value), True
    if not ok or value < low:
        raise ValueError(f"{what} must be an integer >= {low}, got {value!r}")
    if high is not None and value > high:
        raise ValueError(f"{what} must be an integer from {low} to {high:,} (the most that can finish), got {given!r}")
    return int(value)


MAX_THREADS = 1024
"""Most torch threads an agent or the trainer may ask for."""

MAX_SECONDS = 3600.0
"""Longest time budget of one move (an hour)."""


def check_float(what: str, value: Any, low: float, high: float = math.inf, low_open: bool = False) -> float:
    """``value`` as a finite float in ``[low, high]`` (``(low, high]`` with ``low_open``),
    or ValueError naming ``what`` and the allowed range."""
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if ok:
        v = float(value)
        ok = math.isfinite(v) and (v > low if low_open else v >= low) and v <= high
    if not ok:
        if math.isfinite(high):
            span = f"in {'(' if low_open else '['}{low:g}, {high:g}]"
        else:
            span = f"{'>' if low_open else '>='} {low:g}"
        raise ValueError(f"{what} must be a finite number {span}, got {value!r}")
    return float(value)


def check_bool(what: str, value: Any) -> bool:
    """``value`` as a bool (True/False, or 1/0), or ValueError naming ``what``."""
    if isinstance(value, (bool, np.bool_)) or (isinstance(value, numbers.Integral) and value in (0, 1)):
        return bool(value)
    raise ValueError(f"{what} must be true or false, got {value!r}")


def check_position(agent: str, state: Any) -> None:
    """ValueError unless ``state`` is a position of a running game (what ``act`` takes)."""
    if not (hasattr(state, "legal_action_mask") and hasattr(state, "is_terminal")):
        raise ValueError(f"{agent}: act takes a game position (a GameState or YinshState, e.g. "
                         f"odd_env.game.make('xodd', 9).new_state()), got {type(state).__name__}")
    if state.is_terminal:
        raise ValueError("the game is over")


def check_board(agent: Agent, game: Game, label: str | None = None) -> None:
    """Raise ValueError if ``agent`` is tied to a game or board other than ``game`` (a trained network),
    or cannot play ``game`` at all (:meth:`Agent.cannot_play`)."""
    own = agent.game
    if own is not None and own is not game:
        raise ValueError(f"agent {label or agent.label!r} plays {own.label}, not {game.label}")
    reason = agent.cannot_play(game)
    if reason is not None:
        raise ValueError(f"agent {label or agent.label!r} cannot play {game.label}: {reason}")


def plays(agent: Agent, game: Game) -> bool:
    """Whether ``agent`` plays ``game``: :func:`check_board` passes (a per-size network plays its own
    board only, greedy Xodd and Yodd only)."""
    try:
        check_board(agent, game)
    except ValueError:
        return False
    return True


class Agent:
    """Base class of all players: override :meth:`act` (and :meth:`reset` if stateful).

    ``seed`` seeds ``self.rng`` (a :class:`numpy.random.Generator`); every
    random choice of the agent must come from it so that seeded runs repeat.
    """

    name: str = "agent"
    """Registry name (``agents.load(name)``); instances may refine it with :attr:`label`."""

    def __init__(self, seed: int | None = None, geometry: Any = None,
                 game: Game | str | None = None):
        if geometry is not None and not (isinstance(getattr(geometry, "game", None), str)
                                         and hasattr(geometry, "size") and hasattr(geometry, "neighbours")):
            raise ValueError(f"{self.name} option geometry must be a Geometry (odd_env.square / hexhex) "
                             f"or None, got {type(geometry).__name__}")
        if game is not None and not isinstance(game, (Game, str)):
            raise ValueError(f"{self.name} option game must be an odd_env.game.Game, a game name or None, "
                             f"got {type(game).__name__}")
        if isinstance(game, str):
            game = make_game(game)
        if game is None and geometry is not None:
            game = make_game(geometry.game, geometry.size)
        self.game = game
        """The game this agent is tied to (a trained network) or plays from observations; None: any."""
        self.geometry = geometry
        self.seed = None if seed is None else check_int(f"{self.name} option seed", seed, 0)
        self.rng = np.random.default_rng(self.seed)

    # ------------------------------------------------------------ the interface
    def act(self, state: Position) -> int:
        """A legal action for the player to act in ``state`` (which is left unchanged)."""
        raise NotImplementedError

    def reset(self, seed: int | None = None) -> None:
        """Forget any game in progress; reseed when ``seed`` (an integer >= 0) is given.

        A bad seed raises ValueError before anything changes (subclasses call this first)."""
        if seed is not None:
            seed = check_int(f"{self.name} reset seed", seed, 0)
            self.seed = seed
            self.rng = np.random.default_rng(seed)

    def get_state(self) -> dict[str, Any]:
        """Plain values (JSON-able) from which :meth:`set_state` restores this agent's random
        generators and any turn in progress, on an agent built with the same options.

        What a training checkpoint stores for a scripted opponent, so that a
        resumed run plays on exactly as the uninterrupted one would.
        """
        return {"rng": self.rng.bit_generator.state}

    def set_state(self, state: Mapping[str, Any]) -> None:
        """Restore what :meth:`get_state` returned (ValueError if it does not fit this agent)."""
        try:
            saved = dict(state["rng"])
            type(self.rng.bit_generator)().state = saved  # checked on a scratch generator: a refusal changes nothing
        except (KeyError, TypeError, ValueError) as err:
            raise ValueError(f"bad saved state for agent {self.label}: {err!r}") from err
        self.rng.bit_generator.state = saved

    def __call__(self, observation: Any, action_mask: np.ndarray | None = None) -> int:
        """Act on an environment observation: the planes (or the observation dict) and the mask.

        The mask, when given, must be the legal actions of the position the
        planes show (ValueError naming the actions where it differs, before
        the agent thinks); an action outside it raises ``RuntimeError`` (it
        would mean a bug, not a choice).
        """
        if isinstance(observation, Mapping):
            if "observation" not in observation:
                raise ValueError(f"an observation dict holds 'observation' (and 'action_mask'), got keys "
                                 f"{list(observation)!r}")
            if action_mask is None:
                action_mask = observation.get("action_mask")
            observation = observation["observation"]
        planes = np.asarray(observation)
        game = self.game if self.game is not None else infer_game(planes)
        if action_mask is not None:
            action_mask = np.asarray(action_mask)
            if action_mask.shape != (game.num_actions,):
                raise ValueError(f"the action mask of {game.label} has shape ({game.num_actions},), "
                                 f"got {action_mask.shape}")
            if not action_mask.any():
                raise ValueError("the action mask allows no action: the game is over (or the mask is not "
                                 "this player's)")
        state = game.from_observation(planes)
        if action_mask is not None:
            legal = state.legal_action_mask().astype(bool)
            differ = np.flatnonzero(action_mask.astype(bool) != legal)
            if len(differ):
                shown = ", ".join(f"{int(a)} ({'legal' if legal[a] else 'illegal'})" for a in differ[:5])
                raise ValueError(f"the action mask is not that of the position the planes show: it differs at "
                                 f"{len(differ)} action(s), {shown}{', ...' if len(differ) > 5 else ''}")
        action = int(self.act(state))
        if action_mask is not None and not action_mask[action]:
            raise RuntimeError(f"{self.label} chose action {action}, which the action mask forbids")
        return action

    def cannot_play(self, game: Game) -> str | None:
        """Why this agent cannot play ``game`` at all (before any game starts), or None; e.g. the
        greedy player counts Xodd/Yodd groups. Override in agents limited to some games."""
        return None

    # ------------------------------------------------------------ description
    @property
    def options(self) -> dict[str, Any]:
        """The options that rebuild this agent with ``agents.load(name, **options)``."""
        return {"seed": self.seed}

    @property
    def label(self) -> str:
        """A short display name: the registry name and any non-default options."""
        return self.name

    @property
    def network_sha256(self) -> str | None:
        """The sha256 of the network file this agent plays with (a checkpoint's or a pretrained
        network's), or None: what tells two agents with the same options but other weights apart
        (the arena's journal records it)."""
        return None

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self.options.items())
        return f"{type(self).__name__}({opts})"
