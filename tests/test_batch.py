"""The batched engine against independent AEC environments, step by step."""

import numpy as np
import pytest

from odd_env import OddBatch, xodd_v0, yodd_v0
from odd_env.games.odd.state import NUM_PLANES

MODULES = {"xodd": xodd_v0, "yodd": yodd_v0}


@pytest.mark.parametrize("game, size, batch, steps", [
    ("xodd", 3, 64, 1500), ("xodd", 5, 64, 1500), ("xodd", 9, 16, 1500),
    ("yodd", 2, 64, 1500), ("yodd", 3, 64, 1500), ("yodd", 6, 16, 1500),
])
def test_batch_matches_aec_envs(game, size, batch, steps):
    engine = OddBatch(game, size, batch)
    out = engine.reset()
    envs = [MODULES[game].raw_env(board_size=size) for _ in range(batch)]
    for e in envs:
        e.reset()
    rng = np.random.default_rng(size)
    agents = ["black_0", "white_0"]
    finished = 0
    for _ in range(steps):
        for b, e in enumerate(envs):
            player = agents.index(e.agent_selection)
            assert out.to_play[b] == player
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
                assert tuple(out.info["final_rewards"][b]) == (e.rewards["black_0"], e.rewards["white_0"])
                np.testing.assert_array_equal(out.info["final_obs"][b], e.observe(actor)["observation"])
                e.reset()
            else:
                assert out.reward[b] == 0 and not out.info["final_rewards"][b].any()
    assert finished >= batch  # every slot finished and auto-reset at least once on average


def test_outputs_are_preallocated_and_shaped():
    engine = OddBatch("yodd", 4, 8)
    out = engine.reset()
    assert out.observation.shape == (8, NUM_PLANES, 7, 7) and out.observation.dtype == np.int8
    assert out.action_mask.shape == (8, 2 * 49 + 1)
    out2 = engine.step(engine.random_actions(np.random.default_rng(0)))
    assert out2.observation is out.observation  # the same buffers, overwritten
    assert out.to_play.tolist() == [1] * 8  # Black's first turn is one stone


def test_illegal_action_names_the_game_and_changes_nothing():
    engine = OddBatch("xodd", 5, 4)
    out = engine.reset()
    actions = engine.random_actions(np.random.default_rng(1))
    out = engine.step(actions)
    before = [engine.game_state(b) for b in range(4)]
    obs_before = out.observation.copy()
    bad = engine.random_actions(np.random.default_rng(2))
    bad[2] = actions[2]  # the cell Black just filled in game 2: occupied
    with pytest.raises(ValueError, match=rf"illegal action {actions[2]} in game 2: .*occupied"):
        engine.step(bad)
    assert [engine.game_state(b) for b in range(4)] == before
    np.testing.assert_array_equal(out.observation, obs_before)
    for wrong, match in [(np.zeros(3, dtype=int), "shape"), (np.zeros(4), "integers"),
                         (np.full(4, 51), "illegal action 51 in game 0")]:
        with pytest.raises(ValueError, match=match):
            engine.step(wrong)
    with pytest.raises(ValueError, match="num_games"):
        OddBatch("xodd", 5, 0)
    with pytest.raises(ValueError, match="2 to 19"):
        OddBatch("xodd", 1, 4)
    with pytest.raises(RuntimeError, match="reset"):
        OddBatch("xodd", 5, 2).step(np.zeros(2, dtype=int))
    fresh = OddBatch("xodd", 5, 2)  # before a reset the buffers hold no game (once: a 'won' empty board)
    for call, name in [(fresh.get_states, "get_states"), (lambda: fresh.game_state(0), "game_state"),
                       (lambda: fresh.random_actions(np.random.default_rng(0)), "random_actions")]:
        with pytest.raises(RuntimeError, match=f"call reset\\(\\) \\(or set_states\\(\\)\\) before {name}"):
            call()


def test_torch_outputs_share_memory():
    torch = pytest.importorskip("torch")
    engine = OddBatch("xodd", 5, 4, as_torch=True)
    out = engine.reset()
    assert isinstance(out.observation, torch.Tensor) and out.observation.dtype == torch.int8
    first = out.observation.clone()
    actions = torch.as_tensor(engine.random_actions(np.random.default_rng(0)))
    out2 = engine.step(actions)
    assert out2.observation.data_ptr() == out.observation.data_ptr()
    assert not torch.equal(first, out2.observation)  # updated in place, no copies


def test_random_actions_are_uniform_over_legal_actions():
    engine = OddBatch("xodd", 3, 4000)
    engine.reset()
    rng = np.random.default_rng(0)
    engine.step(np.full(4000, 4))  # Black takes the centre: White has 8 cells x 2 colours + pass
    counts = np.bincount(engine.random_actions(rng), minlength=19)
    legal = engine.game_state(0).legal_action_mask().astype(bool)
    assert legal.sum() == 17
    assert counts[~legal].sum() == 0
    # chi-square-free check: each legal action within 5 sigma of 4000/k
    k = legal.sum()
    expected = 4000 / k
    assert np.all(np.abs(counts[legal] - expected) < 5 * np.sqrt(expected))
