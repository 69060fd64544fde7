"""The :class:`~odd_env.game.Game` of Xodd and Yodd at each board size: what the game interface knows of them."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...common.geometry import geometry, hexhex, square
from ...game import Game, make
from . import notation
from .batch import OddBatch
from .compiled import compiled_rules
from .front import OddFrontEnd
from .heuristics import HEURISTICS
from .records import GameRecord
from .render import to_svg, to_text
from .state import NUM_PLANES, OBSERVATION_VERSION, GameState


def make_game(name: str, size: int | None = None, variant: str = "") -> Game:
    """Xodd or Yodd at ``size`` (default 9 and 6)."""
    if variant:
        also = " (blitz is a variant of YINSH)" if variant == "blitz" else ""
        raise ValueError(f"{name} has no variants, got variant={variant!r}{also}")
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
        load_record=GameRecord.load,
        to_text=lambda state, **options: to_text(own(state), **options),
        to_svg=lambda state, **options: to_svg(own(state), **options),
        front_end=lambda: OddFrontEnd(g.game, g.size),
        compiled=lambda: compiled_rules(g.game, g.size),
        heuristics=HEURISTICS,
        extra={"geometry": g, "solver": "odd_env.games.odd.solver"},
    )


def infer_game(planes: np.ndarray) -> Game | None:
    """The Xodd or Yodd game of observation planes ``(12, H, H)``: Xodd when the on-board plane 3 is
    all ones, else Yodd of base ``(H + 1) // 2``; None for planes of another shape."""
    if planes.ndim != 3 or planes.shape[0] != NUM_PLANES or planes.shape[1] != planes.shape[2]:
        return None
    h = planes.shape[1]
    g = square(h) if np.all(planes[3]) else hexhex((h + 1) // 2)
    return make(g.game, g.size)
