"""YINSH as a PettingZoo AEC environment (the public module is :mod:`odd_env.yinsh_v0`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces

from ...common.aec import ActionSpace, PositionRawEnv
from . import kernels as K
from .records import YinshRecord
from .render import to_rgb, to_svg, to_text
from .state import NUM_ACTIONS, NUM_PLANES, OBSERVATION_VERSION, YinshState, check_state

AGENTS = ("white_0", "black_0")
"""Agent names: player 0 (white, first) and player 1 (black)."""


class YinshRawEnv(PositionRawEnv):
    """YINSH as a PettingZoo AEC environment without wrappers (the page: :mod:`odd_env.yinsh_v0`)."""

    metadata: dict[str, Any] = {
        "render_modes": ["ansi", "rgb_array", "human"],
        "name": "yinsh_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(self, blitz: bool = False, render_mode: str | None = None, **unknown: Any):
        """Build the env; ``blitz=True`` plays the one-ring variant."""
        if unknown:
            raise TypeError(f"yinsh_v0 takes blitz= and render_mode=, got {', '.join(sorted(unknown))}=: YINSH "
                            "has one board (no board_size), and its variant is chosen with blitz=True "
                            "(odd_env.game.make('yinsh', variant='blitz') is the same game)")
        super().__init__()
        if not isinstance(blitz, (bool, np.bool_)):
            raise ValueError(f"blitz must be True or False, got {blitz!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}"
            )
        self.blitz = bool(blitz)
        self.render_mode = render_mode
        self.num_actions = NUM_ACTIONS
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0, 1, (NUM_PLANES, 11, 11), dtype=np.int8),
                "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in AGENTS}
        self.state_space = spaces.Box(0, 1, (NUM_PLANES, 11, 11), dtype=np.int8)
        self.action_spaces = {a: ActionSpace(NUM_ACTIONS) for a in AGENTS}
        self.observation_version = OBSERVATION_VERSION
        self.state_ = YinshState(blitz=self.blitz)
        self._reset_bookkeeping()

    @property
    def game_state(self) -> YinshState:
        """The rules-level state of the current game (a live object; copy it to keep it)."""
        return self.state_

    def _update_infos(self) -> None:
        meta = self.state_._meta.tolist()  # one conversion: this runs every step
        kind = meta[K.M_KIND]
        info = {"decision": kind,  # numbers only (TorchRL's specs take no strings): DECISIONS[kind], -1 once over
                "white_removed": meta[K.M_REMOVED], "black_removed": meta[K.M_REMOVED + 1],
                "pool": meta[K.M_POOL]}
        self.infos = {AGENTS[0]: info, AGENTS[1]: dict(info)}

    def _start_state(self, options: dict | None) -> YinshState:
        """The position a reset starts from: a new game, or from a position given in ``options``.

        ``options={"record": record}`` starts from the position after a
        :class:`~odd_env.games.yinsh.records.YinshRecord` (or record text), mid-turn
        included; ``options={"state": state}`` from a copy of a running
        :class:`~odd_env.games.yinsh.state.YinshState`. Either must be of this env's
        variant and the game not over (ValueError otherwise)."""
        # Other keys are ignored, as Gymnasium envs do (PettingZoo's api_test passes one).
        if not options or ("record" not in options and "state" not in options):
            return YinshState(blitz=self.blitz)
        if "record" in options and "state" in options:
            raise ValueError("give reset either options['record'] or options['state'], not both")
        if "record" in options:
            record = options["record"]
            if isinstance(record, str):
                record = YinshRecord.from_text(record)
            if not isinstance(record, YinshRecord):
                raise ValueError(
                    f"options['record'] must be a YinshRecord or record text, got {type(record).__name__}"
                )
            state, what = record.state, "record"
        else:
            state = options["state"]
            if not isinstance(state, YinshState):
                raise ValueError(f"options['state'] must be a YinshState, got {type(state).__name__}")
            state, what = state.copy(), "state"
        if state.blitz != self.blitz:
            raise ValueError(f"the {what} is of the {'blitz' if state.blitz else 'standard'} game, "
                             f"but this env plays {'blitz' if self.blitz else 'the standard game'}")
        if state.is_terminal:
            raise ValueError(f"the {what}'s game is over: an env can only start from a running game")
        problem = check_state(state.data)  # a public array, which may have been edited since
        if problem is not None:
            raise ValueError(f"the {what} is not a YINSH position play can reach: {problem}")
        return state

    def _views(self) -> tuple[Callable[[Any], str], Callable[[Any], np.ndarray], Callable[[Any], str]]:
        return to_text, to_rgb, to_svg

    def _viewer_title(self) -> str:
        return "yinsh blitz" if self.blitz else "yinsh"
