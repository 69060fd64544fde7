"""Stable-Baselines3 out of the box: the board feature extractor, CnnPolicy, check_env."""

import warnings

import gymnasium
import numpy as np
import pytest

sb3_contrib = pytest.importorskip("sb3_contrib")
torch = pytest.importorskip("torch")

from stable_baselines3.common.callbacks import BaseCallback  # noqa: E402
from stable_baselines3.common.env_checker import check_env as sb3_check_env  # noqa: E402
from stable_baselines3.common.preprocessing import is_image_space  # noqa: E402

import odd_env  # noqa: E402,F401 (registers the envs)
from agents.train.sb3 import BoardFeatures  # noqa: E402
from odd_env import OddGymEnv  # noqa: E402

torch.set_num_threads(1)

# The warnings agents/sb3.py explains: sb3's checker calls every 3-D box an image.
IMAGE_WARNINGS = {
    "dtype": "It seems that your observation  is an image but its `dtype` is (int8)",
    "bounds": "It seems that your observation space  is an image but the upper and lower bounds are not in [0, 255]",
    "resolution": "The minimal resolution for an image is 36x36",
    "channels-last": "Treating image space as channels-last",
}


def _policy_kwargs(game: str) -> dict:
    return {"features_extractor_class": BoardFeatures, "features_extractor_kwargs": {"hexagonal": game == "yodd"}}


@pytest.mark.parametrize("game, size", [("xodd", 2), ("xodd", 19), ("yodd", 2), ("yodd", 12)])
def test_board_features_at_the_smallest_and_largest_boards(game, size):
    env = OddGymEnv(game, size, opponent="random")
    obs, _ = env.reset(seed=0)
    extractor = BoardFeatures(env.observation_space, features_dim=32, hexagonal=game == "yodd")
    features = extractor(torch.as_tensor(obs[None]))  # int8 planes as the env gives them
    assert features.shape == (1, 32) and torch.isfinite(features).all()
    batch = torch.as_tensor(np.stack([obs, env.state.child(int(env.state.legal_actions()[0])).observation()]))
    assert not torch.equal(*extractor(batch))  # the position matters


def test_board_features_rejects_what_it_cannot_read():
    with pytest.raises(ValueError, match="C x H x W"):
        BoardFeatures(gymnasium.spaces.Box(0, 1, (12 * 5 * 5,), dtype=np.int8))
    with pytest.raises(ValueError, match="one of the 3 planes"):
        BoardFeatures(gymnasium.spaces.Box(0, 1, (3, 5, 5), dtype=np.int8))
    box = gymnasium.spaces.Box(0, 1, (12, 5, 5), dtype=np.int8)
    with pytest.raises(ValueError, match="channels"):
        BoardFeatures(box, channels=0)
    with pytest.raises(ValueError, match="looks like H x W x C"):
        BoardFeatures(gymnasium.spaces.Box(0, 1, (5, 5, 12), dtype=np.int8))
    for kwargs, message in [(dict(hexagonal="no"), "hexagonal must be True or False"),
                            (dict(onboard_plane=True), "it must be an integer"), (dict(channels=True), "channels"),
                            (dict(features_dim=True), "features_dim")]:
        with pytest.raises(ValueError, match=message):
            BoardFeatures(box, **kwargs)
    extractor = BoardFeatures(box, onboard_plane=np.int64(3), features_dim=8)  # a NumPy integer is an integer
    with pytest.raises(ValueError, match=r"takes observations \(B, 12, 5, 5\), got \(2, 12, 7, 7\)"):
        extractor(torch.zeros(2, 12, 7, 7))


@pytest.mark.parametrize("game, size, expected", [
    ("xodd", 5, {"dtype", "bounds", "resolution", "channels-last"}),
    ("yodd", 3, {"dtype", "bounds", "resolution", "channels-last"}),
    ("xodd", 19, {"dtype", "bounds", "resolution"}),  # 19 > 12 planes: sb3 guesses channels-first
])
def test_sb3_check_env_warns_only_as_documented(game, size, expected):
    env = OddGymEnv(game, size, opponent="random")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sb3_check_env(env)
    found = set()
    for w in caught:
        kinds = [k for k, prefix in IMAGE_WARNINGS.items() if str(w.message).startswith(prefix)]
        assert kinds, f"undocumented sb3 check_env warning: {w.message}"
        found.update(kinds)
    assert found == expected
    # Training does not take the planes for an image: no /255, no transposition.
    assert not is_image_space(env.observation_space)


class _CountIllegal(BaseCallback):
    """Counts the learner's forfeits by illegal action during collection."""

    def __init__(self):
        super().__init__()
        self.illegal = 0
        self.episodes = 0

    def _on_step(self) -> bool:
        for info, done in zip(self.locals["infos"], self.locals["dones"]):
            self.illegal += "illegal_action" in info
            self.episodes += bool(done)
        return True


def test_maskable_ppo_cnn_policy_trains_on_yodd():
    env = gymnasium.make("odd_env/Yodd-v0", board_size=3, opponent="random", play_as="random")
    model = sb3_contrib.MaskablePPO("CnnPolicy", env, n_steps=128, batch_size=64, n_epochs=2, seed=0,
                                    verbose=0, policy_kwargs=_policy_kwargs("yodd"))
    extractor = model.policy.features_extractor
    assert isinstance(extractor, BoardFeatures)
    before = [p.detach().clone() for p in extractor.parameters()]
    counter = _CountIllegal()
    model.learn(total_timesteps=384, callback=counter)
    assert model.num_timesteps >= 384
    assert counter.episodes > 0 and counter.illegal == 0  # the masks reach the policy
    assert any(not torch.equal(a, b) for a, b in zip(before, extractor.parameters()))
    # sb3 hands the planes to the extractor unscaled.
    obs, _ = env.reset(seed=3)
    obs_tensor, _ = model.policy.obs_to_tensor(obs)
    with torch.no_grad():
        via_sb3 = model.policy.extract_features(obs_tensor)
        direct = extractor(torch.as_tensor(obs[None]).float())
    assert torch.allclose(via_sb3, direct)
    mask = env.unwrapped.action_masks()
    action, _ = model.predict(obs, action_masks=mask, deterministic=True)
    assert mask[int(action)]


def test_maskable_ppo_cnn_policy_trains_on_yinsh():
    """odd_env/Yinsh-v0 with BoardFeatures (hexagonal kernels, the valid points on plane 4): the masks
    reach the policy, so no game is lost on an illegal action."""
    env = gymnasium.make("odd_env/Yinsh-v0", blitz=True, opponent="random", play_as="random")
    model = sb3_contrib.MaskablePPO("CnnPolicy", env, n_steps=128, batch_size=64, n_epochs=1, seed=0, verbose=0,
                                    policy_kwargs={"features_extractor_class": BoardFeatures,
                                                   "features_extractor_kwargs": {"hexagonal": True, "onboard_plane": 4,
                                                                                 "channels": 16, "blocks": 1}})
    counter = _CountIllegal()
    model.learn(total_timesteps=256, callback=counter)
    assert model.num_timesteps >= 256 and counter.episodes > 0 and counter.illegal == 0
    obs, _ = env.reset(seed=2)
    mask = env.unwrapped.action_masks()
    action, _ = model.predict(obs, action_masks=mask, deterministic=True)
    assert mask[int(action)]
