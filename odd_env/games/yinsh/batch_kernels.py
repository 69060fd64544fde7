"""Batched YINSH kernels: B games stepped in lockstep with the scalar YINSH kernels.

Each game is one row of an ``int32[B, state_size(N)]`` array laid out as in
:mod:`odd_env.games.yinsh.kernels`; the loops call the very functions
:class:`~odd_env.games.yinsh.state.YinshState` calls. Single-threaded on purpose,
like :mod:`odd_env.games.odd.batch_kernels` (``first_illegal`` and
``sample_legal`` of :mod:`odd_env.common.batch` serve every game).
"""

from __future__ import annotations

from ..._compiling import njit

from .kernels import DRAW, M_TO_MOVE, M_WINNER, apply_action, init_state, legal_mask_and_observe, observe_into


@njit(cache=True)
def batch_reset(states, n, onboard, target, rays, lines, line_dir, points, obs, mask):
    """Start every game (white to place a ring) and write its first observation and mask."""
    for b in range(states.shape[0]):
        init_state(states[b], n, onboard, target)
        legal_mask_and_observe(states[b], n, rays, lines, line_dir, onboard, points, 0, mask[b], obs[b])


@njit(cache=True)
def batch_step(states, actions, n, onboard, target, rays, lines, line_dir, points, obs, mask,
               reward, terminated, to_play, final_rewards, final_obs):
    """Play ``actions`` (legal, checked by the caller) in every game.

    Writes the next observation and mask of each game from the side of its
    decider; the acting player's reward; for finished games the final
    rewards (white, black) and the final observation (from the side of the
    player whose decision ended it), after which the game starts again.
    """
    for b in range(states.shape[0]):
        s = states[b]
        actor = s[n + M_TO_MOVE]
        if apply_action(s, n, rays, lines, actions[b]):
            winner = s[n + M_WINNER]
            terminated[b] = True
            if winner == DRAW:
                reward[b] = 0.0
                final_rewards[b, 0] = 0.0
                final_rewards[b, 1] = 0.0
            else:
                reward[b] = 1.0 if winner == actor else -1.0
                final_rewards[b, 0] = 1.0 if winner == 0 else -1.0
                final_rewards[b, 1] = -final_rewards[b, 0]
            observe_into(s, n, onboard, points, actor, final_obs[b])
            init_state(s, n, onboard, target)
        else:
            reward[b] = 0.0
            terminated[b] = False
            final_rewards[b, 0] = 0.0
            final_rewards[b, 1] = 0.0
        player = s[n + M_TO_MOVE]
        to_play[b] = player
        legal_mask_and_observe(s, n, rays, lines, line_dir, onboard, points, player, mask[b], obs[b])
