"""Batched kernels: B games stepped in lockstep with the scalar rules kernels.

Each game is one row of an ``int32[B, state_size(N)]`` array laid out as in
:mod:`odd_env.games.odd.kernels`; the loops below call the very functions the
scalar :class:`~odd_env.games.odd.state.GameState` calls.

The loops are single-threaded on purpose: one core already steps over a
million positions a second, and the other cores stay free for the learner
(no thread pool spinning against PyTorch's). Run engines in several
processes for more.
"""

from __future__ import annotations

from ..._compiling import njit

from .kernels import M_TO_MOVE, M_WINNER, apply_action, init_state, legal_mask_and_observe


@njit(cache=True)
def batch_reset(states, n, nbr, onboard, obs, mask, keep):
    """Reset every game and write its first observation and mask."""
    for b in range(states.shape[0]):
        init_state(states[b], n, onboard)
        legal_mask_and_observe(states[b], n, nbr, onboard, 0, mask[b], keep[b], obs[b])


@njit(cache=True)
def batch_step(states, actions, n, nbr, onboard, obs, mask, keep,
               reward, terminated, to_play, final_rewards, final_obs):
    """Play ``actions`` (legal, checked by the caller) in every game.

    Writes the next observation and mask of each game from the side of its
    player to act; the acting player's reward; for finished games the final
    rewards (black, white) and final observation (from the side of the
    player who ended it), after which the game is reset in place.
    """
    m = 2 * n
    for b in range(states.shape[0]):
        s = states[b]
        actor = s[m + M_TO_MOVE]
        done = apply_action(s, n, nbr, actions[b])
        if done:
            winner = s[m + M_WINNER]
            reward[b] = 1.0 if winner == actor else -1.0
            terminated[b] = True
            final_rewards[b, 0] = 1.0 if winner == 0 else -1.0
            final_rewards[b, 1] = -final_rewards[b, 0]
            legal_mask_and_observe(s, n, nbr, onboard, actor, mask[b], keep[b], final_obs[b])
            init_state(s, n, onboard)
        else:
            reward[b] = 0.0
            terminated[b] = False
            final_rewards[b, 0] = 0.0
            final_rewards[b, 1] = 0.0
        player = s[m + M_TO_MOVE]
        to_play[b] = player
        legal_mask_and_observe(s, n, nbr, onboard, player, mask[b], keep[b], obs[b])
