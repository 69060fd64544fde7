"""The game interface: what agents, the arena and trainers may rely on.

Everything above the rules (players, search, the arena, the PPO trainer, the
play front ends) talks to a game through two small objects, split as
OpenSpiel and Pgx split them:

* a :class:`Game`: the game and its parameters (name, board size, variant),
  the sizes of its spaces and how the network should read them, and factories
  for positions and batched engines. One immutable value per game and
  parameters, built by :func:`make` (cached);
* a :class:`Position`: one position of that game, a value that can be copied
  cheaply, stepped and read. Each game's rules core provides its own class
  (:class:`odd_env.core.state.GameState` for Xodd and Yodd).

And, for training, a :class:`BatchEngine`: ``B`` games of one :class:`Game`
stepped in lockstep (:class:`odd_env.OddBatch` for Xodd and Yodd).

The layering goes one way: the games know nothing of agents, and agents
import nothing game-specific except through this module (greedy, an
Xodd/Yodd-only player, is the one exception and says so).

Conventions shared by every game:

* players are numbered in the order they move first: 0 is the first player
  (Black in Xodd/Yodd, White in YINSH), 1 the second; :attr:`Game.player_names`
  gives their names;
* actions are integers in ``[0, num_actions)``: ``point_planes`` blocks of
  ``H * W`` point actions (block ``k`` holds action ``k * H * W + cell``) and one
  last action (pass, or end turn), so a network can produce them as
  ``point_planes`` logit planes plus one logit;
* observations are ``int8[C, H, W]`` planes from the side of the player who
  must decide; plane :attr:`Game.onboard_plane` marks the playable points;
* rewards are +1 to the winner and -1 to the loser when the game ends, 0 to
  both on a draw and before the end.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable, NamedTuple, Protocol, runtime_checkable

import numpy as np


# ================================================================= a position
@runtime_checkable
class Position(Protocol):
    """One position of a game: the contract every game's position class meets.

    A position is mutable only through :meth:`apply`; everything else reads.
    """

    @property
    def game(self) -> Game:
        """The :class:`Game` this is a position of."""

    @property
    def to_move(self) -> int:
        """The player who must decide now (0 first player, 1 second)."""

    @property
    def is_terminal(self) -> bool:
        """True once the game is over."""

    @property
    def winner(self) -> int | None:
        """The winner (0 or 1); None while the game runs and on a draw."""

    def returns(self) -> tuple[float, float]:
        """Rewards of players 0 and 1: +1/-1 at the end, (0, 0) on a draw or before the end."""

    def legal_action_mask(self) -> np.ndarray:
        """int8[num_actions]: 1 where the action is legal for :attr:`to_move` (may be read-only)."""

    def legal_actions(self) -> np.ndarray:
        """Indices of the legal actions, ascending."""

    def why_illegal(self, action: object) -> str | None:
        """None if ``action`` is legal here, else a sentence saying why not."""

    def apply(self, action: int) -> Position:
        """Play ``action`` in place and return self; ValueError (nothing changed) if illegal."""

    def child(self, action: int) -> Position:
        """A copy with ``action`` played."""

    def copy(self) -> Position:
        """An independent copy (cheap: search clones positions all the time)."""

    def observation(self, viewer: int | None = None, out: np.ndarray | None = None) -> np.ndarray:
        """int8[C, H, W] planes from ``viewer``'s side (default: the player to decide)."""

    def key(self) -> bytes:
        """Bytes that identify the position for the rules (equal keys: same legal futures)."""


# ============================================================ batched engines
class BatchStep(NamedTuple):
    """The outputs of a :class:`BatchEngine`'s ``reset`` and ``step`` (engine buffers).

    ``observation`` int8[B, C, H, W] and ``action_mask`` int8[B, A] for the
    player to decide next in each game; ``reward`` float32[B] from the side of
    the player who just acted; ``terminated`` bool[B]; ``to_play`` int8[B];
    ``info`` with ``final_obs`` (the last observation of a game that just
    ended, from the side of the player who ended it), ``final_rewards``
    float32[B, 2] (both players' rewards, by player number) and ``_final_obs``
    (the games they are valid for).
    """

    observation: Any
    action_mask: Any
    reward: Any
    terminated: Any
    to_play: Any
    info: dict


