"""The single-agent Gymnasium view."""

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import odd_env  # noqa: F401 (registers the envs)
from odd_env import OddGymEnv, YinshGymEnv
from odd_env.games.yinsh.state import DECISIONS


@pytest.mark.parametrize("env_id, size", [("odd_env/Xodd-v0", 5), ("odd_env/Yodd-v0", 3)])
def test_registered_and_passes_check_env(env_id, size):
    env = gymnasium.make(env_id, board_size=size, opponent="random", play_as="random")
    check_env(env.unwrapped, skip_render_check=True)
    obs, info = env.reset(seed=1)
    assert env.observation_space.contains(obs)
    assert info["action_mask"].dtype == np.int8 and info["action_mask"].any()


@pytest.mark.parametrize("play_as", ["black", "white"])
def test_learner_plays_one_colour_and_gets_the_final_reward(play_as):
    env = OddGymEnv("xodd", 4, opponent="random", play_as=play_as)
    rng = np.random.default_rng(0)
    results = []
    for episode in range(30):
        obs, info = env.reset(seed=episode)
        assert info["play_as"] == play_as
        assert obs[6].all() == (play_as == "black")  # plane 6: the viewer is black
        terminated = False
        while not terminated:
            mask = env.action_masks()
            assert mask.any() and np.array_equal(mask, info["action_mask"].astype(bool))
            obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            assert not truncated
        b, w = info["black_groups"], info["white_groups"]
        mine, theirs = (b, w) if play_as == "black" else (w, b)
        assert reward == (1.0 if mine < theirs else -1.0)
        results.append(reward)
    assert set(results) == {1.0, -1.0}


def test_callable_opponent_and_seeded_repeatability():
    seen = []

    def first_legal(observation, action_mask):
        seen.append(observation.shape)
        return int(np.flatnonzero(action_mask)[0])

    env = OddGymEnv("yodd", 3, opponent=first_legal, play_as="white")
    env.reset(seed=0)
    assert seen == [(12, 5, 5)]  # the opponent opened Black's first turn
    assert env.state.group_counts in ((1, 0), (0, 1))

    def play(seed):
        env = OddGymEnv("xodd", 5, opponent="greedy", play_as="random")
        obs, info = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        trace = [info["play_as"]]
        done = False
        while not done:
            a = int(rng.choice(np.flatnonzero(env.action_masks())))
            obs, r, done, _, info = env.step(a)
            trace.append((a, info["black_groups"], info["white_groups"]))
        return trace

    assert play(3) == play(3)


def test_bad_arguments_and_illegal_actions():
    with pytest.raises(ValueError, match="play_as"):
        OddGymEnv("xodd", 5, play_as="red")
    with pytest.raises(ValueError, match="opponent"):
        OddGymEnv("xodd", 5, opponent=42)
    with pytest.raises(ValueError, match="2 to 19"):
        OddGymEnv("xodd", 1)
    with pytest.raises(ValueError, match="illegal_action"):
        OddGymEnv("xodd", 5, illegal_action="ignore")
    env = OddGymEnv("xodd", 5, play_as="black", illegal_action="raise")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="first turn"):
        env.step(50)  # pass on Black's first turn
    assert env.state.ply == 0
    env = OddGymEnv("yodd", 3, play_as="black")  # default: a masked action loses
    env.reset(seed=0)
    for bad in (-1, 51, 2.0, "3"):
        with pytest.raises(ValueError, match="illegal action"):
            env.step(bad)  # not in the action space: always an error
    obs, reward, terminated, truncated, info = env.step(0)  # an off-board cell: masked
    assert (reward, terminated) == (-1.0, True) and "off the board" in info["illegal_action"]
    assert env.state.ply == 0 and np.flatnonzero(env.action_masks()).tolist() == [50]  # over: pass alone
    with pytest.raises(ValueError, match="call reset"):
        env.step(12)


def test_maskable_ppo_trains_on_it():
    sb3c = pytest.importorskip("sb3_contrib")
    import torch

    torch.set_num_threads(1)
    env = OddGymEnv("xodd", 4, opponent="random", play_as="random")
    model = sb3c.MaskablePPO("MlpPolicy", env, n_steps=256, batch_size=64, n_epochs=2, seed=0, verbose=0,
                             policy_kwargs={"net_arch": [64]})
    model.learn(total_timesteps=2048)
    assert model.num_timesteps >= 2048
    obs, _ = env.reset(seed=5)
    action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[int(action)]


