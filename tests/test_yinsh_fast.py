"""The fast YINSH kernels (issue 38) against the kernels they replaced, decision by decision.

``tests/yinsh_old_kernels.py`` is a frozen copy of the kernels before the
speed-up. Random legal games are played through the old kernels and, with
the same actions, through every new path: the single-position API
(:func:`odd_env.games.yinsh.kernels.apply` and friends, driven from compiled
code), the batched engine with observations and the bare batched engine. At
every decision the whole state vector (board and bookkeeping; the new ring
slots and marker bitboards checked against the board), the exact mask, the
legal-action list, the observation planes (of both viewers), the
end of the game and the rewards must agree. The larger soak, from the
repository root (so that this checkout's odd_env is imported)::

    PYTHONPATH=. python tests/test_yinsh_fast.py --games 100000
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import yinsh_old_kernels as OK
from numba import njit

from odd_env import YinshBatch

from odd_env.games.yinsh import batch_kernels as YBK
from odd_env.games.yinsh import kernels as K
from odd_env.games.yinsh.state import YinshState, tables



@njit(cache=True)
def _diff_games(num_games, seed, n, onboard, rays, lines, line_dir, points, check_obs, stats):
    """Play ``num_games`` random games (every third in blitz) through old and new kernels.

    ``stats``: [games, decisions, disagreements, first bad game, first bad decision, kinds seen
    (bit mask), pass decisions, games ended by score]. Stops at the first disagreement.
    """
    np.random.seed(seed)
    old = np.empty(n + OK.META, np.int32)
    new = np.empty(K.STATE_SIZE, np.int32)
    mask_old = np.zeros(4 * n + 1, np.int8)
    mask_new = np.zeros(4 * n + 1, np.int8)
    mask_only = np.zeros(4 * n + 1, np.int8)
    listed = np.zeros(K.MAX_LEGAL, np.int32)
    listed2 = np.zeros(K.MAX_LEGAL, np.int32)
    obs_old = np.zeros((OK.NUM_PLANES, n), np.int8)
    obs_new = np.zeros((OK.NUM_PLANES, n), np.int8)
    for g in range(num_games):
        target = 1 if g % 3 == 2 else 3
        OK.init_state(old, n, onboard, target)
        K.init(new, target)
        ply = 0
        while True:
            bad = False
            for i in range(old.shape[0]):  # the old layout is the new one without the ring slots
                if old[i] != new[i]:
                    bad = True
            derived = new.copy()
            K.sync_derived(derived)  # the ring slots and marker bitboards, recomputed from the board
            for i in range(new.shape[0]):
                if derived[i] != new[i]:
                    bad = True
            if K.is_terminal(new) != (old[n + OK.M_DONE] != 0) or K.to_move(new) != old[n + OK.M_TO_MOVE]:
                bad = True
            c_old = OK.legal_mask_into(old, n, rays, lines, line_dir, mask_old)
            c_new = K.legal_both(new, mask_new, listed)
            c_mask = K.legal_mask(new, mask_only)
            c_list = K.legal_actions(new, listed2)
            if c_old != c_new or c_mask != c_new or c_list != c_new:
                bad = True
            for a in range(4 * n + 1):
                if mask_old[a] != mask_new[a] or mask_only[a] != mask_new[a]:
                    bad = True
            for i in range(c_new):
                if mask_old[listed[i]] != 1 or listed2[i] != listed[i]:
                    bad = True
                if i > 0 and K.decision(new) != K.KIND_DESTINATION and listed[i] <= listed[i - 1]:
                    bad = True  # ascending, except destinations
            if check_obs:
                for viewer in range(2):
                    OK.observe_into(old, n, onboard, points, viewer, obs_old)
                    K.observe(new, viewer, obs_new)
                    for c in range(OK.NUM_PLANES):
                        for x in range(n):
                            if obs_old[c, x] != obs_new[c, x]:
                                bad = True
            if bad:
                stats[2] += 1
                stats[3] = g
                stats[4] = ply
                return
            if K.is_terminal(new):
                r_white, r_black = K.returns(new)
                w = old[n + OK.M_WINNER]
                expect = 0.0 if w == OK.DRAW else (1.0 if w == 0 else -1.0)
                if r_white != expect or r_black != -expect or K.winner(new) != w:
                    stats[2] += 1
                    stats[3] = g
                    stats[4] = ply
                    return
                if new[n + K.M_REMOVED] < target and new[n + K.M_REMOVED + 1] < target:
                    stats[7] += 1
                break
            kind = K.decision(new)
            stats[5] |= 1 << kind
            if kind == K.KIND_PASS:
                stats[6] += 1
            a = listed[np.random.randint(c_new)]
            e_old = OK.apply_action(old, n, rays, lines, a)
            e_new = K.apply(new, a)
            stats[1] += 1
            ply += 1
            if e_old != e_new:
                stats[2] += 1
                stats[3] = g
                stats[4] = ply
                return
        stats[0] += 1


def run_single(games: int, seed: int, check_obs: bool = True) -> np.ndarray:
    """The compiled single-position differential; returns its stats."""
    t = tables()
    stats = np.zeros(8, dtype=np.int64)
    _diff_games(games, seed, t.n, t.onboard, t.rays, t.lines, t.line_dir, t.points, check_obs, stats)
    return stats


def run_batched(batch: int, steps: int, seed: int, blitz: bool) -> tuple[int, int]:
    """YinshBatch with observations and bare, stepped with the same random actions, against one
    old-kernel state per game; returns (games finished, decisions compared)."""
    t = tables()
    n = t.n
    target = 1 if blitz else 3
    full = YinshBatch(batch, blitz=blitz)
    bare = YinshBatch(batch, blitz=blitz, observations=False)
    out, out_bare = full.reset(), bare.reset()
    old = np.zeros((batch, n + OK.META), np.int32)
    mask = np.zeros((batch, 4 * n + 1), np.int8)
    obs = np.zeros((batch, OK.NUM_PLANES, n), np.int8)
    final = np.zeros((OK.NUM_PLANES, n), np.int8)
    for b in range(batch):
        OK.init_state(old[b], n, t.onboard, target)
    # The batch kernels driven directly, as a compiled caller would, beside the engines.
    direct = np.zeros((batch, K.STATE_SIZE), np.int32)
    d_obs = np.zeros((batch, OK.NUM_PLANES, n), np.int8)
    d_final = np.zeros_like(d_obs)
    d_mask = np.zeros((batch, 4 * n + 1), np.int8)
    d_legal = np.zeros((batch, K.MAX_LEGAL), np.int16)
    d_count = np.zeros(batch, np.int32)
    d_out = (np.zeros(batch, np.float32), np.zeros(batch, bool), np.zeros(batch, np.int8), np.zeros((batch, 2), np.float32))
    YBK.reset_games(direct, target, d_obs, d_mask, d_legal, d_count, True)
    rng = np.random.default_rng(seed)
    finished = compared = 0
    for step in range(steps):
        for b in range(batch):
            p = int(old[b, n + OK.M_TO_MOVE])
            OK.legal_mask_and_observe(old[b], n, t.rays, t.lines, t.line_dir, t.onboard, t.points, p, mask[b], obs[b])
        where = f"step {step}"
        np.testing.assert_array_equal(full.get_states()[:, : n + OK.META], old, err_msg=where)
        np.testing.assert_array_equal(bare.get_states(), full.get_states(), err_msg=where)
        np.testing.assert_array_equal(out.action_mask, mask, err_msg=where)
        np.testing.assert_array_equal(out_bare.action_mask, mask, err_msg=where)
        np.testing.assert_array_equal(out.observation.reshape(batch, OK.NUM_PLANES, n), obs, err_msg=where)
        np.testing.assert_array_equal(out.to_play, old[:, n + OK.M_TO_MOVE], err_msg=where)
        np.testing.assert_array_equal(out_bare.to_play, out.to_play, err_msg=where)
        np.testing.assert_array_equal(direct, full.get_states(), err_msg=where)
        np.testing.assert_array_equal(d_mask, mask, err_msg=where)
        np.testing.assert_array_equal(d_obs, obs, err_msg=where)
        compared += batch
        actions = full.random_actions(rng)
        np.testing.assert_array_equal(bare.random_actions(np.random.default_rng(seed + step)),
                                      full.random_actions(np.random.default_rng(seed + step)))
        out, out_bare = full.step(actions), bare.step(actions)
        assert YBK.step_games(direct, actions, target, d_obs, d_mask, d_legal, d_count, *d_out, d_final, True) == -1
        np.testing.assert_array_equal(d_out[1], out.terminated, err_msg=where)
        np.testing.assert_array_equal(d_out[0], out.reward, err_msg=where)
        np.testing.assert_array_equal(d_out[2], out.to_play, err_msg=where)
        np.testing.assert_array_equal(d_out[3], out.info["final_rewards"], err_msg=where)
        for b in range(batch):
            actor = int(old[b, n + OK.M_TO_MOVE])
            ended = OK.apply_action(old[b], n, t.rays, t.lines, int(actions[b]))
            assert out.terminated[b] == out_bare.terminated[b] == bool(ended), where
            if ended:
                finished += 1
                w = int(old[b, n + OK.M_WINNER])
                white = 0.0 if w == OK.DRAW else (1.0 if w == 0 else -1.0)
                assert tuple(out.info["final_rewards"][b]) == tuple(out_bare.info["final_rewards"][b]) == (white, -white)
                assert out.reward[b] == out_bare.reward[b] == (0.0 if w == OK.DRAW else (1.0 if w == actor else -1.0))
                OK.observe_into(old[b], n, t.onboard, t.points, actor, final)
                np.testing.assert_array_equal(out.info["final_obs"][b].reshape(OK.NUM_PLANES, n), final)
                np.testing.assert_array_equal(d_final[b], final)
                OK.init_state(old[b], n, t.onboard, target)
            else:
                assert out.reward[b] == out_bare.reward[b] == 0.0
    return finished, compared


def test_compiled_in_tables_match_the_geometry():
    g = YinshState.geometry
    assert np.array_equal(K.RAYS, g.rays) and np.array_equal(K.ONBOARD.astype(bool), g.onboard)
    assert K.N == g.num_cells and K.NUM_ROWS == 123 and K.STATE_SIZE == K.N + K.META


def test_single_position_api_matches_the_old_kernels():
    stats = run_single(3000, seed=1)
    games, decisions, bad = int(stats[0]), int(stats[1]), int(stats[2])
    assert bad == 0, f"disagreement in game {stats[3]} at decision {stats[4]}"
    assert games == 3000 and decisions > 300_000
    assert stats[5] & 0b11111 == 0b11111  # place, move, destination, row, ring all seen


def test_batched_engines_match_the_old_kernels():
    finished, compared = run_batched(16, 700, seed=3, blitz=False)
    assert finished >= 50 and compared == 16 * 700
    finished, _ = run_batched(8, 300, seed=4, blitz=True)
    assert finished >= 8


def test_passes_and_pool_ends_match_the_old_kernels():
    """Walled-in and near-empty-pool starts (as in test_yinsh_differential.py), through YinshState
    (the new kernels) and the old kernels side by side."""
    from test_yinsh_differential import pattern_colour, walled_in

    from odd_env.common.geometry import yinsh_board
    from odd_env.games.yinsh.state import point_name

    t = tables()
    rng = np.random.default_rng(5)
    points = [int(x) for x in np.flatnonzero(yinsh_board().onboard)]
    passes = 0
    for played in range(80):
        if played % 2:
            rings, markers, removed = walled_in(rng)
        else:
            chosen = [int(x) for x in rng.choice(points, 58, replace=False)]
            rings = {point_name(x): i % 2 for i, x in enumerate(chosen[:10])}
            markers = {point_name(x): pattern_colour(x) for x in chosen[10:]}
            removed = (0, 0)
        state = YinshState.from_position(
            rings={c: [p for p, v in rings.items() if v == c] for c in (0, 1)},
            markers={c: [p for p, v in markers.items() if v == c] for c in (0, 1)},
            to_move=int(rng.integers(2)), removed=removed)
        old = state.data[: t.n + OK.META].copy()
        mask = np.zeros(485, np.int8)
        while True:
            assert np.array_equal(old, state.data[: t.n + OK.META])
            if state.is_terminal:
                break
            OK.legal_mask_into(old, t.n, t.rays, t.lines, t.line_dir, mask)
            assert np.array_equal(mask, state.legal_action_mask())
            passes += state.decision_name == "pass"
            a = int(rng.choice(state.legal_actions()))
            state.apply(a)
            OK.apply_action(old, t.n, t.rays, t.lines, a)
    assert passes >= 20


def main() -> None:
    """The soak: ``--games`` random games through the single-position differential, and batched steps."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--batch-steps", type=int, default=3000, help="steps of the batched comparison (batch 32)")
    args = parser.parse_args()
    start = time.perf_counter()
    stats = run_single(args.games, args.seed)
    print(f"single-position: {stats[0]} games, {stats[1]} decisions compared (state, mask, list, both "
          f"viewers' planes, ends), {stats[2]} disagreements, {stats[6]} passes, {stats[7]} games ended "
          f"by score, {time.perf_counter() - start:.0f} s")
    if stats[2]:
        print(f"first disagreement: game {stats[3]}, decision {stats[4]}")
    start = time.perf_counter()
    finished, compared = run_batched(32, args.batch_steps, args.seed, blitz=False)
    print(f"batched (obs and bare): {finished} games, {compared} decisions compared, 0 disagreements, "
          f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()


@njit(cache=True)
def _negamax(s, depth, mask, actions_buf, obs):
    """A toy fixed-depth search over the single-position API, as a compiled search would call it
    (white's value of the position; ``actions_buf`` is int32[depth + 1, MAX_LEGAL])."""
    if K.is_terminal(s):
        return K.returns(s)[0]
    if depth == 0:
        K.observe(s, K.to_move(s), obs)  # a leaf evaluation would read these planes
        return 0.0
    count = K.legal_mask(s, mask)
    count2 = K.legal_actions(s, actions_buf[depth])
    if count != count2:
        raise ValueError("legal_mask and legal_actions disagree")
    white = K.to_move(s) == K.WHITE
    best = -2.0 if white else 2.0
    for i in range(count):
        child = K.copy(s)
        K.apply(child, actions_buf[depth, i])
        v = _negamax(child, depth - 1, mask, actions_buf, obs)
        best = max(best, v) if white else min(best, v)
    return best


def test_single_position_api_is_callable_from_compiled_code():
    state = YinshState.from_position(
        rings={"white": ["E5", "A2", "K7"], "black": ["F5", "B1", "J11"]},
        markers={"white": ["E6", "E7", "E8", "E9"], "black": ["G6"]}, removed=(2, 2), to_move="white")
    depth = 4
    buf = np.zeros((depth + 1, K.MAX_LEGAL), np.int32)
    value = _negamax(state.data.copy(), depth, np.zeros(K.NUM_ACTIONS, np.int8), buf,
                     np.zeros((K.NUM_PLANES, K.N), np.int8))
    assert value == 1.0  # moving E5 off the column leaves a marker there: the row E5-E9, then a third ring
    s = K.new_state(1)
    assert s.shape == (K.STATE_SIZE,) and not K.is_terminal(s) and K.to_move(s) == 0 and K.winner(s) == -1
    assert K.decision(s) == K.KIND_PLACE and K.returns(s) == (0.0, 0.0)
    t = np.empty_like(s)
    K.copy_into(s, t)
    assert np.array_equal(s, t) and YinshState(data=t) == YinshState(blitz=True)


def test_the_derived_views_are_validated_and_the_old_layout_is_refused():
    import pytest

    rng = np.random.default_rng(2)
    state = YinshState()
    for _ in range(40):
        state.apply(int(rng.choice(state.legal_actions())))
    n = K.N
    slots = state.data.copy()
    slots[n + K.M_RINGS] = slots[n + K.M_RINGS + 1]  # a ring slot that does not match the board
    with pytest.raises(ValueError, match="ring slots"):
        YinshState(data=slots)
    bits = state.data.copy()
    bits[n + K.M_BITS + 5] ^= 1 << 7  # a marker bit with no marker under it
    with pytest.raises(ValueError, match="marker bitboards"):
        YinshState(data=bits)
    with pytest.raises(ValueError, match=rf"int32\[{K.STATE_SIZE}\]"):
        YinshState(data=state.data[: n + OK.META].copy())  # a state vector of the layout before issue 38
    engine = YinshBatch(2)
    engine.reset()
    with pytest.raises(ValueError, match="int32"):
        engine.set_states(np.zeros((2, n + OK.META), np.int32))
    saved = np.stack([state.data, state.data])
    saved[1, n + K.M_BITS] ^= 1
    with pytest.raises(ValueError, match=r"states\[1\].*marker bitboards"):
        engine.set_states(saved)