@runtime_checkable
class BatchEngine(Protocol):
    """``num_games`` games of one :class:`Game` stepped in lockstep.

    A finished game is reset in the same step (Gymnasium's same-step
    autoreset); its final observation and rewards are in ``info``. Outputs
    are the engine's own buffers, overwritten by the next call.
    """

    game: Any
    num_games: int
    num_actions: int

    def reset(self, seed: int | None = None) -> BatchStep:
        """Start every game anew."""

    def step(self, actions: Any) -> BatchStep:
        """Play one action in every game; ValueError naming the game (no game changed) if any is illegal."""

    @property
    def last(self) -> BatchStep:
        """The outputs of the latest ``reset`` or ``step``."""

    def random_actions(self, rng: np.random.Generator) -> np.ndarray:
        """A uniformly random legal action for every game (reproducible under ``rng``)."""

    def game_state(self, index: int) -> Position:
        """A copy of game ``index`` as a position."""

    def get_states(self) -> np.ndarray:
        """A copy of every game's state (for checkpoints)."""

    def set_states(self, states: np.ndarray) -> BatchStep:
        """Continue from states saved by :meth:`get_states` (validated: ValueError if impossible)."""


# ==================================================================== a game
@dataclass(frozen=True, eq=False)
class Game:
    """A game and its parameters: the sizes of its spaces and factories for positions.

    Build one with :func:`make`; two calls with the same arguments return the
    same object, so ``is`` compares games.
    """

    name: str
    """The game's registry name: ``"xodd"``, ``"yodd"``, ``"yinsh"``."""
    size: int
    """The board size parameter (Xodd side, Yodd base; YINSH has one board: 0)."""
    variant: str
    """A variant name (``""`` for the standard game; ``"blitz"`` for YINSH blitz)."""
    height: int
    width: int
    num_planes: int
    """C, the number of observation planes."""
    point_planes: int
    """Point-action blocks: ``num_actions == point_planes * height * width + 1``."""
    hexagonal: bool
    """True when the H x W array is a hex grid (neighbours (0, +-1), (+-1, 0), (-1, +1), (+1, -1)):
    3x3 convolution kernels should drop the corners (-1, -1) and (+1, +1)."""
    onboard_plane: int
    """The observation plane that is 1 on playable points."""
    onboard: np.ndarray = field(repr=False)
    """bool[H * W]: the playable points of the array."""
    observation_version: int
    """Bumped whenever the meaning of the observation planes changes."""
    player_names: tuple[str, str]
    """Names of players 0 and 1 (e.g. ``("black", "white")``)."""
    new_state: Callable[[], Position] = field(repr=False)
    """A position at the start of a game."""
    new_batch: Callable[..., BatchEngine] = field(repr=False)
    """``new_batch(num_games, as_torch=False)``: a batched engine of this game."""
    from_observation: Callable[[np.ndarray], Position] = field(repr=False)
    """The position seen in the planes of the player to decide (ValueError if impossible)."""
    action_to_string: Callable[[Position, int], str] = field(repr=False)
    """The notation of an action in a position (``"Bc4"``, ``"E4-E10"``...)."""
    parse_action: Callable[[Position, str], int] = field(repr=False)
    """The action an action name denotes in a position (the inverse of :attr:`action_to_string`)."""
    summary: Callable[[Position], dict] = field(repr=False)
    """Game-specific counts of a position as a plain dict (Xodd/Yodd: groups of each colour, turns)."""
    record: Callable[..., Any] = field(repr=False)
    """``record(actions)``: the game record (``.to_text()``, ``.save(path)``) of a game played from the start."""
    extra: dict = field(default_factory=dict, repr=False)
    """Game-specific facts (e.g. ``{"geometry": Geometry}`` for Xodd/Yodd)."""

    @property
    def num_actions(self) -> int:
        """Size of the action space."""
        return self.point_planes * self.height * self.width + 1

    @property
    def observation_shape(self) -> tuple[int, int, int]:
        """(C, H, W)."""
        return (self.num_planes, self.height, self.width)

    @property
    def label(self) -> str:
        """A short readable name: ``"xodd 9"``, ``"yinsh blitz"``."""
        parts = [self.name]
        if self.size:
            parts.append(str(self.size))
        if self.variant:
            parts.append(self.variant)
        return " ".join(parts)

    def __repr__(self) -> str:
        return f"Game({self.label!r})"

    def __reduce__(self):
        # Interned: unpickling (e.g. in an arena worker) returns the cached instance.
        return (make, (self.name, self.size, self.variant))


