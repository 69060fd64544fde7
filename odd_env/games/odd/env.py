"""Xodd and Yodd as PettingZoo AEC environments (the public modules are :mod:`odd_env.xodd_v0` and
:mod:`odd_env.yodd_v0`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from gymnasium import spaces

from ...common.aec import ActionSpace, PositionRawEnv
from ...common.geometry import Geometry, geometry as make_geometry
from . import kernels as K
from .records import GameRecord
from .render import to_rgb, to_svg, to_text
from .state import NUM_PLANES, NUM_STATE_PLANES, OBSERVATION_VERSION, GameState
from .validation import check_state

AGENTS = ("black_0", "white_0")


class OddRawEnv(PositionRawEnv):
    """Xodd or Yodd as an AEC environment (no wrappers).

    A turn is one or two steps of the same agent (docs/rules/xodd_yodd.md section 3). Illegal
    actions raise ``ValueError`` and change nothing; use :func:`make_env` (the
    games' ``env()``) for PettingZoo's convention of ending the game instead.
    """

    metadata: dict[str, Any] = {
        "render_modes": ["ansi", "rgb_array", "human"],
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
        self.num_actions = n_actions = g.num_actions
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0, 1, (NUM_PLANES, g.height, g.width), dtype=np.int8),
                "action_mask": spaces.Box(0, 1, (n_actions,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in AGENTS}
        self.action_spaces = {a: ActionSpace(n_actions) for a in AGENTS}
        self.state_space = spaces.Box(0, 1, (NUM_STATE_PLANES, g.height, g.width), dtype=np.int8)
        self.observation_version = OBSERVATION_VERSION
        self.state_ = GameState(g)
        self._reset_bookkeeping()

    # ----------------------------------------------------------------- game
    @property
    def game_state(self) -> GameState:
        """The rules-level state of the current game (a live object; copy it to keep it)."""
        return self.state_

    def _update_infos(self) -> None:
        meta = self.state_._meta.tolist()
        b, w = meta[K.M_GROUPS_BLACK], meta[K.M_GROUPS_WHITE]
        step = meta[K.M_STEP] + 1
        info = {"black_groups": b, "white_groups": w, "turn_step": step}
        self.infos = {AGENTS[0]: info, AGENTS[1]: info.copy()}

    def _start_state(self, options: Mapping[str, Any]) -> GameState:
        """The position a reset starts from: a new game on an empty board, or from a position given in ``options``.

        ``options={"record": record}`` starts from the position after a
        :class:`~odd_env.games.odd.records.GameRecord` (or record text), mid-turn
        included; ``options={"state": state}`` from a copy of a
        :class:`~odd_env.games.odd.state.GameState`. The position must be on this
        env's board and the game not over (ValueError otherwise)."""
        # Other keys are ignored, as Gymnasium envs do (PettingZoo's api_test passes one).
        if "record" not in options and "state" not in options:
            return GameState(self.geometry)
        if "record" in options and "state" in options:
            raise ValueError("give reset either options['record'] or options['state'], not both")
        if "record" in options:
            record = options["record"]
            if isinstance(record, str):
                record = GameRecord.from_text(record)
            if not isinstance(record, GameRecord):
                raise ValueError(
                    f"options['record'] must be a GameRecord or record text, got {type(record).__name__}"
                )
            state, what = record.state, "record"
        else:
            state = options["state"]
            if not isinstance(state, GameState):
                raise ValueError(f"options['state'] must be a GameState, got {type(state).__name__}")
            state, what = state.copy(), "state"
        g = state.geometry
        if g is not self.geometry:
            raise ValueError(
                f"the {what} is a game of {g.game} {g.size}, but this env plays {self.game} {self.board_size}"
            )
        if state.is_terminal:
            raise ValueError(f"the {what}'s game is over: an env can only start from a running game")
        # The state's data is a public array that may have been edited since the state was made.
        check_state(g, state.data)
        return state

    def _views(self) -> tuple[Callable[[Any], str], Callable[[Any], np.ndarray], Callable[[Any], str]]:
        return to_text, to_rgb, to_svg

    def _viewer_title(self) -> str:
        return f"{self.game} {self.board_size}"