def test_a_failing_opponent_leaves_the_env_as_it_was():
    calls = []

    def flaky(observation, action_mask):  # out of range once, then the first legal action
        calls.append(1)
        return 10**6 if len(calls) == 1 else int(np.flatnonzero(action_mask)[0])

    env = OddGymEnv("xodd", 5, opponent=flaky, play_as="black")
    obs, info = env.reset(seed=0)
    with pytest.raises(ValueError, match="the opponent .* played an illegal action"):
        env.step(12)
    # the learner's stone is taken back: the same position, Black to act, the same observation and mask
    assert env.state.to_move == 0 and env.state.turn == 0
    np.testing.assert_array_equal(env._observation(), obs)
    np.testing.assert_array_equal(env.action_masks().astype(np.int8), info["action_mask"])
    obs, reward, terminated, _, info = env.step(12)  # the step again, now answered
    assert env.state.to_move == 0 and obs[0].sum() == 1 and obs[1].sum() >= 1 and not terminated

    def broken(observation, action_mask):
        raise RuntimeError("the opponent crashed")

    env = OddGymEnv("xodd", 5, opponent=broken, play_as="white")
    with pytest.raises(RuntimeError, match="crashed"):
        env.reset(seed=0)
    with pytest.raises(ValueError, match="reset\\(\\) did not finish; call reset"):
        env.step(0)


def test_step_before_reset_is_refused():
    env = OddGymEnv("xodd", 5, play_as="white")  # the learner's colour is only known after reset
    assert not env.action_masks().any()  # nothing to step yet (once: every action of the empty board)
    with pytest.raises(ValueError, match="reset\\(\\) was not called yet; call reset"):
        env.step(0)
    env.reset(seed=0)
    assert env.state.to_move == 1  # the opponent opened; the learner (White) is to act


def test_render_without_a_mode_warns():
    env = OddGymEnv("xodd", 5)
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="render\\(\\) was called without a render_mode"):
        assert env.render() is None


def test_the_registered_id_names_the_game():
    with pytest.raises(ValueError, match="odd_env/Xodd-v0 plays xodd; it takes no game="):
        gymnasium.make("odd_env/Xodd-v0", game="yodd")  # once a Yodd env under the Xodd id
    env = gymnasium.make("odd_env/Yodd-v0", board_size=4)
    assert (env.unwrapped.game, env.unwrapped.board_size) == ("yodd", 4)


# ------------------------------------------------------------------ vector envs
@pytest.mark.parametrize("env_id, kwargs, mode", [
    ("odd_env/Xodd-v0", {"board_size": 3}, "sync"),
    ("odd_env/Xodd-v0", {"board_size": 3}, "async"),
    ("odd_env/Yinsh-v0", {"blitz": True}, "sync"),
])
def test_vector_envs_sample_from_the_masks_through_next_step_autoresets(env_id, kwargs, mode):
    """gymnasium.make_vec with its default next-step autoreset: the step after an episode's end resets
    that env and ignores its action; the mask read then (the pass alone) still has an action to sample."""
    envs = gymnasium.make_vec(env_id, num_envs=3, vectorization_mode=mode, opponent="random",
                              play_as="random", **kwargs)
    try:
        assert envs.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.NEXT_STEP
        rng = np.random.default_rng(0)
        obs, infos = envs.reset(seed=0)
        autoreset = np.zeros(3, dtype=bool)
        resets = 0
        pass_action = envs.single_action_space.n - 1
        for _ in range(60 if env_id.startswith("odd_env/Xodd") else 150):
            masks = np.stack(envs.call("action_masks"))
            for i, mask in enumerate(masks):
                if autoreset[i]:
                    assert np.flatnonzero(mask).tolist() == [pass_action]
                else:
                    np.testing.assert_array_equal(mask, infos["action_mask"][i].astype(bool))
                    assert mask.any()
            actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])
            obs, rewards, terminated, truncated, infos = envs.step(actions)
            # the autoreset step: a fresh game, its first observation and mask, no reward
            assert not terminated[autoreset].any() and (rewards[autoreset] == 0).all()
            assert infos["action_mask"][autoreset].any(axis=1).all()
            resets += int(autoreset.sum())
            autoreset = terminated | truncated
        assert resets >= 3
    finally:
        envs.close()