# ================================================================ registry
GameFactory = Callable[..., Game]
_FACTORIES: dict[str, str] = {
    "xodd": "odd_env.game:_odd_game",
    "yodd": "odd_env.game:_odd_game",
    "yinsh": "odd_env.game:_yinsh_game",
}
_CACHE: dict[tuple, Game] = {}


def _odd_game(name: str, size: int | None = None, variant: str = "") -> Game:
    """Xodd or Yodd at ``size`` (default 9 and 6)."""
    from . import notation
    from .batch import OddBatch
    from .core.geometry import geometry
    from .core.state import NUM_PLANES, OBSERVATION_VERSION, GameState
    from .records import GameRecord

    if variant:
        raise ValueError(f"{name} has no variants, got variant={variant!r}")
    g = geometry(name, (9 if name == "xodd" else 6) if size is None else size)

    def own(state: Any) -> GameState:
        """``state`` if it is a position of this game and board, else ValueError."""
        if not isinstance(state, GameState) or state.geometry is not g:
            what = state.game.label if hasattr(state, "game") else type(state).__name__
            raise ValueError(f"a position of {g.game} {g.size} is needed, got one of {what}")
        return state

    return Game(
        name=g.game, size=g.size, variant="", height=g.height, width=g.width,
        num_planes=NUM_PLANES, point_planes=2, hexagonal=g.kind == "hex", onboard_plane=3,
        onboard=g.onboard, observation_version=OBSERVATION_VERSION,
        player_names=("black", "white"), new_state=lambda: GameState(g),
        new_batch=lambda num_games, as_torch=False: OddBatch(g.game, g.size, num_games, as_torch=as_torch),
        from_observation=lambda planes: GameState.from_observation(g, planes),
        action_to_string=lambda state, a: notation.action_name(own(state), a),
        parse_action=lambda state, text: notation.parse_action(own(state), text),
        summary=lambda s: {"black_groups": own(s).group_counts[0], "white_groups": s.group_counts[1],
                           "turns": s.turn},
        record=lambda actions: GameRecord.from_actions(g, actions),
        extra={"geometry": g, "solver": "odd_env.games.odd.solver"},
    )


def _yinsh_game(name: str, size: int | None = None, variant: str = "") -> Game:
    """YINSH (one board: ``size`` None or 0), standard or ``variant="blitz"`` (one ring wins)."""
    from .core.yinsh import NUM_PLANES, OBSERVATION_VERSION, PLAYER_NAMES, YinshState
    from .records import YinshRecord
    from .yinsh_batch import YinshBatch

    if size not in (None, 0):
        raise ValueError(f"YINSH has one board: give no size (or 0), got {size!r}")
    if variant not in ("", "blitz"):
        raise ValueError(f"YINSH variants are '' (standard) and 'blitz', got {variant!r}")
    blitz = variant == "blitz"
    board = YinshState.geometry
    label = "yinsh blitz" if blitz else "yinsh"

    def own(state: Any) -> YinshState:
        """``state`` if it is a position of this game (and variant), else ValueError."""
        if not isinstance(state, YinshState) or state.blitz != blitz:
            what = state.game.label if hasattr(state, "game") else type(state).__name__
            raise ValueError(f"a position of {label} is needed, got one of {what}")
        return state

    return Game(
        name="yinsh", size=0, variant=variant, height=board.height, width=board.width,
        num_planes=NUM_PLANES, point_planes=4, hexagonal=True, onboard_plane=4, onboard=board.onboard,
        observation_version=OBSERVATION_VERSION, player_names=PLAYER_NAMES,
        new_state=lambda: YinshState(blitz=blitz),
        new_batch=lambda num_games, as_torch=False: YinshBatch(num_games, blitz=blitz, as_torch=as_torch),
        from_observation=lambda planes: YinshState.from_observation(planes, blitz=blitz),
        action_to_string=lambda state, a: own(state).action_to_string(a),
        parse_action=lambda state, text: own(state).parse_action(text),
        summary=lambda s: {"white_rings_removed": own(s).rings_removed[0], "black_rings_removed": s.rings_removed[1],
                           "pool": s.pool, "moves": s.moves_played},
        record=lambda actions: YinshRecord.from_actions(actions, blitz=blitz),
        extra={"geometry": board},
    )


