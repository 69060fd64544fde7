"""Network-guided MCTS: agents.load("mcts", network=PATH): priors and values from a PPO network."""

import pickle
import re

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import agents  # noqa: E402
from agents.arena import play_game, round_robin  # noqa: E402
from agents.mcts import MCTSAgent  # noqa: E402
from agents.ppo import Args, PPOAgent, Trainer  # noqa: E402
from odd_env.game import make  # noqa: E402


def _checkpoint(tmp_path_factory, game, size=0, variant=""):
    path = tmp_path_factory.mktemp(f"{game}{size}{variant}") / "net.pt"
    args = Args(game=game, board_size=size, variant=variant, num_games=4, rollout_steps=4, channels=8, blocks=1,
                eval_opponents="random", run_dir=str(path.parent), tensorboard=False, progress=False, seed=2)
    return str(Trainer(args).save(path))


@pytest.fixture(scope="module")
def xodd4(tmp_path_factory):
    return _checkpoint(tmp_path_factory, "xodd", 4)


@pytest.mark.parametrize("game,size,variant", [("xodd", 4, ""), ("yodd", 3, ""), ("yinsh", 0, "blitz")])
def test_network_guided_search_plays_legal_games_without_rollouts(tmp_path_factory, monkeypatch, game, size,
                                                                   variant):
    path = _checkpoint(tmp_path_factory, game, size, variant)
    monkeypatch.setattr(MCTSAgent, "_evaluate", lambda self, node: pytest.fail("a rollout ran"))
    player = agents.load("mcts", network=path, simulations=12, seed=1)
    assert player.game is make(game, size or None, variant)
    result = play_game(player, "random", player.game, seed=3)  # the arena checks every move's legality
    assert result.plies > 4


def test_the_priors_are_the_networks_policy(xodd4):
    network = PPOAgent(path=xodd4)
    state = make("xodd", 4).new_state()
    state.apply(int(state.legal_actions()[5]))
    probs, _ = network.policy_value(state)
    # One simulation expands the child of highest prior (all children unvisited: PUCT ranks by prior).
    one = agents.load("mcts", network=xodd4, simulations=1, seed=0)
    assert one.act(state) == int(np.argmax(probs))
    assert one.root_visits() == {int(np.argmax(probs)): 1} | {
        int(a): 0 for a in state.legal_actions() if a != np.argmax(probs)}


def test_the_tree_is_reused_for_the_next_position(xodd4):
    state = make("xodd", 4).new_state()
    carried_over = []
    for reuse in (True, False):
        player = agents.load("mcts", network=xodd4, simulations=160, seed=0, reuse_tree=reuse)
        s = state.copy()
        action = player.act(s)
        visits = player.root_visits()[action]
        s.apply(action)  # Black's one-stone first turn: White decides next, a child of the root
        player.act(s)
        # The child was reached `visits` times: once expanded, then searched through visits - 1 times.
        carried = visits - 1 if reuse else 0
        assert sum(player.root_visits().values()) == carried + player.last_simulations == carried + 160
        carried_over.append(carried)
    assert carried_over[0] >= 2


def test_a_position_of_another_game_is_refused(xodd4):
    player = agents.load("mcts", network=xodd4, simulations=4)
    with pytest.raises(ValueError, match=re.escape(f"mcts: the network {xodd4!r} plays xodd 4, not xodd 5")):
        player.act(make("xodd", 5).new_state())
    with pytest.raises(ValueError, match="plays xodd 4, not yodd 4"):
        round_robin([player, "random"], "yodd", 4, games_per_pair=2, progress=False)


def test_options_are_checked(xodd4, tmp_path):
    missing = str(tmp_path / "missing.pt")
    with pytest.raises(ValueError, match=re.escape("mcts option network must be a pretrained network's name (")
                       + ".*" + re.escape(f") or the path of a PPO checkpoint file, got {missing!r}: not a file")):
        agents.load("mcts", network=missing)
    with pytest.raises(ValueError, match=re.escape(f"got {str(tmp_path)!r}: not a file")):
        agents.load("mcts", network=str(tmp_path))
    with pytest.raises(ValueError, match="or the path of a PPO checkpoint file, got 3$"):
        agents.load("mcts", network=3)
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a checkpoint")
    with pytest.raises(ValueError, match=re.escape(f"mcts option network {str(junk)!r}: ") + ".*corrupt"):
        agents.load("mcts", network=str(junk))
    with pytest.raises(ValueError, match="network= .* or policy_value_fn=, not both"):
        agents.load("mcts", network=xodd4, policy_value_fn=lambda s: (np.ones(33), 0.0))


def test_label_options_spec_and_pickle(xodd4):
    player = agents.load(f"mcts:network={xodd4},simulations=30", seed=4)
    assert player.label == f"mcts:simulations=30,network={xodd4}"
    assert player.options["network"] == xodd4
    rebuilt = agents.load("mcts", **player.options)
    copy = pickle.loads(pickle.dumps(player))  # what the arena sends to its worker processes
    assert copy.game is player.game and copy.network == xodd4
    state = make("xodd", 4).new_state()
    assert player.act(state) == rebuilt.act(state) == copy.act(state)
