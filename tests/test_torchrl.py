"""TorchRL's PettingZooWrapper on the AEC envs (``use_mask=True``), with the global state."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchrl")

from torchrl.envs import PettingZooWrapper  # noqa: E402
from torchrl.envs.utils import check_env_specs  # noqa: E402

from odd_env import xodd_v0, yinsh_v0, yodd_v0  # noqa: E402

AGENTS = ("black_0", "white_0")


@pytest.mark.filterwarnings("ignore:PettingZoo in TorchRL is tested using version")
@pytest.mark.parametrize("module, size", [(xodd_v0, 4), (yodd_v0, 3)], ids=["xodd", "yodd"])
def test_pettingzoo_wrapper_plays_the_game_of_the_raw_env(module, size):
    torch.manual_seed(size)
    torch.set_num_threads(1)
    env = PettingZooWrapper(module.env(board_size=size), use_mask=True, return_state=True)
    assert env.group_map == {a: [a] for a in AGENTS}
    rollout = env.rollout(500)  # random actions drawn from each step's action mask
    assert rollout["next", "done"][-1].item() and not rollout["next", "done"][:-1].any()
    # Replay the same actions on a raw env: the tensors are its observations, masks and state.
    ref = module.raw_env(board_size=size)
    ref.reset()
    for t in range(rollout.shape[0]):
        acting = [a for a in AGENTS if rollout[a, "mask"][t].item()]
        assert acting == [ref.agent_selection]
        assert np.array_equal(rollout["state"][t].numpy(), ref.state())
        for a in AGENTS:
            planes = rollout[a, "observation", "observation"][t, 0].numpy()
            assert np.array_equal(planes, ref.observe(a)["observation"])
        # TorchRL fills in the action mask of the acting agent only (the other's is all True).
        mask = rollout[acting[0], "action_mask"][t, 0].numpy()
        assert np.array_equal(mask, ref.observe(acting[0])["action_mask"].astype(bool))
        ref.step(int(rollout[acting[0], "action"][t].item()))
    assert all(ref.terminations.values())
    for a in AGENTS:
        assert rollout["next", a, "reward"][-1].item() == ref.rewards[a]
    assert sorted(ref.rewards.values()) == [-1.0, 1.0]


@pytest.mark.filterwarnings("ignore:PettingZoo in TorchRL is tested using version")
@pytest.mark.parametrize("make", [lambda: yinsh_v0.env(blitz=True), lambda: xodd_v0.parallel_env(board_size=3),
                                  lambda: yodd_v0.parallel_env(board_size=2), lambda: yinsh_v0.parallel_env(blitz=True)],
                         ids=["yinsh-aec", "xodd-parallel", "yodd-parallel", "yinsh-parallel"])
def test_every_env_passes_torchrls_spec_check_and_rolls_out(make):
    """The infos are numbers (YINSH's decision kind, the parallel envs' active agent), which TorchRL's
    specs need: a string there failed with "new(): invalid data type 'str'"."""
    torch.manual_seed(0)
    torch.set_num_threads(1)
    env = PettingZooWrapper(make(), use_mask=True)
    check_env_specs(env, seed=0)
    rollout = env.rollout(300)
    assert rollout["next", "done"].any()