def register(name: str, factory: str, *, overwrite: bool = False) -> None:
    """Register a game: ``factory`` is ``"module:function"``, called as ``function(name, size=, variant=)``
    on the first :func:`make` of the game (which says so if it cannot be imported). A registered
    name is replaced only with ``overwrite=True``."""
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"a game name must be an identifier, got {name!r}")
    module, colon, attr = factory.partition(":") if isinstance(factory, str) else ("", "", "")
    if not (colon and module and attr and attr.isidentifier()):
        raise ValueError(f"the factory of game {name!r} must be 'module:function', got {factory!r}")
    if name in _FACTORIES and not overwrite:
        raise ValueError(f"a game named {name!r} is registered already ({_FACTORIES[name]}): pass overwrite=True "
                         "to replace it")
    _FACTORIES[name] = factory
    for key in [k for k in _CACHE if k[0] == name]:  # games made by the factory it replaces
        del _CACHE[key]


def available_games() -> list[str]:
    """The registered game names."""
    return sorted(_FACTORIES)


def make(name: str, size: int | None = None, variant: str = "") -> Game:
    """The :class:`Game` ``name`` with its parameters (default size when ``size`` is None).

    ``make("xodd", 9)``, ``make("yodd", 6)``, ``make("yinsh", variant="blitz")``.
    A :class:`Game` passed as ``name`` is returned as it is; a ``size`` or ``variant`` given
    with it must be its own. Raises ValueError naming the allowed values for an unknown
    game, size or variant.
    """
    if isinstance(name, Game):
        if (size is not None and size != name.size) or (variant and variant != name.variant):
            raise ValueError(f"make({name!r}, size={size!r}, variant={variant!r}): that game has size "
                             f"{name.size} and variant {name.variant!r}; pass its name ({name.name!r}) "
                             "to make another size or variant")
        return name
    if not isinstance(name, str) or name not in _FACTORIES:
        raise ValueError(f"unknown game {name!r}; available: {', '.join(available_games())}")
    # Checked before the cache, whose keys would take 7.0 for 7 (and fail on a list).
    if size is not None:
        if isinstance(size, (bool, np.bool_)) or not isinstance(size, (int, np.integer)):
            raise ValueError(f"{name} size must be an integer (or None for the default), "
                             f"got {type(size).__name__}: {size!r}")
        size = int(size)
    if not isinstance(variant, str):
        raise ValueError(f"{name} variant must be a string ('' for the standard game), "
                         f"got {type(variant).__name__}: {variant!r}")
    key = (name, size, variant)
    game = _CACHE.get(key)
    if game is None:
        module, _, attr = _FACTORIES[name].partition(":")
        try:
            factory = getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError) as exc:
            raise ValueError(f"game {name!r} is registered as {_FACTORIES[name]!r}, which cannot be loaded: "
                             f"{exc}") from exc
        built = factory(name, size=size, variant=variant)
        if not isinstance(built, Game):
            raise ValueError(f"the factory of game {name!r} ({_FACTORIES[name]}) returned "
                             f"{type(built).__name__}, not a Game")
        game = _CACHE.setdefault((name, built.size, built.variant), built)  # one object per game
        _CACHE[key] = game
    return game


__all__ = ["BatchEngine", "BatchStep", "Game", "Position", "available_games", "make", "register"]
