"""The YINSH batched engine against independent yinsh_v0 raw environments, step by step."""

import numpy as np
import pytest

from odd_env import yinsh_v0
from odd_env.games.yinsh.state import NUM_PLANES, PASS_ACTION, YinshState, parse_point
from odd_env.games.yinsh.batch import YinshBatch

AGENTS = ("white_0", "black_0")


def run_differential(batch: int, steps: int, blitz: bool, seed: int) -> int:
    """Step a YinshBatch and ``batch`` raw envs with the same random actions,
    comparing everything; return the number of games finished."""
    engine = YinshBatch(batch, blitz=blitz)
    out = engine.reset()
    envs = [yinsh_v0.raw_env(blitz=blitz) for _ in range(batch)]
    for e in envs:
        e.reset()
    rng = np.random.default_rng(seed)
    finished = 0
    for _ in range(steps):
        for b, e in enumerate(envs):
            assert out.to_play[b] == AGENTS.index(e.agent_selection)
            o = e.observe(e.agent_selection)
            np.testing.assert_array_equal(out.observation[b], o["observation"])
            np.testing.assert_array_equal(out.action_mask[b], o["action_mask"])
        actions = engine.random_actions(rng)
        out = engine.step(actions)
        for b, e in enumerate(envs):
            actor = e.agent_selection
            e.step(int(actions[b]))
            done = all(e.terminations.values())
            assert out.terminated[b] == done
            if done:
                finished += 1
                assert out.reward[b] == e.rewards[actor]
                assert tuple(out.info["final_rewards"][b]) == (e.rewards["white_0"], e.rewards["black_0"])
                np.testing.assert_array_equal(out.info["final_obs"][b], e.observe(actor)["observation"])
                e.reset()
            else:
                assert out.reward[b] == 0 and not out.info["final_rewards"][b].any()
    return finished


@pytest.mark.parametrize("blitz, batch, steps", [(False, 12, 900), (True, 12, 600)])
def test_batch_matches_raw_envs(blitz, batch, steps):
    finished = run_differential(batch, steps, blitz, seed=int(blitz))
    assert finished >= batch  # every slot finished and restarted at least once on average


def test_outputs_are_preallocated_and_shaped():
    engine = YinshBatch(8)
    out = engine.reset()
    assert out.observation.shape == (8, NUM_PLANES, 11, 11) and out.observation.dtype == np.int8
    assert out.action_mask.shape == (8, 485) and out.action_mask[:, :121].sum(axis=1).tolist() == [85] * 8
    out2 = engine.step(engine.random_actions(np.random.default_rng(0)))
    assert out2.observation is out.observation  # the same buffers, overwritten
    assert out.to_play.tolist() == [1] * 8  # black places the second ring
    assert repr(engine) == "YinshBatch(num_games=8)" and engine.last is out


def test_illegal_action_names_the_game_and_changes_nothing():
    engine = YinshBatch(4)
    out = engine.reset()
    actions = engine.random_actions(np.random.default_rng(1))
    out = engine.step(actions)
    before = engine.get_states()
    obs_before = out.observation.copy()
    bad = engine.random_actions(np.random.default_rng(2))
    bad[2] = actions[2]  # the point white just took in game 2: occupied
    with pytest.raises(ValueError, match=rf"illegal action {actions[2]} in game 2: .*occupied"):
        engine.step(bad)
    np.testing.assert_array_equal(engine.get_states(), before)
    np.testing.assert_array_equal(out.observation, obs_before)
    for wrong, match in [(np.zeros(3, dtype=int), "shape"), (np.zeros(4), "integers"),
                         (np.full(4, PASS_ACTION), f"illegal action {PASS_ACTION} in game 0: pass is legal only"),
                         (np.full(4, 485), "in game 0: action 485 is out of range")]:
        with pytest.raises(ValueError, match=match):
            engine.step(wrong)
    np.testing.assert_array_equal(engine.get_states(), before)
    with pytest.raises(ValueError, match="num_games"):
        YinshBatch(0)
    assert YinshBatch(np.array(3)).num_games == 3  # a 0-d integer array, as OddBatch takes it
    with pytest.raises(ValueError, match="blitz"):
        YinshBatch(2, blitz="no")
    with pytest.raises(RuntimeError, match="reset"):
        YinshBatch(2).step(np.zeros(2, dtype=int))
    fresh = YinshBatch(2)  # before a reset the buffers hold no game (once: a pool of 0)
    for call, name in [(fresh.get_states, "get_states"), (lambda: fresh.game_state(0), "game_state"),
                       (lambda: fresh.random_actions(np.random.default_rng(0)), "random_actions")]:
        with pytest.raises(RuntimeError, match=f"before {name}\\(\\): there are no games yet"):
            call()


