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
  (:class:`odd_env.games.odd.state.GameState` for Xodd and Yodd).

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


# ================================================================ heuristics
@runtime_checkable
class Heuristics(Protocol):
    """Cheap, compiled game knowledge that search uses where a game offers it (:attr:`Game.heuristics`).

    A game without heuristics is searched with random rollouts through the :class:`Position` API
    and uniform priors; nothing else changes.
    """

    greedy: bool
    """True when :meth:`rollout` can play a greedy policy and :meth:`prior_scores` exists."""

    def rollout(self, position: Position, rng_state: np.ndarray, greedy: bool, epsilon: float) -> int:
        """Play a copy of ``position`` to the end; return the winner (0 or 1, -1 on a draw).

        ``rng_state`` is the uint64[1] state of :mod:`odd_env.common.xorshift` (advanced in
        place); ``greedy`` plays the game's greedy policy with a random step instead with
        probability ``epsilon``; otherwise uniform random steps."""

    def prior_scores(self, position: Position, actions: np.ndarray) -> np.ndarray:
        """float64[len(actions)]: a score per legal action (higher is better) for search priors."""

    def decided_action(self, position: Position) -> int | None:
        """An action that needs no search (e.g. a pass that ends the game with a win), or None."""

    def balance(self, position: Position) -> float:
        """A material balance for the player to act (Xodd/Yodd: the group counts), 0 if none."""


# ============================================================ compiled rules
class CompiledRules(NamedTuple):
    """A game's rules as numba-compiled functions on one position: what a compiled search calls
    without going through Python per node (:attr:`Game.compiled`).

    A position here is a flat ``int32[state_size]`` array (the ``data`` of the game's
    :class:`Position`). Every kernel takes the position first and the game's constant
    ``tables`` (a tuple of arrays, or of numbers, fixed per game and parameters) second, so one
    search compiled against these signatures serves every game. The kernels trust their
    input: an action given to ``apply`` must be legal (``legal_mask``), and a position must
    come from ``new_state``, ``apply`` or :attr:`encode`.

    * ``new_state(tables) -> int32[state_size]``: the start position;
    * ``legal_mask(s, tables, mask) -> int``: write the legal-action mask of the player to decide
      into ``mask`` (``int8[num_actions]``); return the number of legal actions (0 once over);
    * ``legal_actions(s, tables, actions) -> int``: write the legal actions into
      ``actions`` (``int32[num_actions]``, the first ``count`` entries); return ``count``;
    * ``apply(s, tables, action)``: play ``action`` for the player to decide, in place;
    * ``is_terminal(s, tables) -> bool``; ``to_move(s, tables) -> int``: the player who decides
      now (0 or 1, as in :attr:`Game.player_names`);
    * ``returns(s, tables) -> (float, float)``: the rewards of players 0 and 1 (+1/-1 at the
      end, 0 on a draw and before the end);
    * ``observe(s, tables, viewer, obs)``: write the planes of player ``viewer`` into ``obs``
      (``int8[num_planes, height * width]``, C-contiguous): the planes
      ``Position.observation(viewer)`` gives, flattened.

    ``encode(position)`` and ``decode(array)`` are plain Python: a copy of a :class:`Position`'s
    array, and the :class:`Position` of an array (checked: ValueError if play cannot reach it).
    """

    state_size: int
    num_actions: int
    max_legal: int
    """The most legal actions any position has (room to reserve per node)."""
    num_planes: int
    height: int
    width: int
    tables: tuple
    new_state: Callable
    legal_mask: Callable
    legal_actions: Callable
    apply: Callable
    is_terminal: Callable
    to_move: Callable
    returns: Callable
    observe: Callable
    encode: Callable[[Position], np.ndarray]
    decode: Callable[[np.ndarray], Position]


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
    load_record: Callable[..., Any] = field(repr=False)
    """``load_record(path)``: a saved record of this game (any size or variant: the file says which),
    with ``.actions`` and ``.state``; ValueError naming the file and line if it is bad."""
    to_text: Callable[[Position], str] = field(repr=False)
    """The position as a text board (what the terminal shows)."""
    to_svg: Callable[..., str] = field(repr=False)
    """``to_svg(position, **options)``: the position as SVG (what Jupyter shows)."""
    front_end: Callable[[], Any] = field(repr=False)
    """A new :class:`odd_env.common.front.FrontEnd` of this game: what the terminal and the
    Jupyter board need to read, show and click moves."""
    compiled: Callable[[], CompiledRules] | None = field(default=None, repr=False)
    """``compiled()``: the game's rules as compiled kernels for compiled search (:class:`CompiledRules`;
    the first call may compile for some seconds), or None where the game has none."""
    heuristics: Any = field(default=None, repr=False)
    """Cheap game knowledge for search (:class:`Heuristics`), or None: search then plays random
    rollouts through the :class:`Position` API."""
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
_FACTORIES: dict[str, str] = {}
"""Registered games: name -> ``"module:function"``, imported on the first :func:`make` of the game.
The games of the package register themselves in :mod:`odd_env.games`."""
_INFER: dict[str, str] = {}
"""Game name -> ``"module:function"`` recognising its observation planes (see :func:`register`)."""
_CACHE: dict[tuple, Game] = {}


