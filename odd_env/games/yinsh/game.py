"""The :class:`~odd_env.game.Game` of YINSH (standard and blitz): what the game interface knows of it."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...game import Game, make
from .batch import YinshBatch
from .compiled import compiled_rules
from .front import YinshFrontEnd
from .render import to_svg, to_text
from .records import YinshRecord
from .state import NUM_PLANES, OBSERVATION_VERSION, PLAYER_NAMES, YinshState


def make_game(name: str, size: int | None = None, variant: str = "") -> Game:
    """YINSH (one board: ``size`` None or 0), standard or ``variant="blitz"`` (one ring wins)."""
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
        load_record=YinshRecord.load,
        to_text=lambda state, **options: to_text(own(state), **options),
        to_svg=lambda state, **options: to_svg(own(state), **options),
        front_end=lambda: YinshFrontEnd("yinsh", None, variant),
        compiled=lambda: compiled_rules(blitz),
        extra={"geometry": board},
    )


def infer_game(planes: np.ndarray) -> Game | None:
    """YINSH from its observation planes ``(24, 11, 11)`` (plane 22 marks the blitz variant); None for
    planes of another shape."""
    if planes.shape != (NUM_PLANES, 11, 11):
        return None
    return make("yinsh", variant="blitz" if planes[22].any() else "")
