"""Batched YINSH kernels: B games stepped in lockstep with the single-position YINSH kernels.

Each game is one row of an ``int32[B, STATE_SIZE]`` array laid out as in
:mod:`odd_env.games.yinsh.kernels`; the loops call the very functions
:class:`~odd_env.games.yinsh.state.YinshState` calls. Single-threaded on purpose,
like :mod:`odd_env.games.odd.batch_kernels`.

Two modes share these kernels: with observations (``with_obs=True``: the
planes of the next decider and of finished games are written) and bare
(``with_obs=False``: masks only; the observation arguments are then not
touched and may be any int8[1, NUM_PLANES, N] placeholders). Besides the
public mask, each game keeps its legal actions as a list (``legal[b, :count[b]]``),
which the engine reads to check actions and to sample random ones, so a
caller may scribble on the public mask without fooling the engine.
"""

from __future__ import annotations

import numpy as np
from ..._compiling import njit

from .kernels import (
    DRAW,
    M_TO_MOVE,
    M_WINNER,
    N,
    apply,
    init,
    legal_both,
    observe,
)


@njit(cache=True)
def reset_games(states, target, obs, mask, legal, count, with_obs):
    """Start every game (white to place a ring) and write its first mask (and observation)."""
    for b in range(states.shape[0]):
        init(states[b], target)
        count[b] = legal_both(states[b], mask[b], legal[b])
        if with_obs:
            observe(states[b], 0, obs[b])


@njit(cache=True)
def refresh_games(states, obs, mask, legal, count, to_play, with_obs):
    """Recompute every game's mask, legal list, decider (and observation) from its state."""
    for b in range(states.shape[0]):
        s = states[b]
        player = s[N + M_TO_MOVE]
        to_play[b] = player
        count[b] = legal_both(s, mask[b], legal[b])
        if with_obs:
            observe(s, player, obs[b])


@njit(cache=True)
def first_illegal_listed(legal, count, actions):
    """Index of the first game whose action is not in its legal list, or -1."""
    for b in range(actions.shape[0]):
        a = actions[b]
        ok = False
        for i in range(count[b]):
            if legal[b, i] == a:
                ok = True
                break
        if not ok:
            return b
    return -1


@njit(cache=True)
def sample_legal_listed(legal, count, seed, out):
    """A uniformly random legal action per game, ``legal[b, floor(u_b * count[b])]``, with the
    uniforms ``u_b`` drawn by SplitMix64 from the 64-bit ``seed`` (one draw of the caller's generator)."""
    x = np.uint64(seed)
    for b in range(count.shape[0]):
        x += np.uint64(0x9E3779B97F4A7C15)
        z = x
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
        c = count[b]
        i = int((z >> np.uint64(11)) * np.uint64(c) >> np.uint64(53))  # floor(u * c), u = top 53 bits / 2**53
        out[b] = legal[b, i]


@njit(cache=True)
def step_games(states, actions, target, obs, mask, legal, count, reward, terminated, to_play,
               final_rewards, final_obs, with_obs):
    """Play ``actions`` in every game; return -1, or the index of the first game whose action is
    not in its legal list (then no game has changed).

    Writes the next mask and legal list of each game (and, ``with_obs``, its
    observation from the side of its decider); the acting player's reward;
    for finished games the final rewards (white, black) and (``with_obs``)
    the final observation, from the side of the player whose decision ended
    it, after which the game starts again.
    """
    bad = first_illegal_listed(legal, count, actions)
    if bad >= 0:
        return bad
    for b in range(states.shape[0]):
        s = states[b]
        actor = s[N + M_TO_MOVE]
        if apply(s, actions[b]):
            winner = s[N + M_WINNER]
            terminated[b] = True
            if winner == DRAW:
                reward[b] = 0.0
                final_rewards[b, 0] = 0.0
                final_rewards[b, 1] = 0.0
            else:
                reward[b] = 1.0 if winner == actor else -1.0
                final_rewards[b, 0] = 1.0 if winner == 0 else -1.0
                final_rewards[b, 1] = -final_rewards[b, 0]
            if with_obs:
                observe(s, actor, final_obs[b])
            init(s, target)
        else:
            reward[b] = 0.0
            terminated[b] = False
            final_rewards[b, 0] = 0.0
            final_rewards[b, 1] = 0.0
        player = s[N + M_TO_MOVE]
        to_play[b] = player
        count[b] = legal_both(s, mask[b], legal[b])
        if with_obs:
            observe(s, player, obs[b])
    return -1