def _check_entry(name: str, entry: Any, what: str) -> None:
    module, colon, attr = entry.partition(":") if isinstance(entry, str) else ("", "", "")
    if not (colon and module and attr and attr.isidentifier()):
        raise ValueError(f"the {what} of game {name!r} must be 'module:function', got {entry!r}")


def _load_entry(name: str, entry: str) -> Callable[..., Any]:
    module, _, attr = entry.partition(":")
    try:
        return getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"game {name!r} is registered as {entry!r}, which cannot be loaded: {exc}") from exc


def register(name: str, factory: str, *, infer: str | None = None, overwrite: bool = False) -> None:
    """Register a game: ``factory`` is ``"module:function"``, called as ``function(name, size=, variant=)``
    on the first :func:`make` of the game (which says so if it cannot be imported). ``infer``,
    also ``"module:function"``, takes observation planes and returns the :class:`Game` they
    belong to or None (for :func:`infer_game`, where a game has several sizes). A registered
    name is replaced only with ``overwrite=True``."""
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"a game name must be an identifier, got {name!r}")
    _check_entry(name, factory, "factory")
    if infer is not None:
        _check_entry(name, infer, "infer function")
    if name in _FACTORIES and not overwrite:
        raise ValueError(f"a game named {name!r} is registered already ({_FACTORIES[name]}): pass overwrite=True "
                         "to replace it")
    _FACTORIES[name] = factory
    _INFER.pop(name, None)
    if infer is not None:
        _INFER[name] = infer
    for key in [k for k in _CACHE if k[0] == name]:  # games made by the factory it replaces
        del _CACHE[key]


def unregister(name: str) -> None:
    """Remove a registered game (and the games made of it); ValueError if ``name`` is not registered."""
    if name not in _FACTORIES:
        raise ValueError(f"no game named {name!r} is registered; registered: {', '.join(available_games())}")
    del _FACTORIES[name]
    _INFER.pop(name, None)
    for key in [k for k in _CACHE if k[0] == name]:
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
        built = _load_entry(name, _FACTORIES[name])(name, size=size, variant=variant)
        if not isinstance(built, Game):
            raise ValueError(f"the factory of game {name!r} ({_FACTORIES[name]}) returned "
                             f"{type(built).__name__}, not a Game")
        game = _CACHE.setdefault((name, built.size, built.variant), built)  # one object per game
        _CACHE[key] = game
    return game


def infer_game(planes: np.ndarray) -> Game:
    """The game whose observation planes ``(C, H, W)`` these are (for players given only observations).

    A game registered with an ``infer`` function decides for itself (Xodd and Yodd read the
    board size off the planes, YINSH the variant); any other game is recognised by the
    observation shape of its default :func:`make`. ValueError if no game fits.
    """
    planes = np.asarray(planes)
    if planes.ndim != 3:
        raise ValueError(f"expected observation planes of shape (C, H, W), got {planes.shape}")
    for name in available_games():
        if name in _INFER:
            game = _load_entry(name, _INFER[name])(planes)
            if game is not None:
                return game
            continue
        try:
            game = make(name)
        except ValueError:
            continue
        if game.observation_shape == planes.shape:
            return game
    raise ValueError(f"no game has observations of shape {planes.shape}; pass game= to the agent")


__all__ = ["BatchEngine", "BatchStep", "CompiledRules", "Game", "Heuristics", "Position", "available_games", "infer_game", "make",
           "register", "unregister"]
