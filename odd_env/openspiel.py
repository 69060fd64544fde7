"""Xodd, Yodd and YINSH as OpenSpiel games (``pip install "odd-env[openspiel]"``).

Importing this module registers three Python games with OpenSpiel, so that
OpenSpiel's own algorithms, bots and tests run on them::

    import pyspiel
    import odd_env.openspiel  # registers the games

    game = pyspiel.load_game("odd_env_xodd(board_size=5)")
    game = pyspiel.load_game("odd_env_yodd(board_size=4)")
    game = pyspiel.load_game("odd_env_yinsh(blitz=true)")   # blitz=false (default): the standard game

============================  ==========================================  ===================
OpenSpiel name                odd_env game                                parameters (default)
============================  ==========================================  ===================
``odd_env_xodd``              ``odd_env.game.make("xodd", board_size)``   ``board_size`` (9)
``odd_env_yodd``              ``odd_env.game.make("yodd", board_size)``   ``board_size`` (6)
``odd_env_yinsh``             ``make("yinsh", variant="blitz" or "")``     ``blitz`` (false)
============================  ==========================================  ===================

Everything is read through the public game interface of :mod:`odd_env.game`
(a :class:`~odd_env.game.Game` and its positions), so the games are the
library's own, with its rules engine underneath:

* players: OpenSpiel player 0 is the library's player 0, the first to move
  (Black in Xodd/Yodd, White in YINSH); :attr:`Game.player_names` names them;
* actions: the library's action integers, unchanged
  (``num_distinct_actions() == game.num_actions``); ``legal_actions()`` is the
  position's ``legal_actions()``; ``action_to_string`` is the library's
  notation (``"Bc4"``, ``"pass"``, ``"E4-E10"``...);
* one OpenSpiel move is one library step (one decision): a turn of Xodd or
  Yodd is one or two moves by the same player, a turn of YINSH several (choose
  a ring, its destination, rows and rings to remove). OpenSpiel's sequential
  games allow a player to move several times in a row; ``current_player()``
  says who decides;
* observations: ``observation_tensor(player)`` is the position's
  ``observation(viewer=player)`` (``int8[C, H, W]`` planes as float32, flattened
  in C order; ``observation_tensor_shape() == game.observation_shape``);
  ``observation_string`` and ``str(state)`` name the position and the moves
  that led to it;
* perfect information, deterministic, zero-sum, terminal rewards: +1 to the
  winner, -1 to the loser, 0 to both on a draw (YINSH only; Xodd and Yodd have
  no draws);
* ``max_game_length()`` is a proven bound on the number of moves (see
  :func:`max_game_length`).

States clone by copying the library's position (cheap), and serialize and
pickle (OpenSpiel pickles the position, which the library supports).
"""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    import pyspiel
    from open_spiel.python.observation import IIGObserverForPublicInfoGame
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "odd_env.openspiel needs OpenSpiel: pip install \"odd-env[openspiel]\" (or pip install open-spiel)"
    ) from exc

from .game import Game as OddGame
from .game import make

YINSH_POOL = 51
"""Markers in a YINSH pool (docs/rules/yinsh.md section 2.5)."""

YINSH_RINGS = 10
"""Rings placed at the start of YINSH (5 a side)."""