def test_get_and_set_states_round_trip_and_validation():
    rng = np.random.default_rng(3)
    engine = YinshBatch(6)
    engine.reset()
    for _ in range(60):
        engine.step(engine.random_actions(rng))
    saved = engine.get_states()
    obs, mask = engine.last.observation.copy(), engine.last.action_mask.copy()
    other = YinshBatch(6)
    out = other.set_states(saved)
    np.testing.assert_array_equal(out.observation, obs)
    np.testing.assert_array_equal(out.action_mask, mask)
    assert other.game_state(3) == engine.game_state(3)
    actions = engine.random_actions(rng)
    a, b = engine.step(actions), other.step(actions)
    np.testing.assert_array_equal(a.observation, b.observation)
    # Impossible or foreign rows are rejected, naming the row; nothing changes.
    broken = saved.copy()
    broken[4, parse_point("E5")] = 9
    with pytest.raises(ValueError, match=r"states\[4\] is not a running YINSH position"):
        other.set_states(broken)
    with pytest.raises(ValueError, match=r"states\[0\].*blitz"):
        YinshBatch(6, blitz=True).set_states(saved)
    with pytest.raises(ValueError, match="int32"):
        other.set_states(saved.astype(np.int64))
    np.testing.assert_array_equal(other.get_states(), engine.get_states())


def test_game_state_is_a_yinsh_state():
    engine = YinshBatch(2, blitz=True)
    engine.reset()
    engine.step(np.array([parse_point("E5"), parse_point("F6")]))
    s = engine.game_state(1)
    assert isinstance(s, YinshState) and s.blitz and s.to_move == 1
    assert s.rings("white").tolist() == [parse_point("F6")]


def test_torch_outputs_share_memory():
    torch = pytest.importorskip("torch")
    engine = YinshBatch(4, as_torch=True)
    out = engine.reset()
    assert isinstance(out.observation, torch.Tensor) and out.observation.dtype == torch.int8
    first = out.observation.clone()
    out2 = engine.step(torch.as_tensor(engine.random_actions(np.random.default_rng(0))))
    assert out2.observation.data_ptr() == out.observation.data_ptr()
    assert not torch.equal(first, out2.observation)


def test_random_actions_are_uniform_over_legal_actions():
    engine = YinshBatch(3000)
    engine.reset()
    counts = np.bincount(engine.random_actions(np.random.default_rng(0)), minlength=485)
    legal = engine.game_state(0).legal_action_mask().astype(bool)
    assert legal.sum() == 85 and counts[~legal].sum() == 0
    expected = 3000 / 85
    assert np.all(np.abs(counts[legal] - expected) < 5 * np.sqrt(expected))


def test_huge_unsigned_actions_are_reported_with_their_real_value():
    engine = YinshBatch(3)
    engine.reset()
    before = engine.get_states()
    actions = np.array([0, 2**64 - 1, 0], dtype=np.uint64)
    with pytest.raises(ValueError, match=r"illegal action 18446744073709551615 in game 1"):
        engine.step(actions)
    assert np.array_equal(engine.get_states(), before)


def test_bare_mode_outputs_and_checks():
    engine = YinshBatch(5, observations=False)
    out = engine.reset()
    assert out.observation is None and set(out.info) == {"final_rewards"}
    assert repr(engine) == "YinshBatch(num_games=5, observations=False)" and not engine.observations
    assert out.action_mask.shape == (5, 485) and out.action_mask[:, :121].sum(axis=1).tolist() == [85] * 5
    out.action_mask[:] = 1  # scribbling on the public mask does not fool the engine's legality check
    with pytest.raises(ValueError, match=r"illegal action 484 in game 0"):
        engine.step(np.full(5, PASS_ACTION))
    rng = np.random.default_rng(0)
    for _ in range(400):
        out = engine.step(engine.random_actions(rng))
    saved = engine.get_states()
    other = YinshBatch(5)  # states move between the two modes
    np.testing.assert_array_equal(other.set_states(saved).action_mask, out.action_mask)
    with pytest.raises(ValueError, match="observations must be True or False"):
        YinshBatch(2, observations=1)