# ------------------------------------------------------------------ YINSH
@pytest.mark.parametrize("blitz", [False, True])
def test_yinsh_registered_and_passes_check_env(blitz):
    env = gymnasium.make("odd_env/Yinsh-v0", opponent="random", play_as="random", blitz=blitz)
    check_env(env.unwrapped, skip_render_check=True)
    obs, info = env.reset(seed=1)
    assert env.unwrapped.blitz == blitz and obs.shape == (24, 11, 11) and env.action_space.n == 485
    assert env.observation_space.contains(obs) and obs[22].all() == blitz
    assert info["action_mask"].sum() == 85 - (info["play_as"] == "black")  # a ring on any empty point
    assert DECISIONS[info["decision"]] == "place" and (info["white_removed"], info["pool"]) == (0, 51)
    text = YinshGymEnv(blitz=blitz, render_mode="ansi")
    text.reset(seed=0)
    assert "to place a ring" in text.render()


@pytest.mark.parametrize("play_as", ["white", "black"])
def test_yinsh_opponent_plays_all_its_decisions_before_control_returns(play_as):
    kinds: list[int] = []

    def recording_random(observation, action_mask):  # a random opponent that notes its decisions
        kinds.append(int(np.flatnonzero(observation[6:12, 0, 0])[0]))  # planes 6-11: the decision kind
        return int(rng.choice(np.flatnonzero(action_mask)))

    rng = np.random.default_rng(1)
    env = YinshGymEnv(blitz=True, opponent=recording_random, play_as=play_as)
    learner = ("white", "black").index(play_as)
    learner_kinds: set[str] = set()
    longest_reply = 0
    results = []
    for episode in range(12):
        obs, info = env.reset(seed=episode)
        done = False
        while not done:
            # control is back with the learner: it decides, and its planes say so
            assert env.state.to_move == learner and obs[23].all() and info["decision"] == env.state.decision
            learner_kinds.add(DECISIONS[info["decision"]])
            mask = env.action_masks()
            np.testing.assert_array_equal(mask, env.state.legal_action_mask().astype(bool))
            before = len(kinds)
            obs, reward, done, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            longest_reply = max(longest_reply, len(kinds) - before)
        assert env.state.is_terminal and info["decision"] == -1
        assert reward == env.state.returns()[learner]
        results.append(reward)
    assert {1.0, -1.0} <= set(results)  # (a draw when the pool runs out)
    named = {DECISIONS[k] for k in kinds}
    assert {"place", "move", "destination", "remove_row", "remove_ring"} <= named  # rows and rings included
    assert {"place", "move", "destination"} <= learner_kinds
    assert longest_reply >= 4  # e.g. a ring chosen, its destination, a row and a ring removed in one step


def test_yinsh_refuses_what_cannot_play_it():
    with pytest.raises(ValueError, match="the opponent 'greedy' cannot play yinsh"):
        YinshGymEnv(opponent="greedy")
    with pytest.raises(ValueError, match="play_as must be 'white', 'black' or 'random'"):
        YinshGymEnv(play_as="red")
    with pytest.raises(ValueError, match="blitz must be True or False"):
        YinshGymEnv(blitz="yes")
    with pytest.raises(ValueError, match="takes no board_size="):
        gymnasium.make("odd_env/Yinsh-v0", board_size=7)
    env = YinshGymEnv(play_as="white", illegal_action="raise")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="learner \\(white\\): illegal action 484"):
        env.step(484)  # pass while placing rings
    assert env.state.ply == 0


def test_maskable_ppo_trains_on_yinsh():
    sb3c = pytest.importorskip("sb3_contrib")
    import torch

    torch.set_num_threads(1)
    env = gymnasium.make("odd_env/Yinsh-v0", blitz=True, opponent="random", play_as="random")
    model = sb3c.MaskablePPO("MlpPolicy", env, n_steps=128, batch_size=64, n_epochs=1, seed=0, verbose=0,
                             policy_kwargs={"net_arch": [32]})
    model.learn(total_timesteps=256)
    assert model.num_timesteps >= 256
    obs, _ = env.reset(seed=5)
    mask = env.unwrapped.action_masks()
    action, _ = model.predict(obs, action_masks=mask, deterministic=True)
    assert mask[int(action)]