def max_game_length(game: OddGame) -> int:
    """An upper bound on the number of steps (decisions) of a game of ``game``.

    Xodd and Yodd, ``n`` cells: Black's first turn is one step; every other
    turn that is not a pass is exactly two steps (two stones, or a stone and
    end turn) and fills at least one cell, so there are ``T <= n`` of them;
    between two of them there is at most one pass (two passes in a row end the
    game), and the game ends with two passes: at most ``T + 1`` passes. In all
    ``1 + 2 (T - 1) + T + 1 = 3 T <= 3 n`` steps.

    YINSH, ``k`` rings to win (3, blitz 1): at most ``R = 2 (k - 1) + 1`` rings
    are removed (the first player to remove ``k`` wins at once), each with two
    steps (the row, then the ring). Every move takes a marker from the pool of
    51, and only a removed row gives markers back (5), the last removal being
    the end of the game: at most ``M = 51 + 5 (R - 1)`` moves of two steps (ring,
    destination). A player passes only without a movable ring, and two passes
    in a row end the game: at most ``M + 2`` passes. With the 10 ring
    placements: ``10 + 2 M + (M + 2) + 2 R`` steps (235 standard, 167 blitz).
    """
    if game.name in ("xodd", "yodd"):
        return 3 * int(np.count_nonzero(game.onboard))
    if game.name == "yinsh":
        to_win = 1 if game.variant == "blitz" else 3
        removals = 2 * (to_win - 1) + 1
        moves = YINSH_POOL + 5 * (removals - 1)
        return YINSH_RINGS + 2 * moves + (moves + 2) + 2 * removals
    raise ValueError(f"no OpenSpiel bound for game {game.name!r}")


class _Box:
    """Holds a library position in a state's ``__dict__``.

    OpenSpiel clones a Python state by deep-copying each attribute of its
    ``__dict__``; the box makes that the position's own cheap ``copy()``.
    Pickling (OpenSpiel's serialization) pickles the position.
    """

    __slots__ = ("pos",)

    def __init__(self, pos: Any):
        self.pos = pos

    def __deepcopy__(self, memo: dict) -> _Box:
        return _Box(self.pos.copy())

    def __reduce__(self):
        return (_Box, (self.pos,))


def _game_type(short_name: str, long_name: str, parameters: dict[str, Any]) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=short_name,
        long_name=long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameters,
    )


class _OddSpielGame(pyspiel.Game):
    """An odd_env game as an OpenSpiel game (one subclass per registered name)."""

    GAME_TYPE: pyspiel.GameType

    @staticmethod
    def _make(params: dict[str, Any]) -> OddGame:  # pragma: no cover - overridden
        raise NotImplementedError

    def __init__(self, params: dict[str, Any] | None = None):
        params = {**self.GAME_TYPE.parameter_specification, **(params or {})}
        odd = self._make(params)
        info = pyspiel.GameInfo(
            num_distinct_actions=odd.num_actions,
            max_chance_outcomes=0,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=max_game_length(odd),
        )
        super().__init__(self.GAME_TYPE, info, params)
        self.odd_game = odd
        """The :class:`odd_env.game.Game` played."""

    def new_initial_state(self, state: Any = None) -> OddSpielState:
        """A state at the start of a game (``state`` is not supported: replay the actions instead)."""
        if state is not None:
            raise ValueError("odd_env games start from the initial position only: apply the actions to it")
        return OddSpielState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        """The observer of the library's observation planes (perfect information)."""
        if iig_obs_type is None or (iig_obs_type.public_info and not iig_obs_type.perfect_recall):
            return PlanesObserver(self.odd_game, params)
        return IIGObserverForPublicInfoGame(iig_obs_type, params)


class OddSpielState(pyspiel.State):
    """A position of an odd_env game as an OpenSpiel state.

    ``state.position`` is the library's position (read it; change it only
    through ``apply_action``, which keeps OpenSpiel's history in step).
    """

    def __init__(self, game: _OddSpielGame):
        super().__init__(game)
        self._box = _Box(game.odd_game.new_state())

    @property
    def position(self) -> Any:
        """The library's position (:class:`odd_env.game.Position`)."""
        return self._box.pos

    # ---------------------------------------------------- OpenSpiel's API
    def current_player(self) -> int:
        pos = self._box.pos
        return pyspiel.PlayerId.TERMINAL if pos.is_terminal else int(pos.to_move)

    def _legal_actions(self, player: int) -> list[int]:
        pos = self._box.pos
        if pos.is_terminal or player != pos.to_move:
            return []
        return pos.legal_actions().tolist()

    def _apply_action(self, action: int) -> None:
        self._box.pos.apply(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        pos = self._box.pos
        if not pos.is_terminal and player == pos.to_move:
            try:
                return pos.game.action_to_string(pos, int(action))
            except ValueError:
                pass
        return f"action {int(action)}"

    def is_terminal(self) -> bool:
        return bool(self._box.pos.is_terminal)

    def returns(self) -> list[float]:
        return [float(r) for r in self._box.pos.returns()]

    def __str__(self) -> str:
        """The position (the library's summary line) and the moves that led to it, in notation."""
        pos = self._box.pos
        game = pos.game
        replay = game.new_state()
        names = []
        for action in self.history():
            names.append(game.action_to_string(replay, action))
            replay.apply(action)
        return f"{pos!r}\nmoves: {' '.join(names) if names else '-'}"


class PlanesObserver:
    """OpenSpiel observer of the library's ``observation(viewer)`` planes (as float32)."""

    def __init__(self, odd_game: OddGame, params: dict | None):
        if params:
            raise ValueError(f"odd_env observers take no parameters, got {params}")
        shape = tuple(odd_game.observation_shape)
        self.tensor = np.zeros(int(np.prod(shape)), np.float32)
        self.dict = {"observation": self.tensor.reshape(shape)}
        self._planes = np.empty(shape, np.int8)

    def set_from(self, state: OddSpielState, player: int) -> None:
        """Fill the tensor with the planes of ``state`` from ``player``'s side."""
        state._box.pos.observation(int(player), out=self._planes)
        np.copyto(self.dict["observation"], self._planes, casting="unsafe")

    def string_from(self, state: OddSpielState, player: int) -> str:
        """The position (perfect information: the same for both players)."""
        return str(state)


# ------------------------------------------------------------ registration
class XoddSpielGame(_OddSpielGame):
    """Xodd on an ``board_size`` x ``board_size`` board (``odd_env_xodd``)."""

    GAME_TYPE = _game_type("odd_env_xodd", "Xodd (odd_env)", {"board_size": 9})

    @staticmethod
    def _make(params: dict[str, Any]) -> OddGame:
        return make("xodd", int(params["board_size"]))


class YoddSpielGame(_OddSpielGame):
    """Yodd on the hexhex board of base ``board_size`` (``odd_env_yodd``)."""

    GAME_TYPE = _game_type("odd_env_yodd", "Yodd (odd_env)", {"board_size": 6})

    @staticmethod
    def _make(params: dict[str, Any]) -> OddGame:
        return make("yodd", int(params["board_size"]))


class YinshSpielGame(_OddSpielGame):
    """YINSH, standard or blitz (``odd_env_yinsh(blitz=true)``)."""

    GAME_TYPE = _game_type("odd_env_yinsh", "YINSH (odd_env)", {"blitz": False})

    @staticmethod
    def _make(params: dict[str, Any]) -> OddGame:
        return make("yinsh", variant="blitz" if params["blitz"] else "")


GAMES = {cls.GAME_TYPE.short_name: cls for cls in (XoddSpielGame, YoddSpielGame, YinshSpielGame)}
"""The registered OpenSpiel names and their game classes."""

_registered = {g.short_name for g in pyspiel.registered_games()}
for _name, _cls in GAMES.items():
    if _name not in _registered:  # registering twice is an error in OpenSpiel
        pyspiel.register_game(_cls.GAME_TYPE, _cls)
del _registered


def load_game(name: str, size: int | None = None, variant: str = "") -> pyspiel.Game:
    """The OpenSpiel game of an odd_env game by the library's own arguments.

    ``load_game("xodd", 5)``, ``load_game("yinsh", variant="blitz")``; the same as
    ``pyspiel.load_game("odd_env_xodd(board_size=5)")``.
    """
    odd = make(name, size, variant)
    if odd.name == "yinsh":
        return pyspiel.load_game("odd_env_yinsh", {"blitz": odd.variant == "blitz"})
    return pyspiel.load_game(f"odd_env_{odd.name}", {"board_size": odd.size})


__all__ = ["GAMES", "OddSpielState", "PlanesObserver", "XoddSpielGame", "YinshSpielGame", "YoddSpielGame",
           "load_game", "max_game_length"]
